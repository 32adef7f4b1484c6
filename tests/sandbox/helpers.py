"""Helpers of the sandbox tests: decoding bodies without floats, waiting with a deadline."""

from __future__ import annotations

from typing import Any

import httpx

from pos_app.api.routes import ROUTES
from pos_app.api.wire import decode_json, encode_json
from pos_app.sandbox.seeded_customers import SEEDED_CUSTOMERS
from tests.waiting import wait_until

S_TERMINAL, S_TERMINAL_2, S_INACTIVE = "ts-1001", "ts-1002", "ts-1003"
B_TERMINAL, B_TERMINAL_2, B_INACTIVE = "tb-2001", "tb-2002", "tb-2003"
USER_AGENT = "pos-app/0.1.0 (store 7; station 2; cashier 41; attempt a-123)"
SEEDED = len(SEEDED_CUSTOMERS)
"""How many customers each merchant starts with (Jane Roe and others)."""
SEEDED_EMAILS = frozenset(c.email for c in SEEDED_CUSTOMERS)


def body(response: httpx.Response) -> Any:
    """The JSON body with fractional numbers as Decimal (never float)."""
    return decode_json(response.content)


def call(client: httpx.Client, name: str, *, json: Any = None, params: dict | None = None, **path: str):
    """Request route ``name`` of ROUTES; ``json`` is sent through ``encode_json``."""
    route = ROUTES[name]
    content = None if json is None else encode_json(json)
    headers = {"content-type": "application/json"} if content is not None else {}
    return client.request(route.method, route.format(**path) if path else route.path,
                          content=content, params=params, headers=headers)


def poll_until(client: httpx.Client, message_id: str, statuses: set[str], *, timeout: float = 5.0) -> dict:
    """Poll a type S message until its status is one of ``statuses``."""

    def check() -> dict | None:
        response = call(client, "terminal.poll_message", messageId=message_id)
        assert response.status_code == 200, response.text
        answer = body(response)
        return answer if answer["status"] in statuses else None

    return wait_until(check, timeout=timeout, what=f"message {message_id} to reach {sorted(statuses)}")


def pay(client: httpx.Client, terminal_id: str, amount: int, *, route: str = "terminal.pay", **extra: Any):
    return call(client, route, json={"terminalId": terminal_id, "amount": amount, "receipt": False, **extra})


def pay_s_completed(client: httpx.Client, amount: int, *, route: str = "terminal.pay", **extra: Any) -> dict:
    """A type S sale or pre-auth, polled to complete; returns the payment (``data``)."""
    response = pay(client, S_TERMINAL, amount, route=route, **extra)
    assert response.status_code == 201, response.text
    done = poll_until(client, body(response)["msgIdentifier"], {"complete"})
    return body(call(client, "payment.get", id=done["paymentId"]))["data"]


def pay_b_approved(client: httpx.Client, amount: int, *, route: str = "terminal.pay", **extra: Any) -> dict:
    response = pay(client, B_TERMINAL, amount, route=route, **extra)
    assert response.status_code == 201, response.text
    answer = body(response)
    assert answer["error"] is False, answer
    return body(call(client, "payment.get", id=answer["paymentId"]))["data"]
