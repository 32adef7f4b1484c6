"""What an operation ends in, why it was refused, and the progress it reports on the way.

Every operation ends in exactly one ``Outcome`` (from the journal's vocabulary) with the
ids needed later. An operation that was refused before anything left, or a manager
decision that was not taken, carries a ``Refusal``: a machine-readable reason a UI
branches on (the ``message`` is the sentence for a person). ``Progress`` events let a UI
show a type S sale as it is polled.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from pos_app.journal import (
    AboveBalance,
    Attempt,
    GivenBackAlready,
    InvalidResolution,
    JournalCorrupt,
    JournalError,
    JournalLocked,
    JournalTooNew,
    Operation,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    Outcome,
    RefHasPendingFollowUp,
    TerminalBusy,
)

RESULT_FIELDS = (
    "payment_id", "transaction_id", "msg_identifier", "amount", "approved_amount", "card_last4", "card_brand",
    "gateway_text",
)


class Refusal(StrEnum):
    """Why an operation (or a manager decision) was not carried out."""

    TERMINAL_BUSY = "terminal_busy"
    """Another attempt on the terminal has no outcome yet."""
    TERMINAL_HAS_UNKNOWN = "terminal_has_unknown"
    """A sale or pre-auth on the terminal has an unknown outcome: resolve it first."""
    ORDER_UNRESOLVED = "order_unresolved"
    """An earlier attempt for the order is in flight or unknown."""
    ORDER_PAID = "order_paid"
    """The order was already charged (approved, or a late approval after a decision)."""
    ABOVE_BALANCE = "above_balance"
    """The charge is more than what is still due on the order (its card charges and cash
    already cover part of it)."""
    GIVEN_BACK_ALREADY = "given_back_already"
    """A refund above what the charge's order still keeps: part of it went back already
    (in cash, or by another refund or void, perhaps one without an answer yet)."""
    REF_PENDING_FOLLOW_UP = "ref_has_pending_follow_up"
    """A capture, void or refund of the same transaction is not resolved yet."""
    EARLIER_ATTEMPT_APPROVED = "earlier_attempt_approved"
    """The unknown that blocked this operation turned out approved just now: the money
    already moved, so this one (most likely a retry) was not sent. Run it again only if
    it is really another charge."""
    JOURNAL_LOCKED = "journal_locked"
    JOURNAL_CORRUPT = "journal_corrupt"
    JOURNAL_UNAVAILABLE = "journal_unavailable"
    """The journal could not record the attempt (disk, permissions): nothing was sent."""
    INVALID_INPUT = "invalid_input"
    INTERRUPTED = "interrupted"
    """The app stopped (crash, power cut) before the request left: nothing was sent."""
    BAD_CREDENTIALS = "bad_credentials"
    """The service refused the key-hash: a configuration problem, nothing was charged."""
    SERVICE_REFUSED = "service_refused"
    """The service refused the request itself (validation, terminal inactive or not the
    merchant's, rate limit): proven that nothing moved."""
    ALREADY_FINAL = "already_final"
    """A manager decision on an attempt that already has a final outcome."""
    SERVICE_SHOWS_OTHERWISE = "service_shows_otherwise"
    """A manager decision the service's own record contradicts; the record was kept."""
    TOO_EARLY = "too_early"
    """A "not paid" decision while the request may still be processed (no answer yet)."""
    SERVICE_UNREACHABLE = "service_unreachable"
    """The service could not be reached, so nothing was sent; or a manager decision that
    could not be checked with the service (``force`` to insist)."""
    POSSIBLE_MATCH = "possible_match"
    """A "not paid" decision while a same-terminal, same-amount transaction exists."""
    NO_CHARGE_FOUND = "no_charge_found"
    """A "paid" decision the service does not back: no charge of this attempt, or the
    payment the manager named is not one (another attempt's, another terminal's, unpaid)."""


def refusal_for(error: JournalError) -> Refusal:
    """The refusal a journal error means for the operation that hit it."""
    if isinstance(error, TerminalBusy):
        return Refusal.TERMINAL_HAS_UNKNOWN if error.unknown else Refusal.TERMINAL_BUSY
    if isinstance(error, OrderHasUnknownAttempt):
        return Refusal.ORDER_UNRESOLVED
    if isinstance(error, OrderAlreadyPaid):
        return Refusal.ORDER_PAID
    if isinstance(error, AboveBalance):
        return Refusal.ABOVE_BALANCE
    if isinstance(error, GivenBackAlready):
        return Refusal.GIVEN_BACK_ALREADY
    if isinstance(error, RefHasPendingFollowUp):
        return Refusal.REF_PENDING_FOLLOW_UP
    if isinstance(error, InvalidResolution):
        return Refusal.ALREADY_FINAL
    if isinstance(error, JournalLocked):
        return Refusal.JOURNAL_LOCKED
    if isinstance(error, (JournalCorrupt, JournalTooNew)):
        return Refusal.JOURNAL_CORRUPT
    return Refusal.JOURNAL_UNAVAILABLE


def blocking_attempt(error: JournalError) -> str | None:
    """The attempt that stands in the way, when the refusal names one."""
    found = getattr(error, "attempt_id", None)
    return found if isinstance(found, str) else None


@dataclass(frozen=True)
class OperationResult:
    """The end of one operation: ``outcome`` and everything a receipt or a refund needs."""

    outcome: Outcome
    operation: Operation
    terminal_id: str
    attempt_id: str | None = None
    amount: int | None = None
    """What was asked, in cents."""
    approved_amount: int | None = None
    """What the service approved when it differs from ``amount`` (a partial approval, or more
    than asked); ``None`` when it approved exactly ``amount``."""
    order_key: str | None = None
    """The order a sale or pre-auth was made for: only an outcome of its own order changes a cart."""
    ref: str | None = None
    """The transaction a capture, void or refund acted on (its pnRefNum)."""
    payment_id: str | None = None
    transaction_id: str | None = None
    msg_identifier: str | None = None
    card_last4: str | None = None
    card_brand: str | None = None
    gateway_text: str | None = None
    message: str = ""
    resolved_by: str | None = None
    refusal: Refusal | None = None
    blocked_by: str | None = None
    """The attempt that caused the refusal (``TERMINAL_HAS_UNKNOWN``, ``ORDER_UNRESOLVED``...)."""
    recovered: tuple[OperationResult, ...] = field(default=())
    """Attempts that blocked this operation and were settled first, without resending."""
    saved: bool = True
    """False: the service's answer is known but the journal could not take it yet; the app
    keeps it in memory and writes it again until it is saved (see ``OutcomeRecorder``)."""

    @property
    def charged(self) -> int | None:
        """Cents the operation moved (approved, or partially approved), else ``None``."""
        if not self.outcome.moved_money or self.refusal is not None:
            return None
        return self.approved_amount if self.approved_amount is not None else self.amount

    def details(self) -> dict[str, Any]:
        """The ids and amounts worth journaling with the outcome (no secrets)."""
        return {k: v for k, v in asdict(self).items() if k in RESULT_FIELDS and v is not None}

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON: ``outcome``, ``attempt_id``, the ids; the text of anything but an
        approval under ``error`` (an approval's remark under ``note``)."""
        data: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if key in ("message", "recovered") or (key == "saved" and value):
                continue
            data[key] = str(value) if isinstance(value, (Outcome, Operation, Refusal)) else value
        if self.message:
            data["note" if self.outcome.moved_money and self.refusal is None else "error"] = self.message
        if self.recovered:
            data["recovered"] = [r.to_json() for r in self.recovered]
        return {k: v for k, v in data.items() if v not in (None, "")}

    @classmethod
    def from_attempt(cls, attempt: Attempt, message: str = "", **extra: Any) -> OperationResult:
        result = attempt.result or {}
        return cls(
            outcome=attempt.outcome or Outcome.UNKNOWN,
            operation=attempt.operation,
            terminal_id=attempt.terminal_id,
            attempt_id=attempt.id,
            amount=result.get("amount", attempt.amount),
            approved_amount=result.get("approved_amount"),
            order_key=attempt.order_key,
            ref=attempt.ref,
            payment_id=result.get("payment_id"),
            transaction_id=result.get("transaction_id"),
            msg_identifier=result.get("msg_identifier") or attempt.msg_identifier,
            card_last4=result.get("card_last4"),
            card_brand=result.get("card_brand"),
            gateway_text=result.get("gateway_text"),
            message=message or result.get("message", ""),
            resolved_by=attempt.resolved_by,
            **extra,
        )


class Phase(StrEnum):
    """Where an operation in flight is; message statuses of type S are phases too."""

    SENDING = "sending"
    WAITING = "waiting"
    RECEIVED = "received"
    PROCESSING = "processing"
    TIMEOUT = "timeout"
    COMPLETE = "complete"
    FAILED = "failed"
    CHECKING = "checking"
    """Reading the payment or the transaction list to settle an earlier attempt."""
    FINISHED = "finished"
    """The outcome is known: ``Progress.outcome`` says which."""


@dataclass(frozen=True)
class Progress:
    """A step of an operation in flight, for a UI or the CLI's stderr."""

    attempt_id: str
    terminal_id: str
    phase: Phase
    elapsed: float
    next_poll_in: float | None = None
    outcome: Outcome | None = None
