"""The subscriptions of one merchant, as the sandbox keeps them (the routes are in
``pos_app.sandbox.subscriptions``): each with its schedule computed from its frequency
and start date, the merchant's plans, and the state rules of reference 3.2.

Where the reference is silent the sandbox decides, and says so here:
- A new subscription is ``running``; a resumed one is ``running`` again.
- An entry is ``future`` when its date is after now (the service's clock). Nothing is
  charged on its date: entries stay ``pending`` until a retry charges them or the admin
  action ``POST /_sandbox/subscription-fail`` fails one.
- A schedule of ``payments`` 0 (until cancelled) shows a rolling window of the next
  ``OPEN_ENDED_WINDOW`` entries.
- A schedule with a number of payments and no pending entry left is ``completed`` when
  every entry is paid, ``incomplete`` when one failed (a retry that collects it then
  completes it).
- Pausing removes the future pending entries (an attempted one stays: a retry can still
  collect a failed one); resuming regenerates the rest from tomorrow, skipping what fell
  inside the pause.
- The method a subscription charges (its override, else the vault's default when it was
  created) is "in use" in the vault (``Vaults.in_use``) while the subscription is
  running, paused or incomplete: the vault refuses to delete that card. Cancelling and
  completing release it.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any

from pos_app.sandbox.protocol import iso_time
from pos_app.sandbox.vaults import Vaults

OPEN_ENDED_WINDOW = 12
"""Entries shown ahead for a schedule without an end (``payments`` 0)."""


class Status(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    INCOMPLETE = "incomplete"
    PAUSED = "paused"
    INACTIVE = "inactive"


HOLDS_ITS_METHOD = frozenset({Status.RUNNING, Status.PAUSED, Status.INCOMPLETE})
"""States in which the subscription may still charge its method (the card is in use)."""


class EntryStatus(StrEnum):
    PAID = "paid"
    FAILED = "failed"
    PENDING = "pending"


@dataclass(frozen=True)
class Frequency:
    """Exactly one mode: every ``days`` days, or every ``months`` months on ``day_of_month``."""

    days: int | None = None
    months: int | None = None
    day_of_month: int | None = None

    def dates(self, start: date, count: int) -> list[date]:
        """The first ``count`` payment dates on or after ``start``."""
        if self.days is not None:
            return [start + timedelta(days=self.days * k) for k in range(count)]
        assert self.months is not None and self.day_of_month is not None
        first = _on_day(start.year, start.month, self.day_of_month)
        offset = 0 if first >= start else 1
        found = []
        for k in range(count):
            year, month = divmod(start.month - 1 + offset + k * self.months, 12)
            found.append(_on_day(start.year + year, month + 1, self.day_of_month))
        return found

    def as_json(self) -> dict[str, int]:
        if self.days is not None:
            return {"dayFrequency": self.days}
        assert self.months is not None and self.day_of_month is not None
        return {"monthFrequency": self.months, "dayOfMonth": self.day_of_month}


def _on_day(year: int, month: int, day: int) -> date:
    """``day`` of the month, or the month's last day when it is shorter (31 → 30 April)."""
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


@dataclass(frozen=True)
class Plan:
    id: str
    name: str
    amount: int
    payments: int
    frequency: Frequency

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "amount": self.amount, "payments": self.payments,
                "untilTerminated": self.payments == 0, **self.frequency.as_json()}


PLANS = (
    Plan("5e1a00000000000000000001", "Monthly box", 2500, 12, Frequency(months=1, day_of_month=1)),
    Plan("5e1a00000000000000000002", "Weekly delivery", 1000, 0, Frequency(days=7)),
)
"""The plans every sandbox merchant has (the reference shows no plan routes)."""


@dataclass
class Entry:
    id: str
    when: date
    amount: int
    status: EntryStatus = EntryStatus.PENDING
    attempts: int = 0
    payment_id: str | None = None
    transaction_id: str | None = None
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "date": _iso_day(self.when), "amount": self.amount,
                                "status": self.status.value, "attempts": self.attempts}
        if self.payment_id is not None:
            body.update(paymentId=self.payment_id, transactionId=self.transaction_id)
        if self.error is not None:
            body["error"] = self.error
        return body


def _iso_day(day: date) -> str:
    return iso_time(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


@dataclass
class Subscription:
    id: str
    vault_id: str
    amount: int
    payments: int
    frequency: Frequency
    start: date
    created_at: float
    updated_at: float
    plan: Plan | None = None
    status: Status = Status.RUNNING
    schedule: list[Entry] = field(default_factory=list)
    first_amount: int | None = None
    auto_renew: bool = False
    notification_mail: bool = True
    override_method: str | None = None

    def future(self, today: date) -> list[Entry]:
        return [entry for entry in self.schedule if entry.when > today]

    def next_payment(self, today: date) -> date | None:
        if self.status is not Status.RUNNING:
            return None
        return next((e.when for e in self.schedule if e.status is EntryStatus.PENDING and e.when > today), None)

    def settle_status(self) -> None:
        """A finite schedule with nothing pending left is completed (all paid) or incomplete."""
        if self.status not in (Status.RUNNING, Status.INCOMPLETE) or self.payments == 0:
            return
        if any(e.status is EntryStatus.PENDING for e in self.schedule):
            return
        paid = all(e.status is EntryStatus.PAID for e in self.schedule)
        self.status = Status.COMPLETED if paid else Status.INCOMPLETE

    def custom_schedule(self) -> dict[str, Any] | None:
        if self.plan is not None:
            return None
        return {"amount": self.amount, "payments": self.payments, "untilTerminated": self.payments == 0,
                **self.frequency.as_json()}

    def as_json(self, client_id: str, today: date, *, listed: bool = False) -> dict[str, Any]:
        next_payment = self.next_payment(today)
        body: dict[str, Any] = {
            "id": self.id, "clientId": client_id, "status": self.status.value, "customerVaultId": self.vault_id,
            "customerId": self.vault_id, "planId": self.plan.id if self.plan else None,
            "plan": self.plan.as_json() if self.plan else None, "customSchedule": self.custom_schedule(),
            "amount": self.amount, "firstAmount": self.first_amount, "startDate": _iso_day(self.start),
            "autoRenew": self.auto_renew, "notificationMail": self.notification_mail,
            "overrideDefaultPaymentMethod": self.override_method,
            "nextPayment": None if next_payment is None else _iso_day(next_payment), "deletedAt": None,
            "createdAt": iso_time(self.created_at), "updatedAt": iso_time(self.updated_at),
        }
        if not listed:  # the list omits the schedule and the payment counters
            body["schedule"] = [entry.as_json() for entry in self.schedule]
            body.update({f"payments{s.value.title()}": sum(e.status is s for e in self.schedule)
                         for s in EntryStatus})
        return body


@dataclass
class Charge:
    """One charge a retry made (approved or declined), with the user-agent it came with."""

    schedule_id: str
    subscription_id: str
    amount: int
    approved: bool
    user_agent: str
    at: float


@dataclass
class SubscriptionBook:
    """The subscriptions of one merchant, their plans, and the charges retries made."""

    by_id: dict[str, Subscription] = field(default_factory=dict)
    plans: dict[str, Plan] = field(default_factory=lambda: {plan.id: plan for plan in PLANS})
    charges: list[Charge] = field(default_factory=list)

    def entry(self, schedule_id: str) -> tuple[Subscription, Entry] | None:
        for subscription in self.by_id.values():
            for entry in subscription.schedule:
                if entry.id == schedule_id:
                    return subscription, entry
        return None

    def hold(self, vaults: Vaults, subscription: Subscription, method_id: str | None) -> None:
        """Mark ``method_id`` in use by ``subscription`` (releasing what it held before)."""
        self.release(vaults, subscription)
        if method_id is not None:
            vaults.in_use.setdefault(method_id, []).append(subscription.id)

    def release(self, vaults: Vaults, subscription: Subscription) -> None:
        """The subscription no longer holds any method in use. Looked up in ``in_use`` by
        the subscription's id: a card re-vaulted meanwhile moved there under its new id."""
        for method_id, users in list(vaults.in_use.items()):
            if subscription.id in users:
                users.remove(subscription.id)
                if not users:
                    del vaults.in_use[method_id]
