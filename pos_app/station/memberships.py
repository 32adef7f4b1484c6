"""A customer's memberships at the counter (issue 19), Qt-free: the store's plans (from
store.toml's ``[[memberships]]``), enrolling a customer in one (a subscription with the
plan's custom schedule, charged to the vault's default payment method), the customer's
subscriptions with their next payment and status, and a manager's pause, resume or cancel
of one, recorded in the audit trail with the manager's name and reason.

The service keeps no plan name on a custom schedule: a subscription is named by the
store's plan whose amount, frequency and payments it carries, or by its schedule in words.
Bad input and the service's refusals are ``ValueError`` with a sentence a cashier can act
on (``NoPaymentMethod`` for a customer with nothing to charge); nothing is sent when the
request could not succeed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING

from babel.dates import format_date

from pos_app.api.errors import ApiError, InvalidInput
from pos_app.api.subscription_models import CustomSchedule, Subscription, SubscriptionDraft, SubscriptionStatus
from pos_app.api.subscriptions import TransitionRefused
from pos_app.cart import OrderCustomer
from pos_app.membership_plans import MembershipPlan
from pos_app.staff import AuditAction, StaffMember

if TYPE_CHECKING:
    from pos_app.api.client import PaymentsClient
    from pos_app.money import MoneyFormat
    from pos_app.station.counter import Counter

log = logging.getLogger(__name__)

LIST_PAGE = 100
"""Subscriptions read per request when a customer's are listed."""
LISTED_ORDER = (SubscriptionStatus.RUNNING, SubscriptionStatus.PAUSED, SubscriptionStatus.INCOMPLETE,
                SubscriptionStatus.COMPLETED, SubscriptionStatus.INACTIVE)
"""The statuses a customer's memberships are listed by: the live ones first."""
STATUS_WORDS = {SubscriptionStatus.RUNNING: "active", SubscriptionStatus.PAUSED: "paused",
                SubscriptionStatus.INCOMPLETE: "ended with a failed payment",
                SubscriptionStatus.COMPLETED: "completed", SubscriptionStatus.INACTIVE: "cancelled"}


class NoPaymentMethod(ValueError):
    """The customer's vault has no default card or bank account to charge: nothing was sent."""


class MembershipChange(StrEnum):
    """What a manager may do to a membership, with the states it is allowed from (reference
    3.2) and the audit trail's action."""

    PAUSE = "pause"
    RESUME = "resume"
    CANCEL = "cancel"

    @property
    def allowed_from(self) -> tuple[SubscriptionStatus, ...]:
        return {MembershipChange.PAUSE: (SubscriptionStatus.RUNNING,),
                MembershipChange.RESUME: (SubscriptionStatus.PAUSED,),
                MembershipChange.CANCEL: (SubscriptionStatus.RUNNING, SubscriptionStatus.PAUSED)}[self]

    @property
    def audit_action(self) -> AuditAction:
        return {MembershipChange.PAUSE: AuditAction.MEMBERSHIP_PAUSED,
                MembershipChange.RESUME: AuditAction.MEMBERSHIP_RESUMED,
                MembershipChange.CANCEL: AuditAction.MEMBERSHIP_CANCELLED}[self]

    @property
    def done(self) -> str:
        return {MembershipChange.PAUSE: "paused", MembershipChange.RESUME: "resumed",
                MembershipChange.CANCEL: "cancelled"}[self]


@dataclass(frozen=True)
class Membership:
    """One of a customer's subscriptions as the customer dialog lists it."""

    id: str
    name: str
    """The store's plan it matches, else "Custom"."""
    amount: int | None
    schedule: str
    """How often and how many times, in words ("every month on day 1, 12 payments")."""
    status: SubscriptionStatus | None
    next_payment: date | None

    def line(self, money: MoneyFormat) -> str:
        """One line: what it is, then where it stands."""
        return f"{self.heading(money)}  ·  {self.standing(money)}"

    def heading(self, money: MoneyFormat) -> str:
        """Its name, amount and schedule: "Coffee club  ·  $15.00 every month on day 1, 12 payments"."""
        amount = money(self.amount) if self.amount is not None else "amount unknown"
        return f"{self.name}  ·  {f'{amount} {self.schedule}'.strip()}"

    def standing(self, money: MoneyFormat) -> str:
        """Its next payment and status: "next payment Dec 1, 2026  ·  active" (a status
        that is not active in capitals)."""
        status = STATUS_WORDS.get(self.status, "status unknown") if self.status else "status unknown"
        said = status if self.status is SubscriptionStatus.RUNNING else status.upper()
        return "  ·  ".join(part for part in (self.next_payment_words(money), said) if part)

    def next_payment_words(self, money: MoneyFormat) -> str:
        """"next payment Dec 1, 2026" (the day the store's way), "" without one."""
        if self.next_payment is None:
            return ""
        return f"next payment {format_date(self.next_payment, format='medium', locale=money.locale)}"


def schedule_words(*, every_months: int | None, day: int | None, every_days: int | None, payments: int | None) -> str:
    """"every month on day 1, 12 payments", "every 7 days, until cancelled"."""
    if every_days is not None:
        often = "every day" if every_days == 1 else f"every {every_days} days"
    elif every_months is not None:
        often = "every month" if every_months == 1 else f"every {every_months} months"
        if day is not None:
            often += f" on day {day}"
    else:
        often = ""
    count = ("" if payments is None else "until cancelled" if payments == 0 else
             "1 payment" if payments == 1 else f"{payments} payments")
    return ", ".join(part for part in (often, count) if part)


def plan_words(plan: MembershipPlan, money: MoneyFormat) -> str:
    """A plan as Enroll lists it: "Coffee club  ·  $15.00 every month on day 1, 12 payments"."""
    schedule = schedule_words(every_months=plan.every_months, day=plan.day, every_days=plan.every_days,
                              payments=plan.payments)
    return f"{plan.name}  ·  {money(plan.amount)} {schedule}"


def _matches(plan: MembershipPlan, subscription: Subscription) -> bool:
    schedule = subscription.custom_schedule
    if schedule is None:
        return False
    return ((schedule.amount if schedule.amount is not None else subscription.amount) == plan.amount
            and schedule.payments == plan.payments and schedule.day_frequency == plan.every_days
            and schedule.month_frequency == plan.every_months and schedule.day_of_month == plan.day)


def _membership(subscription: Subscription, plans: tuple[MembershipPlan, ...]) -> Membership:
    plan = next((p for p in plans if _matches(p, subscription)), None)
    schedule = subscription.custom_schedule
    words = "" if schedule is None else schedule_words(
        every_months=schedule.month_frequency, day=schedule.day_of_month, every_days=schedule.day_frequency,
        payments=schedule.payments)
    amount = subscription.amount if subscription.amount is not None else schedule.amount if schedule else None
    return Membership(subscription.id, plan.name if plan else "Custom", amount, words, subscription.status,
                      _day(subscription.next_payment))


def _day(text: str | None) -> date | None:
    """The day of an ISO 8601 time the service gives (a UTC midnight: its date part)."""
    try:
        return date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None


def _refused(error: ApiError) -> str:
    return "; ".join(error.messages) or error.text or str(error)


async def memberships_of(client: PaymentsClient, customer_id: str,
                         plans: tuple[MembershipPlan, ...]) -> list[Membership]:
    """Every subscription of the customer (cancelled ones too), the live ones first."""
    found: list[Subscription] = []
    page = 1
    while True:
        answer = await client.subscriptions.list(statuses=LISTED_ORDER, customer_id=customer_id, page=page,
                                                 limit=LIST_PAGE)
        found.extend(answer.data)
        if len(answer.data) + answer.skipped < LIST_PAGE or page >= (answer.meta.total_pages or page):
            break
        page += 1
    rank = {status: index for index, status in enumerate(LISTED_ORDER)}
    memberships = [_membership(s, plans) for s in found if s.customer_vault_id in (None, customer_id)]
    log.info("read %d membership(s) of customer %s", len(memberships), customer_id)
    return sorted(memberships, key=lambda m: (rank.get(m.status, len(rank)) if m.status else len(rank),
                                              m.next_payment or date.max))


async def enroll(client: PaymentsClient, customer: OrderCustomer, plan: MembershipPlan,
                 plans: tuple[MembershipPlan, ...]) -> Membership:
    """A subscription with ``plan``'s schedule on the customer's default payment method,
    from tomorrow (the service's default start). The vault is read first: without an email
    or a default method the service would refuse, so nothing is sent."""
    try:
        vault = await client.customers.get(customer.id)
    except ApiError as error:
        raise ValueError(f"{customer.name}'s details could not be read: {_refused(error)}") from error
    if vault.default_method is None:
        raise NoPaymentMethod(f"{customer.name} has no card on file to charge: attach them and press Ctrl+U to "
                              "send a link to add one, then enroll them; nothing was sent")
    if not vault.email:
        raise ValueError(f"{customer.name} has no email, which the service needs for a membership; nothing was sent")
    try:
        draft = SubscriptionDraft(customerVaultId=customer.id, customSchedule=CustomSchedule(
            amount=plan.amount, payments=plan.payments, dayFrequency=plan.every_days,
            monthFrequency=plan.every_months, dayOfMonth=plan.day))
    except (InvalidInput, ValueError) as error:
        raise ValueError(f"the plan {plan.name} cannot be sent: {error}; nothing was sent") from error
    try:
        made = await client.subscriptions.create(draft)
    except ApiError as error:
        raise ValueError(f"the service refused the membership: {_refused(error)}") from error
    log.info("customer %s enrolled in %s: subscription %s", customer.id, plan.name, made.id)
    return _membership(made, plans)


async def change_membership(counter: Counter, customer: OrderCustomer, membership: Membership,
                            change: MembershipChange, manager: StaffMember, reason: str) -> Membership:
    """Pause, resume or cancel ``membership`` (approved by ``manager``, who gave ``reason``):
    refused here when its status does not allow it (nothing sent), else sent, and once the
    service did it, written to the audit trail (who, which customer and membership, why)."""
    if membership.status not in change.allowed_from:
        now = STATUS_WORDS.get(membership.status, "in an unknown state") if membership.status else "unknown"
        allowed = " or ".join(STATUS_WORDS[s] for s in change.allowed_from)
        raise ValueError(f"only a membership that is {allowed} can be {change.done}; {membership.name} is {now}: "
                         "nothing was sent")
    subscriptions = counter.station.client.subscriptions
    send = {MembershipChange.PAUSE: subscriptions.pause, MembershipChange.RESUME: subscriptions.resume,
            MembershipChange.CANCEL: subscriptions.cancel}[change]
    try:
        moved = await send(membership.id)
    except TransitionRefused as error:
        raise ValueError(f"the service refused to {change.value} it: {_refused(error)}") from error
    except ApiError as error:
        raise ValueError(f"the service refused it: {_refused(error)}") from error
    cashier = counter.cashier.name if counter.cashier else "-"
    detail = (f"{membership.name} ({membership.id}) of {customer.name} ({customer.id}) {change.done}, "
              f"on {cashier}'s screen")
    log.info("membership %s of customer %s %s by %s", membership.id, customer.id, change.done, manager.name)
    await counter.disk(counter.staff.record, manager.name, change.audit_action, detail, reason)
    plans = counter.config.memberships
    return _membership(moved, plans)
