"""The ACH payment routes (reference 4.2): charge (a vault's ACH account, or ``achData``),
refund, void and the ACH payments' own list, over the payment machinery of
``pos_app.sandbox.card_payments``.

- From a vault (``customerId``): the request's addresses and ``achData`` are ignored; the
  default method must be an ACH account, or ``overrideDefaultPaymentMethod`` name one.
- ``achData.last4`` is exactly four digits; an unknown tax id is 404; each tax is computed
  on the amount and added to the net amount; ACH never carries a surcharge.
- Refund: settled, and only 6 minutes after the charge; void: unsettled. The test amounts
  and money-moving knobs are those of the card routes.
- The list holds ACH payments only (``GET /public/ach``), newest first, filtered by
  ``achLast4``, ``authorizationNumber`` (the transaction id) and creation day; no card
  ``status`` on its entries.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pos_app.api.money import percent_of
from pos_app.sandbox.card_payments import (
    Charged,
    charge_reply,
    make_payment,
    refund_payment,
    test_amount_before,
    vault_method,
    void_payment,
)
from pos_app.sandbox.merchants import ONLINE, Card
from pos_app.sandbox.protocol import Call, Reply, invalid, iso_time, not_found
from pos_app.sandbox.records import Sale
from pos_app.sandbox.validation import Fields, page_meta, page_query, page_slice

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

ACCOUNT_TYPES = ("businessChecking", "businessSavings", "personalChecking", "personalSavings")
LAST4 = re.compile(r"^[0-9]{4}$")


def _account(f: Fields, book: Book, body: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The account charged (as lists show it) and the vault, when the charge names one."""
    customer_id = body.get("customerId")
    if customer_id is not None:
        method, vault_id = vault_method(book, str(customer_id), body.get("overrideDefaultPaymentMethod"), ach=True)
        return {"accountType": None, "last4": method.last4}, vault_id
    data = body.get("achData")
    if not isinstance(data, dict):
        f.fail("achData should not be empty (or give customerId)")
        return {}, None
    if data.get("accountType") not in ACCOUNT_TYPES:
        f.fail(f"achData.accountType must be one of {', '.join(ACCOUNT_TYPES)}")
    last4 = data.get("last4")
    if last4 is not None and (not isinstance(last4, str) or not LAST4.fullmatch(last4)):
        f.fail("achData.last4 must be exactly four digits")
    number = data.get("accountNumber")
    has_account = isinstance(number, str) and number.isdigit() and bool(data.get("routingNumber"))
    if not data.get("paymentToken") and not has_account:
        f.fail("achData needs routingNumber and accountNumber, or paymentToken")
    if last4 is None and isinstance(number, str):
        last4 = number[-4:]
    return {"accountType": data.get("accountType"), "last4": last4}, None


def _taxed(book: Book, taxes: object, amount: int) -> int:
    """The amount with each merchant tax added (404 for an unknown tax id)."""
    if taxes is None:
        return amount
    if not isinstance(taxes, list) or not all(isinstance(t, str) for t in taxes):
        raise invalid(["taxes must be an array of tax ids"])
    rates = {str(t.get("id")): t.get("rate") for t in book.taxes}
    added = 0
    for tax_id in taxes:
        if tax_id not in rates:
            raise not_found(f"tax {tax_id} not found")
        added += percent_of(amount, Decimal(str(rates[tax_id])))
    return amount + added


def _charge(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    body = call.json_object()
    f = Fields(body)
    amount = f.cents("amount")
    receipt = f.boolean("sendReceipt", required=False)
    currency = body.get("currency")
    if currency is not None and currency not in ("USD", "CAD"):
        f.fail("currency must be one of USD, CAD")
    order: dict[str, Any] = body["order"] if isinstance(body.get("order"), dict) else {}
    account, vault_id = _account(f, book, body)
    f.check()
    assert amount is not None
    test_amount_before(amount)
    taxes = _taxed(book, body.get("taxes"), amount) - amount
    sale = Sale(kind="ach", terminal=ONLINE, amount=amount, receipt=bool(receipt),
                user_agent=sandbox.recorded_agent(call), order_number=order.get("orderId"),
                external_id=order.get("externalId"), customer_id=vault_id, ach=account)
    card = Card("ACH", "ach", "ach", "000000", str(account.get("last4") or "0000"))
    return charge_reply(make_payment(sandbox, book, Charged(amount, card, True, True, sale, added=taxes)))


def _list(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    page, limit = page_query(call.query)
    query = call.query
    days: list[date | None] = []
    for name in ("startDay", "endDay"):
        try:
            days.append(date.fromisoformat(query[name]) if query.get(name) else None)
        except ValueError:
            raise invalid([f"{name} must be a day as YYYY-MM-DD"]) from None
    start, end = days
    rows = []
    for payment in sorted(book.payments.values(), key=lambda p: p.created_at, reverse=True):
        account = payment.sale.ach
        if account is None:
            continue
        day = datetime.fromtimestamp(payment.created_at).date()
        if query.get("achLast4") and account.get("last4") != query["achLast4"]:
            continue
        if query.get("authorizationNumber") and payment.transaction_id != query["authorizationNumber"]:
            continue
        if (start and day < start) or (end and day > end):
            continue
        rows.append({"id": payment.id, "transactionId": payment.transaction_id, "amount": payment.amount,
                     "netAmount": payment.net_amount, "currency": "USD", "paid": payment.paid,
                     "settled": payment.settled, "ach": account, "createdAt": iso_time(payment.created_at),
                     "updatedAt": iso_time(payment.updated_at)})
    return Reply(200, {"meta": page_meta(len(rows), page, limit), "data": page_slice(rows, page, limit)})


HANDLERS = {
    "ach.charge": _charge,
    "ach.refund": lambda sandbox, book, call: refund_payment(sandbox, book, call, ach=True),
    "ach.void": lambda sandbox, book, call: void_payment(sandbox, book, call, ach=True),
    "ach.list": _list,
}
