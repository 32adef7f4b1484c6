"""The terminal routes (reference 4.8 and the POS contract): pay, pre-auth, poll,
capture, void, refund, close batch (by id and by serial) and the terminal list.

Type S pay/pre-auth answer a message to poll and charge later (see ``records.Message``);
type B answers the final result at once. Capture, void and refund are synchronous for
both merchants and answer the type B pay shape; each is recorded as a ``FollowUp`` of
its payment, with the terminal and user-agent of its own request. The test amounts of
``faults`` are applied here.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import replace
from typing import TYPE_CHECKING

from pos_app.api.money import TERMINAL_AMOUNT_MAX
from pos_app.api.routes import ROUTES
from pos_app.sandbox import faults
from pos_app.sandbox.merchants import CUSTOM_VALUE_KEYS, Terminal, surcharge_for
from pos_app.sandbox.protocol import (
    DROPPED,
    Call,
    Reply,
    ServiceFailure,
    StatusFailure,
    invalid,
    not_found,
    rate_limited,
    refused,
    rejected,
)
from pos_app.sandbox.records import (
    APPROVE,
    DECLINE,
    FAIL,
    TIMEOUT_FOREVER,
    TIMEOUT_THEN_COMPLETE,
    FollowUp,
    Payment,
    Sale,
)
from pos_app.sandbox.settlement import settle
from pos_app.sandbox.validation import Fields, page_meta, page_query, page_slice

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

GATEWAY_FAILURE_TEXT = "gateway failure"
_S_OUTCOMES = {
    faults.GATEWAY_FAILURE: FAIL,
    faults.TIMEOUT_THEN_COMPLETE: TIMEOUT_THEN_COMPLETE,
    faults.TIMEOUT_FOREVER: TIMEOUT_FOREVER,
}


def gateway_reply(transaction_id: str | None, payment_id: str | None, amount: int, *, approved: bool) -> dict:
    """The synchronous answer shape: type B pay, and capture/void/refund of both merchants."""
    body: dict = {"error": not approved}
    if transaction_id is not None:
        body["transactionId"] = transaction_id
    if payment_id is not None:
        body["paymentId"] = payment_id
    body["amount"] = amount
    body["gwResponse"] = {"resultCode": "0", "resultTxt": "APPROVED"} if approved else {
        "resultCode": "200",
        "resultTxt": "DECLINED",
    }
    return body


# pay and pre-auth -----------------------------------------------------------------------


def _read_sale(sandbox: Sandbox, book: Book, call: Call, kind: str) -> Sale:
    body = call.json_object()
    merchant = book.merchant
    f = Fields(body)
    terminal_id = f.text("terminalId")
    amount = f.cents("amount")
    receipt = f.boolean("receipt")
    order_number = f.text("orderNumber", required=False)
    email = f.email("email")
    phone = f.phone("phone")
    taxes = f.ids("taxes", merchant.tax_ids(), what="tax", required=False)
    custom_values = _custom_values(f)
    if receipt:
        if merchant.is_async and body.get("email") is None and body.get("phone") is None:
            f.fail("email or phone is required when receipt is true")
        if not merchant.is_async:
            for name in ("email", "phone"):
                if body.get(name) is None:
                    f.fail(f"{name} is required when receipt is true")
    f.check()
    assert terminal_id is not None and amount is not None and receipt is not None
    return Sale(
        kind=kind,
        terminal=sandbox.terminal(merchant, terminal_id),
        amount=amount,
        receipt=receipt,
        user_agent=sandbox.recorded_agent(call),
        order_number=order_number,
        email=email,
        phone=phone,
        taxes=tuple(taxes),
        custom_values=tuple(custom_values),
    )


def _custom_values(f: Fields) -> list[dict]:
    entries = f.array("customValues", required=False) or []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            f.fail(f"customValues.{index} must be an object {{key, label, value}} with a string key")
            return []
        if entry["key"] not in CUSTOM_VALUE_KEYS:
            f.fail(f"customValues.{index}.key {entry['key']!r} is not configured for this merchant")
            return []
    return entries


def _pay(kind: str):
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        sale = _read_sale(sandbox, book, call, kind)
        if sale.amount == faults.UNAVAILABLE:
            raise StatusFailure(503, "gateway unavailable; nothing was charged")
        if sale.amount == faults.DECLINE_WITHOUT_ID:
            return Reply(201, gateway_reply(None, None, sale.amount, approved=False))
        dropped = sale.amount == faults.DROP_ANSWER
        cap = int(sandbox.knobs["approve_at_most"])
        if cap and sale.amount > cap:  # a partial approval: the card is charged only ``cap`` cents
            sale = replace(sale, amount=cap)
        reply = (_pay_async if book.merchant.is_async else _pay_sync)(sandbox, book, sale)
        return DROPPED if dropped else reply

    return handler


def _pay_sync(sandbox: Sandbox, book: Book, sale: Sale) -> Reply:
    if sale.amount == faults.GATEWAY_FAILURE:
        raise ServiceFailure(400, "400", GATEWAY_FAILURE_TEXT)
    if sale.amount == faults.DECLINE_501:
        raise StatusFailure(501, "declined by the gateway before a transaction id was issued")
    declined = sale.amount < faults.DECLINE_BELOW
    payment = sandbox.record_payment(book, sale, declined=declined, at=sandbox.clock(), mono=sandbox.now)
    return Reply(201, gateway_reply(payment.transaction_id, payment.id, sale.amount, approved=not declined))


def _pay_async(sandbox: Sandbox, book: Book, sale: Sale) -> Reply:
    outcome = DECLINE if sale.amount < faults.DECLINE_BELOW else _S_OUTCOMES.get(sale.amount, APPROVE)
    polls_429 = sandbox.knobs["poll_429_count"] if sale.amount == faults.POLL_429 else 0
    message = sandbox.start_message(book, sale, outcome, polls_429=polls_429)
    poll_url = ROUTES["terminal.poll_message"].format(messageId=message.id)
    return Reply(201, {"msgIdentifier": message.id, "pollUrl": poll_url, "status": "received"})


def _poll(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    if not book.merchant.is_async:
        raise not_found("processed messages exist for type S merchants only")
    sandbox.count_poll(book.merchant)
    message = book.messages.get(call.params["messageId"])
    if message is None:
        raise not_found(f"message {call.params['messageId']} not found")
    if message.polls_429_left > 0:
        message.polls_429_left -= 1
        raise rate_limited(1)
    status = message.status(sandbox.now)
    body = {"msgIdentifier": message.id, "status": status}
    if status == "complete":
        body["paymentId"] = message.payment_id
    elif status == "failed":
        body["error"] = GATEWAY_FAILURE_TEXT
    return Reply(200, body)


# capture, void, refund ---------------------------------------------------------------------


def _read_follow_up(
    sandbox: Sandbox, book: Book, call: Call, *, with_amount: bool
) -> tuple[Payment, Terminal, int]:
    """terminalId, pnRefNum (and amount): the payment named and the terminal, after its checks."""
    f = Fields(call.json_object())
    terminal_id = f.text("terminalId")
    pn_ref = f.text("pnRefNum")
    amount = f.cents("amount", maximum=TERMINAL_AMOUNT_MAX) if with_amount else 0
    f.check()
    assert terminal_id is not None and pn_ref is not None and amount is not None
    terminal = sandbox.terminal(book.merchant, terminal_id)
    payment = book.by_transaction.get(pn_ref)
    if payment is None:
        raise refused(f"no transaction with the id {pn_ref}")
    return payment, terminal, amount


def _capture(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    payment, terminal, amount = _read_follow_up(sandbox, book, call, with_amount=True)
    if payment.status != "auth":
        raise rejected(f"payment is not an open pre-auth (status {payment.status})")
    if amount > payment.amount:
        raise rejected(f"capture amount {amount} exceeds the pre-authorized amount {payment.amount}")
    payment.amount = amount
    payment.surcharge = surcharge_for(book.merchant, payment.card, amount)
    payment.status, payment.captured = "captured", True
    _record(sandbox, book, payment, "capture", payment.transaction_id, amount, payment.surcharge, terminal, call)
    return Reply(201, gateway_reply(payment.transaction_id, payment.id, amount, approved=True))


def _void(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    payment, terminal, _ = _read_follow_up(sandbox, book, call, with_amount=False)
    if payment.status == "voided":
        raise rejected("payment already voided")
    if payment.settled:
        raise rejected("payment already settled")
    if payment.status == "declined":
        raise rejected("payment was declined; there is nothing to void")
    record_id = sandbox.new_transaction_id()
    payment.status = "voided"
    _record(sandbox, book, payment, "void", record_id, payment.amount, 0, terminal, call)
    return Reply(201, gateway_reply(record_id, payment.id, payment.amount, approved=True))


def _refund(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    payment, terminal, amount = _read_follow_up(sandbox, book, call, with_amount=True)
    reasons = {
        "declined": "payment was declined; there is nothing to refund",
        "voided": "payment was voided; there is nothing to refund",
        "auth": "payment is an uncaptured pre-auth; capture or void it instead",
        "refunded": "payment already fully refunded",
    }
    if payment.status in reasons:
        raise rejected(reasons[payment.status])
    if not payment.settled:
        raise rejected("payment is not settled yet; void it instead")
    remaining = payment.amount - payment.refunded
    if amount > remaining:
        raise rejected(f"refund amount {amount} exceeds the remaining refundable balance {remaining}")
    record_id = sandbox.new_transaction_id()
    payment.refunded += amount
    payment.status = "refunded" if payment.refunded == payment.amount else "partially_refunded"
    _record(sandbox, book, payment, "refund", record_id, amount, 0, terminal, call)
    return Reply(201, gateway_reply(record_id, payment.id, amount, approved=True))


def _record(
    sandbox: Sandbox,
    book: Book,
    payment: Payment,
    kind: str,
    transaction_id: str,
    amount: int,
    surcharge: int,
    terminal: Terminal,
    call: Call,
) -> None:
    """Record a capture, void or refund of ``payment`` as happening now."""
    follow_up = FollowUp(
        kind=kind,
        id=sandbox.new_id(),
        transaction_id=transaction_id,
        amount=amount,
        surcharge=surcharge,
        user_agent=sandbox.recorded_agent(call),
        terminal=terminal,
        at=sandbox.clock(),
        mono=sandbox.now,
    )
    book.add_follow_up(payment, follow_up)


# close batch ---------------------------------------------------------------------------------


def _close_batch(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    f = Fields(call.json_object())
    terminal_id = f.text("terminalId")
    f.check()
    assert terminal_id is not None
    return _settle(sandbox, book, sandbox.terminal(book.merchant, terminal_id))


def _close_batch_by_serial(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    if not book.merchant.is_async:
        raise not_found("close batch by serial number is for type S terminals only")
    f = Fields(call.json_object())
    serial = f.text("terminalId")
    f.check()
    assert serial is not None
    terminal = book.merchant.terminal_by_serial(serial)
    if terminal is None:
        raise StatusFailure(401, "bad credentials: no terminal with this serial number")
    if not terminal.is_active:
        raise refused("terminal is inactive")
    return _settle(sandbox, book, terminal)


def _settle(sandbox: Sandbox, book: Book, terminal: Terminal) -> Reply:
    """Settle the terminal's captured, unsettled payments; or decline when the knob says so."""
    declined = sandbox.knobs.take("close_batch_decline_next")
    if declined:
        if book.merchant.is_async:
            return Reply(201, {"data": {"success": False, "message": "Batch close failed: host unavailable"}})
        return Reply(201, {"status": "error", "gwResponse": {"resultTxt": "BATCH CLOSE FAILED: HOST UNAVAILABLE"}})
    count = settle((p for p in book.payments.values() if p.sale.terminal.id == terminal.id), at=sandbox.clock())
    if book.merchant.is_async:
        return Reply(201, {"data": {"success": True, "message": f"Batch closed: {count} transactions settled"}})
    return Reply(201, {"status": "success", "gwResponse": {"resultTxt": f"BATCH CLOSED: {count} TRANSACTIONS"}})


# list -------------------------------------------------------------------------------------------


def _list_terminals(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    terminals = book.merchant.terminals
    if book.merchant.is_async:
        rows = [
            {"id": t.id, "name": t.name, "serialNumber": t.serial_number, "isActive": t.is_active} for t in terminals
        ]
        return Reply(200, {"data": rows, "total": len(rows)})
    page, limit = page_query(call.query)
    timezone = call.query.get("timezone")
    if timezone is not None:
        try:
            zoneinfo.ZoneInfo(timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise invalid(["timezone must be an IANA time zone name"]) from None
    rows = [{"id": t.id, "name": t.name} for t in terminals]
    return Reply(200, {"meta": page_meta(len(rows), page, limit), "data": page_slice(rows, page, limit)})


HANDLERS = {
    "terminal.pay": _pay("sale"),
    "terminal.auth": _pay("auth"),
    "terminal.poll_message": _poll,
    "terminal.capture": _capture,
    "terminal.void": _void,
    "terminal.refund": _refund,
    "terminal.close_batch": _close_batch,
    "terminal.close_batch_by_serial": _close_batch_by_serial,
    "terminal.list": _list_terminals,
}
