"""The card payment routes (reference 4.3 and 3.1): charge (a card, or a customer's card on
file), capture, void, refund and the queued bulk charge, with the service's states and texts.
ACH shares the payment and follow-up machinery (``pos_app.sandbox.ach``).

- A charge from a vault uses its default method unless ``overrideDefaultPaymentMethod``
  names another; ``capture`` False leaves the payment ``auth``. No card and no customer is
  901, a card without vault id or token 902, a token without vault id or masked number 905,
  an unknown customer 906.
- The sandbox's test amounts (``pos_app.sandbox.faults``): below 100 is declined inside a
  2xx (``error`` set, ``paid`` false, a payment recorded declined); 9905 answers 501 before
  any transaction; 9906 charges, then drops the answer; 9908 answers 503 before charging;
  9909 charges, then answers 500. The knobs ``drop_next``, ``error_5xx_next`` and
  ``error_5xx_after_next`` hit these routes as every money-moving one.
- Capture: only ``auth``, not above the pre-authorized amount; a capture below 100 cents is
  a processor decline inside a 201 (``data.error``). Void: only unsettled ("payment already
  settled; refund it instead"). Refund: only settled ("payment is not settled yet; void it
  instead"), partial refunds up to the remaining balance, never of a fully refunded one.
- A bulk charge checks every entry, answers that the job was queued, and makes each payment
  ``bulk_delay_s`` seconds later (a ``QueuedJob`` run by ``Sandbox.materialize``); each is
  recorded with the bulk request's user-agent and its entry's ``order.externalId``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pos_app.sandbox.faults import DECLINE_501, DECLINE_BELOW, DROP_ANSWER, SERVER_ERROR_AFTER, UNAVAILABLE
from pos_app.sandbox.merchants import ONLINE, Card, brand_for_bin, card_for_bin, surcharge_for
from pos_app.sandbox.payments import payment_json
from pos_app.sandbox.protocol import (
    CHARGE_REQUEST_TEXTS,
    DROPPED,
    Call,
    Reply,
    ServiceFailure,
    StatusFailure,
    invalid,
    rejected,
)
from pos_app.sandbox.records import FollowUp, Payment, QueuedJob, Sale
from pos_app.sandbox.validation import Fields
from pos_app.sandbox.vaults import Method

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

VOID_REASONS = ("fraud", "user_cancel", "icc_rejected", "icc_card_removed", "icc_no_confirmation", "pos_timeout",
                "rejected", "insufficient_funds", "incorrect_information", "pop_timeout")
CHARGED_CARD_NUMBER = r"^[0-9]{6}[*.]+[0-9]{4}$"


def charge_error(code: int) -> ServiceFailure:
    """A 901-906 charge request error: the code is the HTTP status too."""
    return ServiceFailure(code, code, CHARGE_REQUEST_TEXTS[code])


@dataclass(frozen=True)
class Charged:
    """What a charge takes from its request: who pays, with what, and how it is recorded."""

    amount: int
    card: Card
    capture: bool
    bypass_surcharge: bool
    sale: Sale
    added: int = 0
    """Cents added on top of the amount (an ACH charge's taxes)."""


# ---------------------------------------------------------------- payments


def test_amount_before(amount: int) -> None:
    """The test amounts that answer before anything is charged."""
    if amount == UNAVAILABLE:
        raise StatusFailure(503, "service unavailable (sandbox test amount 9908)")
    if amount == DECLINE_501:
        raise StatusFailure(501, "declined by the gateway before a transaction id was issued")


def make_payment(sandbox: Sandbox, book: Book, charged: Charged) -> Payment:
    """Record the payment of a charge (declined below 100 cents), as happening now."""
    declined = charged.amount < DECLINE_BELOW
    kind = charged.sale.kind
    if kind == "ach":  # no surcharge on ACH: the taxes added take its place in the net amount
        surcharge = charged.added
    else:
        surcharge = 0 if charged.bypass_surcharge else surcharge_for(book.merchant, charged.card, charged.amount)
    payment = Payment(
        id=sandbox.new_id(), record_id=sandbox.new_id(), transaction_id=sandbox.new_transaction_id(),
        merchant=book.merchant, sale=charged.sale, card=charged.card, amount=charged.amount, surcharge=surcharge,
        status="declined" if declined else ("captured" if charged.capture else "auth"),
        paid=not declined, captured=charged.capture and not declined, error="DECLINED" if declined else None,
        created_at=sandbox.clock(), created_mono=sandbox.now, updated_at=sandbox.clock(),
    )
    book.add(payment)
    return payment





def charge_reply(payment: Payment) -> Reply:
    """201 with the payment; the test amounts that misbehave after the charge was made."""
    if payment.amount == DROP_ANSWER:
        return DROPPED
    if payment.amount == SERVER_ERROR_AFTER:
        raise StatusFailure(500, "internal error after the charge (sandbox test amount 9909)")
    return Reply(201, {"data": payment_json(payment)})


def method_card(method: Method) -> Card:
    return Card(method.brand, method.network, method.type, method.number[:6], method.last4,
                max(len(method.number), 14))


def vault_method(book: Book, customer_id: str, override: str | None, *, ach: bool) -> tuple[Method, str]:
    """The method a charge from a vault uses: ``override``, else the default (906 for an
    unknown customer, 901 when there is none); and the vault id."""
    vault = book.vaults.by_id.get(customer_id)
    if vault is None or vault.deleted_at is not None:
        raise charge_error(906)
    method_id = override or vault.default_id
    method = next((m for m in vault.methods if m.id == method_id), None)
    if method is None:
        raise charge_error(901) if override is None else rejected(f"Payment method with id: {override} not found")
    if (method.type == "ach") != ach:
        kind = "an ACH account: use the ACH charge" if method.type == "ach" else "a card: use the card charge"
        raise rejected(f"payment method {method.id} is {kind}")
    return method, vault.id


def _card_of(book: Book, f: Fields, card: Any) -> Card:
    if not isinstance(card, dict):
        f.fail("card must be an object")
        f.check()
    vault_id, token, number = card.get("vaultId"), card.get("paymentToken"), card.get("number")
    if not vault_id and not token:
        raise charge_error(902)
    if vault_id:
        stored = next((m for v in book.vaults.by_id.values() for m in v.methods if m.id == vault_id), None)
        if stored is None:
            raise rejected(f"no stored card with vaultId {vault_id}")
        return method_card(stored)
    if not number:
        raise charge_error(905)
    if not isinstance(number, str) or not re.fullmatch(CHARGED_CARD_NUMBER, number):
        f.fail(f"card.number must match {CHARGED_CARD_NUMBER} regular expression")
        f.check()
    known = card_for_bin(number[:6])
    return known or Card(brand_for_bin(number[:6]), brand_for_bin(number[:6]).lower(), "credit", number[:6],
                         number[-4:])


def _order(f: Fields, body: dict[str, Any]) -> dict[str, Any]:
    order = body.get("order")
    if order is None:
        return {}
    if not isinstance(order, dict):
        f.fail("order must be an object")
        return {}
    return order


def read_charge(sandbox: Sandbox, book: Book, call: Call) -> Charged:
    body = call.json_object()
    f = Fields(body)
    amount = f.cents("amount")
    capture = f.boolean("capture", required=False)
    receipt = f.boolean("sendReceipt", required=False)
    bypass = f.boolean("bypassSurcharge", required=False)
    currency = body.get("currency")
    if currency is not None and currency not in ("USD", "CAD"):
        f.fail("currency must be one of USD, CAD")
    order = _order(f, body)
    f.check()
    assert amount is not None
    customer_id, card = body.get("customerId"), body.get("card")
    if customer_id is None and card is None:
        raise charge_error(901)
    test_amount_before(amount)
    if customer_id is not None:
        method, customer_id = vault_method(book, str(customer_id), body.get("overrideDefaultPaymentMethod"),
                                           ach=False)
        charged_card = method_card(method)
    else:
        charged_card = _card_of(book, f, card)
    sale = Sale(kind="sale" if capture is not False else "auth", terminal=ONLINE, amount=amount,
                receipt=bool(receipt), user_agent=sandbox.recorded_agent(call), order_number=order.get("orderId"),
                external_id=order.get("externalId"), customer_id=customer_id)
    return Charged(amount, charged_card, capture is not False, bool(bypass), sale)


def _charge(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return charge_reply(make_payment(sandbox, book, read_charge(sandbox, book, call)))


# ---------------------------------------------------------------- follow-ups


def find_payment(book: Book, f: Fields, *, ach: bool) -> Payment:
    payment_id = f.text("paymentId")
    f.check()
    assert payment_id is not None
    payment = book.payments.get(payment_id)
    if payment is None or (payment.sale.ach is not None) != ach:
        raise rejected(f"no transaction with the id {payment_id}")
    return payment


def follow_up(sandbox: Sandbox, book: Book, payment: Payment, call: Call, kind: str, amount: int) -> FollowUp:
    """Record a capture, void or refund of ``payment`` as happening now."""
    step = FollowUp(kind=kind, id=sandbox.new_id(),
                    transaction_id=payment.transaction_id if kind == "capture" else sandbox.new_transaction_id(),
                    amount=amount, surcharge=payment.surcharge if kind == "capture" else 0,
                    user_agent=sandbox.recorded_agent(call), terminal=ONLINE, at=sandbox.clock(), mono=sandbox.now)
    book.add_follow_up(payment, step)
    return step


def follow_up_reply(payment: Payment, step: FollowUp) -> Reply:
    """The void or refund transaction, as ``{data: …}`` (with the payment's card)."""
    data: dict[str, Any] = {"id": step.id, "paymentId": payment.id, "transactionId": step.transaction_id,
                            "type": step.kind, "amount": step.amount, "status": payment.status,
                            "refundedAmount": payment.refunded}
    if payment.sale.ach is not None:
        data["ach"] = payment.sale.ach
    else:
        data["card"] = {"cardType": payment.card.brand, "last4": payment.card.last4, "type": payment.card.type}
    return Reply(201, {"data": data})


def _capture(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    f = Fields(call.json_object())
    amount = f.cents("amount")
    payment = find_payment(book, f, ach=False)
    assert amount is not None
    if payment.status != "auth":
        raise rejected(f"only payments in status auth can be captured (status {payment.status})")
    if amount > payment.amount:
        raise rejected(f"capture amount {amount} exceeds the pre-authorized amount {payment.amount}")
    if amount < DECLINE_BELOW:  # a processor decline inside a success status
        return Reply(201, {"data": {"id": payment.id, "paid": False, "status": payment.status,
                                    "error": "CAPTURE DECLINED"}})
    payment.amount = amount
    payment.surcharge = surcharge_for(book.merchant, payment.card, amount)
    payment.status, payment.captured = "captured", True
    follow_up(sandbox, book, payment, call, "capture", amount)
    return Reply(201, {"data": payment_json(payment)})


def void_payment(sandbox: Sandbox, book: Book, call: Call, *, ach: bool) -> Reply:
    f = Fields(call.json_object())
    reason = f.text("reason")
    if reason is not None and reason not in VOID_REASONS:
        f.fail(f"reason must be one of {', '.join(VOID_REASONS)}")
    f.phone("phoneNumber")
    payment = find_payment(book, f, ach=ach)
    if payment.status == "voided":
        raise rejected("payment already voided")
    if payment.status == "declined":
        raise rejected("payment was declined; there is nothing to void")
    if payment.settled:
        raise rejected("payment already settled; refund it instead")
    payment.status, payment.paid = "voided", False
    step = follow_up(sandbox, book, payment, call, "void", payment.amount)
    return follow_up_reply(payment, step)


ACH_REFUND_WAIT_S = 360.0
"""ACH payments become refundable 6 minutes after the charge (by the service's clock)."""


def refund_payment(sandbox: Sandbox, book: Book, call: Call, *, ach: bool) -> Reply:
    f = Fields(call.json_object())
    amount = f.cents("amount")
    f.text("reason")
    component = call.json_object().get("transactionComponent")
    if component is not None and component not in ("base", "donation", "tip"):
        f.fail("transactionComponent must be one of base, donation, tip")
    f.phone("phoneNumber")
    payment = find_payment(book, f, ach=ach)
    assert amount is not None
    reasons = {"declined": "payment was declined; there is nothing to refund",
               "voided": "payment was voided; there is nothing to refund",
               "auth": "payment is an uncaptured pre-auth; capture or void it instead",
               "refunded": "payment already fully refunded"}
    if payment.status in reasons:
        raise rejected(reasons[payment.status])
    if ach and sandbox.clock() - payment.created_at < ACH_REFUND_WAIT_S:
        raise rejected("ACH payments become refundable 6 minutes after the charge")
    if not payment.settled:
        raise rejected("payment is not settled yet; void it instead")
    remaining = payment.amount - payment.refunded
    if amount > remaining:
        raise rejected(f"refund amount {amount} exceeds the remaining refundable balance {remaining}")
    payment.refunded += amount
    payment.status = "refunded" if payment.refunded == payment.amount else "partially_refunded"
    step = follow_up(sandbox, book, payment, call, "refund", amount)
    return follow_up_reply(payment, step)


# ---------------------------------------------------------------- bulk charge


def _bulk_charge(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    body = call.json_object()
    f = Fields(body)
    entries = f.array("payments", min_size=1)
    receipt = f.boolean("sendReceipt", required=False)
    f.check()
    assert entries is not None
    messages, read = [], []
    for index, entry in enumerate(entries):
        where = f"payments.{index}"
        if not isinstance(entry, dict):
            messages.append(f"{where} must be an object")
            continue
        amount = entry.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            messages.append(f"{where}.amount must be a positive integer (cents)")
        customer = entry.get("customerVaultId") or entry.get("customerId")  # customerId: an alias
        if not isinstance(customer, str) or not customer:
            messages.append(f"{where}.customerVaultId should not be empty")
        elif customer not in book.vaults.by_id or book.vaults.by_id[customer].deleted_at is not None:
            messages.append(f"{where}: customer not found")
        order = entry.get("order") or {}
        if not isinstance(order, dict):
            messages.append(f"{where}.order must be an object")
            order = {}
        read.append({"amount": amount, "customer": customer, "bypass": entry.get("bypassSurcharge") is True,
                     "order": order})
    if messages:
        raise invalid(messages)
    agent = sandbox.recorded_agent(call)
    book.queued.append(QueuedJob(sandbox.now + sandbox.knobs["bulk_delay_s"],
                                 lambda: make_bulk_payments(sandbox, book, read, agent, bool(receipt))))
    return Reply(201, {"success": True, "message": f"{len(read)} payments queued"})


def make_bulk_payments(sandbox: Sandbox, book: Book, entries: list[dict[str, Any]], user_agent: str,
                       receipt: bool) -> None:
    """Make the payments of a queued bulk charge (a customer deleted or emptied meanwhile
    gets no payment: the job goes on with the next)."""
    for entry in entries:
        try:
            method, customer = vault_method(book, entry["customer"], None, ach=False)
        except ServiceFailure:
            continue
        sale = Sale(kind="sale", terminal=ONLINE, amount=entry["amount"], receipt=receipt, user_agent=user_agent,
                    order_number=entry["order"].get("orderId"), external_id=entry["order"].get("externalId"),
                    customer_id=customer)
        make_payment(sandbox, book, Charged(entry["amount"], method_card(method), True, entry["bypass"], sale))


HANDLERS = {
    "card.charge": _charge,
    "card.capture": _capture,
    "card.void": lambda sandbox, book, call: void_payment(sandbox, book, call, ach=False),
    "card.refund": lambda sandbox, book, call: refund_payment(sandbox, book, call, ach=False),
    "card.bulk_charge": _bulk_charge,
}
