"""``GET /public/transactions``: one entry per gateway transaction.

A sale or pre-auth has its entry (``type`` "sale" or "auth", the pay request's
user-agent), and so has each capture, void and refund of it (``type`` "capture",
"void" or "refund", its own id and ``transactionId``, the user-agent and terminal of
its own request, its own time). Entries are sorted newest first by ``createdAt``
(oldest first with the ``list_oldest_first`` knob); an entry is listed only
``list_lag_s`` seconds after its transaction happened; ``list_bool_fields`` changes
how ``error`` and ``captured`` are written. Paging works over the whole list. A charge
through the service's routes carries its ``order.externalId`` (the query ``externalId``
finds it) and, for ACH, its bank account under ``ach`` instead of a card.
"""

from __future__ import annotations

from dataclasses import dataclass

from pos_app.sandbox.merchants import CARDHOLDER, Terminal
from pos_app.sandbox.protocol import Call, Reply, iso_time
from pos_app.sandbox.records import Transaction
from pos_app.sandbox.state import Book, Sandbox
from pos_app.sandbox.validation import page_meta, page_query, page_slice


def listed(book: Book, *, now: float, lag: float, oldest_first: bool) -> list[Transaction]:
    """The transactions that happened at least ``lag`` seconds before the monotonic ``now``,
    by ``createdAt``; of two at the same instant the one recorded first is the older."""
    shown = [t for t in book.transactions if now - _own(t).mono >= lag]
    if oldest_first:
        return sorted(shown, key=lambda t: _own(t).at)
    return sorted(reversed(shown), key=lambda t: _own(t).at, reverse=True)


@dataclass(frozen=True)
class _Own:
    """What an entry does not take from its payment: the gateway transaction's own facts."""

    id: str
    type: str
    voidable: bool
    base: int
    surcharge: int
    transaction_id: str
    error: str | None
    at: float
    mono: float
    user_agent: str
    terminal: Terminal


def _own(transaction: Transaction) -> _Own:
    payment, follow_up = transaction
    if follow_up is None:
        return _Own(
            id=payment.record_id,
            type=payment.sale.kind,
            voidable=payment.voidable,
            base=payment.amount,
            surcharge=payment.surcharge,
            transaction_id=payment.transaction_id,
            error=payment.error,
            at=payment.created_at,
            mono=payment.created_mono,
            user_agent=payment.sale.user_agent,
            terminal=payment.sale.terminal,
        )
    return _Own(
        id=follow_up.id,
        type=follow_up.kind,
        # A capture carries the payment's transaction id: voiding that id voids the payment.
        voidable=follow_up.kind == "capture" and payment.voidable,
        base=follow_up.amount,
        surcharge=follow_up.surcharge,
        transaction_id=follow_up.transaction_id,
        error=None,
        at=follow_up.at,
        mono=follow_up.mono,
        user_agent=follow_up.user_agent,
        terminal=follow_up.terminal,
    )


def entry(transaction: Transaction, *, bool_fields: bool) -> dict:
    """The list entry of a sale/pre-auth or of one capture, void or refund of it."""
    payment, own = transaction[0], _own(transaction)
    merchant, card = payment.merchant, payment.card
    return {
        "settled": payment.settled,
        "import": False,
        "importAt": None,
        "voidable": own.voidable,
        "_id": own.id,
        "id": own.id,
        "object": "transaction",
        "type": own.type,
        "status": payment.status,
        "amount": own.base + own.surcharge,
        "baseAmount": own.base,
        "surcharge": own.surcharge,
        "captured": payment.captured if bool_fields else ("true" if payment.captured else "false"),
        "transactionId": own.transaction_id,
        "error": False if bool_fields and own.error is None else own.error,
        "createdAt": iso_time(own.at),
        "transactionAt": iso_time(own.at),
        "updatedAt": iso_time(payment.updated_at),
        "userAgent": own.user_agent,
        "device": {"terminalId": own.terminal.id, "name": own.terminal.name},
        "paymentId": payment.id,
        "orderNumber": payment.sale.order_number,
        "createdBy": "api",
        "updatedBy": "api",
        "owner": merchant.client_id,
        "ownerGroup": merchant.client_id,
        **({"order": {"externalId": payment.sale.external_id}} if payment.sale.external_id else {}),
        **({"ach": payment.sale.ach} if payment.sale.ach else {}),
        "card": None if payment.sale.ach else {
            "name": CARDHOLDER,
            "number": card.masked,
            "paymentToken": None,
            "type": card.type,
            "last4": card.last4,
            "network": card.network,
        },
    }


def _transactions(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    page, limit = page_query(call.query)
    knobs = sandbox.knobs
    rows = listed(book, now=sandbox.now, lag=knobs["list_lag_s"], oldest_first=bool(knobs["list_oldest_first"]))
    external_id = call.query.get("externalId")
    if external_id:  # order.externalId is stored and searchable
        rows = [t for t in rows if t[0].sale.external_id == external_id]
    meta = page_meta(len(rows), page, limit)
    # The service echoes page and limit as strings when they came in the query.
    for name in ("page", "limit"):
        if name in call.query:
            meta[name] = call.query[name]
    bool_fields = bool(knobs["list_bool_fields"])
    data = [entry(t, bool_fields=bool_fields) for t in page_slice(rows, page, limit)]
    return Reply(200, {"meta": meta, "data": data})


HANDLERS = {"transactions.list": _transactions}
