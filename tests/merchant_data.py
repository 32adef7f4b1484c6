"""The sandbox merchant's data as tests need it: its taxes changed as the real service may
change them (a tax deleted while items still name it), for the tests of bad data, and the
customers it starts with: shared by the counter and UI tests."""

from __future__ import annotations

from typing import Any

import httpx

from pos_app.api.wire import decode_json

B_CITY_TAX = "65a1c0de0000000000007b02"
"""Merchant B's City tax, 2.00 %: on about 120 of its items."""


def listed_taxes(sandbox: Any, merchant: str = "B") -> list[dict[str, Any]]:
    """The merchant's tax list as the service answers it (rates as ``Decimal``)."""
    answer = httpx.get(f"{sandbox.base_url}/public/tax", headers={"key-hash": sandbox.keys[merchant]}, timeout=5)
    answer.raise_for_status()
    taxes: list[dict[str, Any]] = decode_json(answer.content)
    return taxes


def delete_tax(sandbox: Any, tax_id: str, merchant: str = "B") -> None:
    """``tax_id`` deleted on the service: its list no longer has it, its items still name it."""
    sandbox.set_taxes(merchant, [t for t in listed_taxes(sandbox, merchant) if t["id"] != tax_id])


def seeded_customer(sandbox: Any, email: str, merchant: str = "B") -> str:
    """The vault id of one of the customers every sandbox merchant starts with
    (``pos_app.sandbox.seeded_customers``), found by ``email``."""
    answer = httpx.get(f"{sandbox.base_url}/public/customer", params={"keyword": email},
                       headers={"key-hash": sandbox.keys[merchant]}, timeout=5)
    answer.raise_for_status()
    [found] = decode_json(answer.content)["data"]
    vault_id: str = found["id"]
    return vault_id
