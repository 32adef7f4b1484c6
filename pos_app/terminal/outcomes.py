"""What an operation ends in, and the progress it reports on the way.

Every operation ends in exactly one ``Outcome`` (from the journal's vocabulary) with the
ids needed later; ``Progress`` events let a UI show a type S sale as it is polled.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pos_app.journal import Attempt, Operation, Outcome

RESULT_FIELDS = (
    "payment_id", "transaction_id", "msg_identifier", "amount", "card_last4", "card_brand", "gateway_text",
)


@dataclass(frozen=True)
class OperationResult:
    """The end of one operation: ``outcome`` and everything a receipt or a refund needs."""

    outcome: Outcome
    operation: Operation
    terminal_id: str
    attempt_id: str | None = None
    amount: int | None = None
    payment_id: str | None = None
    transaction_id: str | None = None
    msg_identifier: str | None = None
    card_last4: str | None = None
    card_brand: str | None = None
    gateway_text: str | None = None
    message: str = ""
    resolved_by: str | None = None

    def details(self) -> dict[str, Any]:
        """The ids and amounts worth journaling with the outcome (no secrets)."""
        return {k: v for k, v in asdict(self).items() if k in RESULT_FIELDS and v is not None}

    def to_json(self) -> dict[str, Any]:
        data = {k: (str(v) if isinstance(v, (Outcome, Operation)) else v) for k, v in asdict(self).items()}
        return {k: v for k, v in data.items() if v not in (None, "")}

    @classmethod
    def from_attempt(cls, attempt: Attempt, message: str = "") -> "OperationResult":
        result = attempt.result or {}
        return cls(
            outcome=attempt.outcome or Outcome.UNKNOWN,
            operation=attempt.operation,
            terminal_id=attempt.terminal_id,
            attempt_id=attempt.id,
            amount=result.get("amount", attempt.amount),
            payment_id=result.get("payment_id"),
            transaction_id=result.get("transaction_id"),
            msg_identifier=result.get("msg_identifier") or attempt.msg_identifier,
            card_last4=result.get("card_last4"),
            card_brand=result.get("card_brand"),
            gateway_text=result.get("gateway_text"),
            message=message or result.get("message", ""),
            resolved_by=attempt.resolved_by,
        )


@dataclass(frozen=True)
class Progress:
    """A step of an operation in flight, for a UI: ``state`` is a message status or a phase."""

    attempt_id: str
    terminal_id: str
    state: str  # "sending", "received", "processing", "timeout", "complete", "failed", "waiting", ...
    elapsed: float
    next_poll_in: float | None = None
