"""Subscriptions (reference 4.5 and 3.2): the states as enums, the answers (lenient), the
request bodies (strict) and the answer parsers of the ``subscription.*`` routes. The
methods are in ``pos_app.api.subscriptions``.

Checked before anything is sent, as the reference states them: the customer vault id is
24 hex; a custom schedule has exactly one frequency mode (``dayFrequency`` alone, or
``monthFrequency`` 1-24 with ``dayOfMonth`` 1-31), and a plan is the other way to give
one; ``payments`` is 0 to 52 (0: until cancelled); amounts are positive cents; a start
date lies in the future. Money is cents both ways (``pos_app.api.units``, family
``subscription``); only the list's ``amount`` filter is dollars, converted in
``pos_app.api.subscriptions``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any, Self

from pydantic import Field, ValidationError, field_validator, model_validator

from pos_app.api.customer_models import require_vault_id
from pos_app.api.models import Cents, Flag, Lenient, Page, Refused, Text, error_flag, unwrap
from pos_app.api.money import require_cents
from pos_app.api.requests import Request
from pos_app.api.units import request_unit, to_wire
from pos_app.i18n import _

MAX_PAYMENTS = 52
MAX_MONTH_FREQUENCY = 24
MAX_DAY_OF_MONTH = 31


class SubscriptionStatus(StrEnum):
    """The states of reference 3.2. Pause takes running to paused, resume paused back to
    running; delete takes any state but completed and incomplete to inactive."""

    RUNNING = "running"
    COMPLETED = "completed"
    INCOMPLETE = "incomplete"
    PAUSED = "paused"
    INACTIVE = "inactive"


class EntryStatus(StrEnum):
    """A schedule entry: charged, failed, or not attempted yet."""

    PAID = "paid"
    FAILED = "failed"
    PENDING = "pending"


class RetryOutcome(StrEnum):
    """What a retry of a schedule entry proves: the charge was approved, declined, or
    nothing is known (the answer was lost or did not say: look it up, never resend)."""

    APPROVED = "approved"
    DECLINED = "declined"
    UNKNOWN = "unknown"


# ---------------------------------------------------------------- requests (strict)


def _payments(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PAYMENTS:
        raise ValueError(_("must be a whole number from 0 to {most} (0: until cancelled), got {value!r}").format(
            most=MAX_PAYMENTS, value=value))
    return value


def _whole(value: Any, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        if high is None:
            raise ValueError(_("must be a whole number from {low}, got {value!r}").format(low=low, value=value))
        raise ValueError(_("must be a whole number from {low} to {high}, got {value!r}").format(
            low=low, high=high, value=value))
    return value


def _future(value: date | None) -> date | None:
    if value is not None and value <= date.today():
        raise ValueError(_("must be a future date (after today), got {day}").format(day=value.isoformat()))
    return value


class CustomSchedule(Request):
    """An inline schedule: ``amount`` cents per payment, ``payments`` of them (0: until
    cancelled), and exactly one frequency mode: every ``day_frequency`` days, or every
    ``month_frequency`` months on ``day_of_month``."""

    amount: int
    payments: int = 0
    day_frequency: int | None = Field(default=None, alias="dayFrequency")
    month_frequency: int | None = Field(default=None, alias="monthFrequency")
    day_of_month: int | None = Field(default=None, alias="dayOfMonth")

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return require_cents(value)

    @field_validator("payments", mode="before")
    @classmethod
    def _count(cls, value: Any) -> int:
        return _payments(value)

    @field_validator("day_frequency", mode="before")
    @classmethod
    def _days(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, 1, None)

    @field_validator("month_frequency", mode="before")
    @classmethod
    def _months(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, 1, MAX_MONTH_FREQUENCY)

    @field_validator("day_of_month", mode="before")
    @classmethod
    def _day(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, 1, MAX_DAY_OF_MONTH)

    @model_validator(mode="after")
    def _one_mode(self) -> Self:
        by_days = self.day_frequency is not None
        by_months = self.month_frequency is not None or self.day_of_month is not None
        if by_days and by_months:
            raise ValueError(_("give exactly one frequency mode: every N days, or every N months on a day, not both"))
        if not by_days and not by_months:
            raise ValueError(_("give a frequency: every N days, or every N months on a day of the month"))
        if by_months and (self.month_frequency is None or self.day_of_month is None):
            raise ValueError(_("every N months needs both the month frequency and the day of the month"))
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        body["amount"] = to_wire(self.amount, request_unit("subscription.create"), field="customSchedule.amount")
        return body


class SubscriptionDraft(Request):
    """A new subscription on a customer vault: a ``plan_id`` or a ``custom_schedule``
    (exactly one), an optional future ``start_date`` (the service's default: tomorrow)."""

    customer_vault_id: str = Field(alias="customerVaultId")
    plan_id: str | None = Field(default=None, alias="planId")
    custom_schedule: CustomSchedule | None = Field(default=None, alias="customSchedule")
    start_date: date | None = Field(default=None, alias="startDate")
    first_amount: int | None = Field(default=None, alias="firstAmount")
    auto_renew: bool | None = Field(default=None, alias="autoRenew")
    notification_mail: bool | None = Field(default=None, alias="notificationMail")
    override_default_payment_method: str | None = Field(default=None, alias="overrideDefaultPaymentMethod")

    @field_validator("customer_vault_id", mode="before")
    @classmethod
    def _vault(cls, value: Any) -> str:
        return require_vault_id(value, field="customerVaultId")

    @field_validator("plan_id", "override_default_payment_method")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(_("must be a non-empty id"))
        return value

    @field_validator("first_amount", mode="before")
    @classmethod
    def _first(cls, value: Any) -> int | None:
        return None if value is None else require_cents(value, field="firstAmount")

    @field_validator("start_date")
    @classmethod
    def _start(cls, value: date | None) -> date | None:
        return _future(value)

    @model_validator(mode="after")
    def _plan_or_schedule(self) -> Self:
        if (self.plan_id is None) == (self.custom_schedule is None):
            raise ValueError(_("give exactly one of a plan id and a custom schedule (the service would take the "
                               "plan and drop the schedule)"))
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        if self.custom_schedule is not None:
            body["customSchedule"] = self.custom_schedule.wire()
        if self.first_amount is not None:
            body["firstAmount"] = to_wire(self.first_amount, request_unit("subscription.create"), field="firstAmount")
        if self.start_date is not None:
            body["startDate"] = self.start_date.isoformat()
        return body


class SubscriptionChanges(Request):
    """An update: only the fields given are sent. ``amount`` only for a custom schedule;
    a new ``custom_schedule`` replaces the schedule (its amount must match ``amount`` when
    both are given); ``start_date`` re-anchors it and goes only with ``custom_schedule``."""

    amount: int | None = None
    auto_renew: bool | None = Field(default=None, alias="autoRenew")
    notification_mail: bool | None = Field(default=None, alias="notificationMail")
    customer_vault_id: str | None = Field(default=None, alias="customerVaultId")
    custom_schedule: CustomSchedule | None = Field(default=None, alias="customSchedule")
    start_date: date | None = Field(default=None, alias="startDate")

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int | None:
        return None if value is None else require_cents(value)

    @field_validator("customer_vault_id", mode="before")
    @classmethod
    def _vault(cls, value: Any) -> str | None:
        return None if value is None else require_vault_id(value, field="customerVaultId")

    @field_validator("start_date")
    @classmethod
    def _start(cls, value: date | None) -> date | None:
        return _future(value)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.start_date is not None and self.custom_schedule is None:
            raise ValueError(_("startDate re-anchors a new custom schedule: it goes only with customSchedule"))
        if (self.amount is not None and self.custom_schedule is not None
                and self.amount != self.custom_schedule.amount):
            raise ValueError(_("amount {amount} and customSchedule.amount {schedule_amount} must match").format(
                amount=self.amount, schedule_amount=self.custom_schedule.amount))
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        if self.amount is not None:
            body["amount"] = to_wire(self.amount, request_unit("subscription.update"))
        if self.custom_schedule is not None:
            body["customSchedule"] = self.custom_schedule.wire()
        if self.start_date is not None:
            body["startDate"] = self.start_date.isoformat()
        return body


# ---------------------------------------------------------------- answers (lenient)


class ScheduleEntry(Lenient):
    """One payment of a schedule; its ``id`` is what a retry names."""

    id: str
    date: Text | None = None
    amount: Cents | None = None
    status: EntryStatus | None = None
    attempts: Cents | None = None
    """How many times the entry was charged (on its date, and by each retry)."""
    payment_id: Text | None = Field(default=None, alias="paymentId")
    transaction_id: Text | None = Field(default=None, alias="transactionId")
    error: Text | None = None
    """Why its last charge failed."""


class ScheduleAnswer(Lenient):
    """A custom schedule (or a plan) as the service reports it."""

    amount: Cents | None = None
    payments: Cents | None = None
    day_frequency: Cents | None = Field(default=None, alias="dayFrequency")
    month_frequency: Cents | None = Field(default=None, alias="monthFrequency")
    day_of_month: Cents | None = Field(default=None, alias="dayOfMonth")
    until_terminated: Flag | None = Field(default=None, alias="untilTerminated")


class Subscription(Lenient):
    """A subscription; list entries carry no ``schedule`` (empty here)."""

    id: str
    status: SubscriptionStatus | None = None
    customer_vault_id: Text | None = Field(default=None, alias="customerVaultId")
    plan_id: Text | None = Field(default=None, alias="planId")
    custom_schedule: ScheduleAnswer | None = Field(default=None, alias="customSchedule")
    amount: Cents | None = None
    schedule: list[ScheduleEntry] = Field(default_factory=list)
    next_payment: Text | None = Field(default=None, alias="nextPayment")
    start_date: Text | None = Field(default=None, alias="startDate")
    auto_renew: Flag | None = Field(default=None, alias="autoRenew")
    deleted_at: Text | None = Field(default=None, alias="deletedAt")


@dataclass(frozen=True)
class RetryResult:
    """The result of retrying one schedule entry: ``outcome`` says what it proves;
    ``entry`` is the charged entry when the answer carried one; ``reason`` why it is not
    approved (the decline's text, or what was lost); ``answered`` False when no answer came
    back at all (the service may still be processing the request)."""

    outcome: RetryOutcome
    schedule_id: str
    entry: ScheduleEntry | None = None
    subscription_id: str | None = None
    reason: str | None = None
    answered: bool = True


def parse_subscription(body: Any) -> Subscription:
    return Subscription.model_validate(unwrap(body))


def parse_subscription_page(body: Any) -> Page[Subscription]:
    """The list; an entry that is no subscription is left out and named in ``refused``."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError(_("subscription list must be {meta, data}"))
    found: list[Subscription] = []
    refused: list[Refused] = []
    for entry in body["data"]:
        try:
            found.append(Subscription.model_validate(entry))
        except ValidationError as error:
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            refused.append(Refused(id=entry_id if isinstance(entry_id, str) else None,
                                   reason=str(error.errors()[0]["msg"])))
    return Page[Subscription].model_validate({**body, "data": found, "skipped": len(refused), "refused": refused})


def parse_retry(body: Any) -> RetryResult:
    """A retry's 2xx answer: the subscription with ``schedule`` as the single charged entry.

    Approved only on evidence (the entry says ``paid`` and no level flags an error);
    declined when an error flag is set or the entry says ``failed``; anything else is
    unknown. ``schedule_id`` is filled in by the caller, who knows what it asked for.
    """
    if not isinstance(body, dict):
        raise ValueError(_("a retry answer must be an object"))
    data = body.get("data")
    inner: dict[str, Any] = data if isinstance(data, dict) else body
    flags = [error_flag(level.get("error")) for level in (body, inner)]
    texts = [level["error"] for level in (body, inner) if isinstance(level.get("error"), str) and level["error"]]
    raw_entry = inner.get("schedule")
    if isinstance(raw_entry, list):
        raise ValueError(_("a retry answers the single charged entry, not a schedule array"))
    entry = ScheduleEntry.model_validate(raw_entry) if isinstance(raw_entry, dict) else None
    subscription_id = inner.get("id") if isinstance(inner.get("id"), str) else None
    if True in flags or (entry is not None and entry.status is EntryStatus.FAILED):
        outcome, reason = RetryOutcome.DECLINED, (texts[0] if texts else "declined")
    elif entry is not None and entry.status is EntryStatus.PAID:
        outcome, reason = RetryOutcome.APPROVED, None
    else:
        outcome, reason = RetryOutcome.UNKNOWN, _("the answer does not say the entry was paid")
    return RetryResult(outcome, schedule_id="", entry=entry, subscription_id=subscription_id, reason=reason)


PARSERS: dict[str, Callable[[Any], object]] = {
    "subscription.list": parse_subscription_page,
    "subscription.create": parse_subscription,
    "subscription.get": parse_subscription,
    "subscription.update": parse_subscription,
    "subscription.delete": parse_subscription,
    "subscription.pause": parse_subscription,
    "subscription.resume": parse_subscription,
    "subscription.retry": parse_retry,
}
"""The typed answers of the subscription routes (the attachments upload is the payment
links' attachments module)."""
