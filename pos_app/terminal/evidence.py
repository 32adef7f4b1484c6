"""What an answer proves: the one place that turns the service's words into an outcome.

The rules (money safety): an outcome is ``approved`` only on positive evidence (an
approving synchronous answer with a transaction id, a payment that is ``paid`` or an open
pre-auth, a transaction-list entry of the attempt without an error); ``declined`` only
when a decline is stated; ``failed`` only when the answer proves nothing moved (the
request was refused as such, or never left); everything else proves nothing and leaves
the attempt ``unknown`` until it is verified. No I/O here: the terminal service asks, this
module judges.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from pos_app.api.errors import (
    GatewayDeclined,
    InvalidInput,
    NotFound,
    PaymentsError,
    RateLimited,
    ServiceError,
    TransportError,
    Unauthorized,
)
from pos_app.api.models import Payment, TerminalResult, TransactionEntry
from pos_app.i18n import _
from pos_app.journal import Attempt, Operation, Outcome
from pos_app.journal.codec import utc_now
from pos_app.journal.models import ORDER_OPERATIONS
from pos_app.terminal.outcomes import Refusal

NO_ANSWER = "no_answer"
"""Event: the request left and no answer came back (it may still be processed)."""
ERROR_ANSWER = "error_answer"
"""Event: the service answered the request with an error (it is done with it)."""
ANSWERED_KINDS = frozenset({"answer", ERROR_ANSWER})
"""Events that mean the service answered the request itself (a type S message's final
status counts too: see ``too_early_to_decide``)."""
PROVEN_REFUSAL_CODES = frozenset({"900", "101", "110"})
"""Service codes of a 400 that refuse the request itself: validation, unusable field."""


@dataclass(frozen=True)
class Evidence:
    """A judgement: ``outcome`` None when the answer proves neither way."""

    outcome: Outcome | None
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    possible_match: bool = False
    """The transaction list holds a same-terminal, same-amount entry without our attempt id."""
    over_approved: bool = False
    """Approved for more than was asked (``details["approved_amount"]``): a manager's problem."""


def error_outcome(error: PaymentsError) -> tuple[Outcome, Refusal | None]:
    """The outcome an error answer (or the lack of one) proves for a money-moving request."""
    if isinstance(error, GatewayDeclined):
        return Outcome.DECLINED, None
    if isinstance(error, InvalidInput):
        return Outcome.FAILED, Refusal.INVALID_INPUT
    if isinstance(error, TransportError):
        return (Outcome.UNKNOWN, None) if error.request_sent else (Outcome.FAILED, Refusal.SERVICE_UNREACHABLE)
    if isinstance(error, (RateLimited, Unauthorized, NotFound)):
        return Outcome.FAILED, Refusal.SERVICE_REFUSED
    if isinstance(error, ServiceError) and error.status_code == 400 and error.code in PROVEN_REFUSAL_CODES:
        return Outcome.FAILED, Refusal.SERVICE_REFUSED
    # a gateway failure, a 5xx, an unexpected status, an answer that does not parse: the
    # request reached the service and nobody can say what it did
    return Outcome.UNKNOWN, None


def error_details(error: PaymentsError) -> dict[str, Any]:
    details: dict[str, Any] = {"message": str(error)}
    if isinstance(error, GatewayDeclined):
        details["gateway_text"] = error.text or None
        if error.transaction_id:
            details["transaction_id"] = error.transaction_id
        if isinstance(error.result, TerminalResult) and error.result.payment_id:
            details["payment_id"] = error.result.payment_id
    return _compact(details)


def answer_evidence(answer: TerminalResult, operation: Operation, asked: int | None) -> Evidence:
    """A synchronous 2xx answer: approved only when it proves it, for the amount asked
    (``for_amount``); else nothing proven."""
    details = _compact({
        "transaction_id": answer.transaction_id, "payment_id": answer.payment_id,
        "amount": answer.amount if answer.amount is not None else (None if operation in ORDER_OPERATIONS else asked),
        "gateway_text": answer.gateway_text or None,
    })
    if answer.proves_approval:
        return for_amount(Evidence(Outcome.APPROVED, details), operation, asked)
    return Evidence(None, details, _("the answer did not prove an approval (gateway said {text!r})").format(
        text=answer.gateway_text or _("nothing")))


def for_amount(evidence: Evidence, operation: Operation, asked: int | None) -> Evidence:
    """An approval of a sale or pre-auth judged against the amount asked.

    The approved amount (``details["amount"]``, base cents, as the service stated it) equal
    to ``asked``: approved. Less: ``PARTIALLY_APPROVED`` with ``approved_amount`` (the rest is
    still due). More: approved, with ``approved_amount`` and ``over_approved`` (a manager
    gives the difference back). Not stated, or not a positive amount: nothing proven (the
    payment is read, or the attempt stays unknown). Other operations and outcomes pass."""
    if evidence.outcome is not Outcome.APPROVED or operation not in ORDER_OPERATIONS or asked is None:
        return evidence
    approved = evidence.details.get("amount")
    if not isinstance(approved, int) or isinstance(approved, bool) or approved <= 0:
        details = {k: v for k, v in evidence.details.items() if k != "amount"}
        return Evidence(None, details, _("the service approved it without saying for how much (or for "
                                         "{approved!r}): not proven for the amount asked").format(approved=approved))
    if approved == asked:
        return evidence
    details = {**evidence.details, "amount": asked, "approved_amount": approved}
    if approved < asked:
        return replace(evidence, outcome=Outcome.PARTIALLY_APPROVED, details=details, note=(
            _("partially approved: {approved} of {asked} cents charged; {due} cents still due").format(
                approved=approved, asked=asked, due=asked - approved)))
    return replace(evidence, details=details, over_approved=True, note=(
        _("approved for {approved} cents, more than the {asked} cents asked: give the customer {back} cents "
          "back").format(approved=approved, asked=asked, back=approved - asked)))


def payment_evidence(payment: Payment, operation: Operation, asked: int | None) -> Evidence:
    """A sale's or pre-auth's payment: approved when paid (or an open pre-auth) for the
    amount asked (``for_amount``), declined when it states a decline, otherwise nothing
    proven."""
    details = payment_details(payment)
    if payment.paid is True or (operation is Operation.PREAUTH and payment.status == "auth"):
        return for_amount(Evidence(Outcome.APPROVED, details), operation, asked)
    error_text = payment.error.strip() if isinstance(payment.error, str) else ""
    if payment.status == "declined" or error_text:
        details["gateway_text"] = error_text or "declined"
        return Evidence(Outcome.DECLINED, details)
    return Evidence(None, details, _("payment {payment} is neither paid nor declined (paid {paid!r}, status "
                                     "{status!r})").format(payment=payment.id, paid=payment.paid,
                                                           status=payment.status))


def payment_details(payment: Payment) -> dict[str, Any]:
    card = payment.card
    return _compact({
        "payment_id": payment.id, "transaction_id": payment.transaction_id, "amount": payment.amount,
        "card_last4": card.last4 if card else None, "card_brand": (card.brand or card.network) if card else None,
    })


def payment_state(payment: Payment) -> dict[str, Any]:
    """What a follow-up compares before and after: journaled as ``payment_before``."""
    return {"payment_id": payment.id, "status": payment.status, "amount": payment.amount,
            "refunded_amount": payment.refunded_amount, "settled": payment.settled}


class Change(Enum):
    MOVED = "moved"
    """The payment changed the way this follow-up changes it."""
    NONE = "none"
    """The payment is exactly as it was before the follow-up left."""
    UNCLEAR = "unclear"
    """It changed, but not in a way that proves this follow-up (someone else's?)."""


def follow_up_change(operation: Operation, amount: int | None, before: dict[str, Any], after: Payment) -> Change:
    """Compare a payment read before a capture, void or refund left with one read now (the
    follow-ups of the service's payment routes as the terminal's: ``Operation.acts_as``)."""
    operation = operation.acts_as
    was, now = before.get("status"), after.status
    if operation is Operation.REFUND:
        had, has = before.get("refunded_amount"), after.refunded_amount
        if isinstance(had, int) and isinstance(has, int):
            moved = has - had
            if moved == 0 and was == now:
                return Change.NONE
            return Change.MOVED if amount is not None and moved == amount else Change.UNCLEAR
        if was == now:
            return Change.NONE if was == "captured" else Change.UNCLEAR
        return Change.MOVED if was == "captured" and now in ("refunded", "partially_refunded") else Change.UNCLEAR
    if was == now and before.get("amount") == after.amount:
        return Change.NONE
    if operation is Operation.CAPTURE and was == "auth" and now in ("captured", "refunded", "partially_refunded"):
        # captured for the amount asked: a capture for another amount is someone else's (another
        # station, the dashboard) and proves nothing about this one
        return Change.MOVED if amount is not None and after.amount == amount else Change.UNCLEAR
    if operation is Operation.VOID and was != "voided" and now == "voided":
        return Change.MOVED
    return Change.UNCLEAR


def entries_evidence(entries: list[TransactionEntry], operation: Operation, asked: int | None) -> Evidence:
    """The service's transaction-list entries naming one attempt: any entry without an
    error means the money moved (for a sale or pre-auth, judged by ``for_amount`` on the
    entry's base amount); only declined entries mean declined."""
    if not entries:
        return Evidence(None)
    went_through = [entry for entry in entries if not entry.declined]
    entry = (went_through or entries)[0]
    stated = entry.base_amount if entry.base_amount is not None or operation in ORDER_OPERATIONS else asked
    details = _compact({
        "payment_id": entry.payment_id or entry.id, "transaction_id": entry.transaction_id,
        "amount": stated,
        "card_last4": entry.card.last4 if entry.card else None,
        "card_brand": (entry.card.brand or entry.card.network) if entry.card else None,
    })
    if went_through:
        judged = for_amount(Evidence(Outcome.APPROVED, details, _("found in the service's transactions by its "
                                                                  "attempt id")), operation, asked)
        return judged if judged.outcome is not None else replace(judged, note=(
            _("found in the service's transactions by its attempt id, but {reason}").format(reason=judged.note)))
    details["gateway_text"] = entry.error if isinstance(entry.error, str) else "declined"
    return Evidence(Outcome.DECLINED, details, _("found declined in the service's transactions by its attempt id"))


def _compact(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}

def age(attempt: Attempt) -> float:
    """Seconds since the attempt was begun (journal clock)."""
    return (utc_now() - attempt.created_at).total_seconds()


def too_early_to_decide(attempt: Attempt, wait_limit: float) -> str:
    """Why "not found" does not yet prove "not paid": the request left without an answer
    (or its type S message never ended) less than ``wait_limit`` seconds ago, so the
    service may still be processing it. Empty when it proves it."""
    elapsed = age(attempt)
    message_ended = any(e.kind == "poll_status" and e.data.get("status") in ("complete", "failed")
                        for e in attempt.events)
    answered = message_ended or any(e.kind in ANSWERED_KINDS for e in attempt.events)
    if not attempt.sent or answered or elapsed >= wait_limit:
        return ""
    return _("too early to decide \"not paid\": the request left {elapsed} s ago without a final answer and the "
             "service may still be processing it; check again in {left} s, or decide now with --force "
             "(recorded)").format(elapsed=f"{elapsed:.0f}", left=f"{wait_limit - elapsed:.0f}")
