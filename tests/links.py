"""Helpers of the payment link tests (client, sandbox and command line): the merchants'
tax ids, tiny files of each accepted type, paying a link through the sandbox action, and
counting the link requests a merchant made."""

from __future__ import annotations

from typing import Any

import httpx

from pos_app.api.wire import decode_json, encode_json

STATE_TAX_B, CITY_TAX_B = "65a1c0de0000000000007b01", "65a1c0de0000000000007b02"  # 6.25 %, 2.00 %
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + b"0" * 32
JPG = b"\xff\xd8\xff\xe0" + b"\x00" * 28


def pay_link(sandbox: Any, link_id: str, amount: int | None = None) -> httpx.Response:
    """``POST /_sandbox/payment-link/{id}/pay``: the link's customer pays (``amount`` cents,
    else the rest)."""
    request: dict[str, Any] = {}
    if amount is not None:
        request["amount"] = amount
    return httpx.post(f"{sandbox.base_url}/_sandbox/payment-link/{link_id}/pay", content=encode_json(request),
                      headers={"content-type": "application/json"}, timeout=5)


def paid(sandbox: Any, link_id: str, amount: int | None = None) -> dict[str, Any]:
    """Pay a link through the sandbox action; its answer (the link in cents, the payment)."""
    answer = pay_link(sandbox, link_id, amount)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = decode_json(answer.content)
    return result


def answer_once(sandbox: Any, route: str, body: Any, status: int = 200) -> None:
    """The next request to ``route`` answers ``body`` as given (``POST /_sandbox/inject``;
    JSON through ``encode_json``, so dollars stay exact decimals on the wire)."""
    request = {"route": route, "status": status, "body": body}
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/inject", content=encode_json(request),
                        headers={"content-type": "application/json"}, timeout=5)
    assert answer.status_code == 200, answer.text


def link_requests(sandbox: Any, merchant: str = "B") -> int:
    """How many requests ``merchant`` sent to the link and attachment routes."""
    counts = sandbox.stats()["requests"].get(merchant, {})
    return sum(n for route, n in counts.items() if route.startswith(("link.", "old_link.")) or "attachments" in route)
