"""What the sandbox's gateway records: sales and pre-auths (``Sale``), the payments they
make, each payment's captures, voids and refunds (``FollowUp``), and type S terminal
messages (``Message``).

Recorded times are epoch seconds on the service's clock (``Sandbox.clock``: the real
time plus the ``clock_offset_s`` knob when the record was made); each gateway
transaction also keeps the monotonic instant it happened, for ``list_lag_s``. A
message's state is a function of the monotonic clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pos_app.sandbox.merchants import Card, Merchant, Terminal

APPROVE, DECLINE, FAIL, TIMEOUT_THEN_COMPLETE, TIMEOUT_FOREVER = (
    "approve", "decline", "fail", "timeout_then_complete", "timeout_forever"
)
PROCESSING_STARTS = 0.2
"""Share of a message's duration spent in ``received`` before ``processing``."""


@dataclass(frozen=True)
class Sale:
    """A validated terminal pay (``kind`` sale) or pre-auth (``kind`` auth) request, or a
    charge through the service's charge routes (``terminal`` ``ONLINE``; ``kind`` ach for
    an ACH charge)."""

    kind: str
    terminal: Terminal
    amount: int
    receipt: bool
    user_agent: str  # as recorded (``Sandbox.recorded_agent``)
    order_number: str | None = None
    email: str | None = None
    phone: str | None = None
    taxes: tuple[str, ...] = ()
    custom_values: tuple[dict, ...] = ()
    external_id: str | None = None
    """``order.externalId`` of a charge through the service's routes (stored, searchable)."""
    customer_id: str | None = None
    """The customer vault charged (card on file, ACH from a vault)."""
    ach: dict[str, str | None] | None = None
    """The bank account of an ACH payment (accountType, last4, names): no card then."""


@dataclass(frozen=True)
class FollowUp:
    """A capture, void or refund of a payment: a gateway transaction with its own list entry.

    ``id`` is the 24-hex id of its list entry; ``transaction_id`` is the payment's own for
    a capture and a new one for a void or refund. ``amount`` is the base in cents and
    ``surcharge`` what the operation charges on top (a capture's surcharge; 0 for a void
    or refund, which move the base only). ``at`` is on the service's clock, ``mono`` the
    monotonic instant.
    """

    kind: str  # capture | void | refund
    id: str
    transaction_id: str
    amount: int
    surcharge: int
    user_agent: str  # as recorded (``Sandbox.recorded_agent``)
    terminal: Terminal
    at: float
    mono: float


@dataclass
class Payment:
    """A card payment. ``amount`` is the base in cents (the captured amount once captured).

    ``created_at`` is on the service's clock, ``created_mono`` the monotonic instant of the
    sale; ``follow_ups`` are its captures, voids and refunds in the order they happened.
    """

    id: str
    record_id: str
    transaction_id: str
    merchant: Merchant
    sale: Sale
    card: Card
    amount: int
    surcharge: int
    status: str  # auth | captured | declined | voided | refunded | partially_refunded
    paid: bool
    captured: bool
    error: str | None
    created_at: float
    created_mono: float
    updated_at: float
    settled: bool = False
    refunded: int = 0
    follow_ups: list[FollowUp] = field(default_factory=list)

    @property
    def net_amount(self) -> int:
        return self.amount + self.surcharge

    @property
    def voidable(self) -> bool:
        return not self.settled and self.status in ("auth", "captured")

    def touch(self, at: float) -> None:
        self.updated_at = at


Transaction = tuple[Payment, FollowUp | None]
"""One gateway transaction: (payment, None) for the sale or pre-auth itself, (payment,
follow-up) for a capture, void or refund of it."""


@dataclass
class Message:
    """A type S terminal message; its state is a function of the monotonic clock."""

    id: str
    sale: Sale
    outcome: str
    created_mono: float
    created_wall: float  # on the service's clock
    duration: float
    hold: float
    polls_429_left: int
    payment_id: str | None = None

    def status(self, now: float) -> str:
        elapsed = now - self.created_mono
        if elapsed < self.duration * PROCESSING_STARTS:
            return "received"
        if elapsed < self.duration:
            return "processing"
        if self.outcome == FAIL:
            return "failed"
        if self.outcome == TIMEOUT_FOREVER:
            return "timeout"
        if self.outcome == TIMEOUT_THEN_COMPLETE and elapsed < self.duration + self.hold:
            return "timeout"
        return "complete"

    def charge_due(self, now: float) -> bool:
        """The gateway has charged (or declined) by now and the payment is not recorded yet."""
        return self.payment_id is None and self.outcome != FAIL and now - self.created_mono >= self.duration

    def completed_at(self, now: float) -> float | None:
        """Wall time (service clock) at which the message reached complete or failed; None before that."""
        if self.outcome == TIMEOUT_FOREVER:
            return None
        end = self.duration + (self.hold if self.outcome == TIMEOUT_THEN_COMPLETE else 0.0)
        return self.created_wall + end if now - self.created_mono >= end else None


@dataclass(frozen=True)
class QueuedJob:
    """Work the service does later, off the request (a bulk charge's payments): ``run`` once
    the monotonic clock reaches ``due``."""

    due: float
    run: Callable[[], None]
