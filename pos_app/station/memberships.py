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
from pos_app.i18n import N_, _, ngettext
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
STATUS_WORDS = {SubscriptionStatus.RUNNING: N_("active"), SubscriptionStatus.PAUSED: N_("paused"),
                SubscriptionStatus.INCOMPLETE: N_("ended with a failed payment"),
                SubscriptionStatus.COMPLETED: N_("completed"), SubscriptionStatus.INACTIVE: N_("cancelled")}
"""A membership's status in words (marked ``N_``: ``_(STATUS_WORDS[status])`` where shown)."""


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
        """The change in a word, for the audit trail and the log (English, not shown)."""
        return {MembershipChange.PAUSE: "paused", MembershipChange.RESUME: "resumed",
                MembershipChange.CANCEL: "cancelled"}[self]

    @property
    def not_allowed(self) -> str:
        """The refusal when the membership's status does not allow the change (``{name}``, ``{now}``)."""
        return {MembershipChange.PAUSE: _("only a membership that is active can be paused; {name} is {now}: "
                                          "nothing was sent"),
                MembershipChange.RESUME: _("only a membership that is paused can be resumed; {name} is {now}: "
                                           "nothing was sent"),
                MembershipChange.CANCEL: _("only a membership that is active or paused can be cancelled; {name} is "
                                           "{now}: nothing was sent")}[self]

    @property
    def refused(self) -> str:
        """The service's refusal of the change (``{reason}``)."""
        return {MembershipChange.PAUSE: _("the service refused to pause it: {reason}"),
                MembershipChange.RESUME: _("the service refused to resume it: {reason}"),
                MembershipChange.CANCEL: _("the service refused to cancel it: {reason}")}[self]


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
        amount = money(self.amount) if self.amount is not None else _("amount unknown")
        return f"{self.name}  ·  {f'{amount} {self.schedule}'.strip()}"

    def standing(self, money: MoneyFormat) -> str:
        """Its next payment and status: "next payment Dec 1, 2026  ·  active" (a status
        that is not active in capitals)."""
        status = _(STATUS_WORDS[self.status]) if self.status in STATUS_WORDS else _("status unknown")
        said = status if self.status is SubscriptionStatus.RUNNING else status.upper()
        return "  ·  ".join(part for part in (self.next_payment_words(money), said) if part)

    def next_payment_words(self, money: MoneyFormat) -> str:
        """"next payment Dec 1, 2026" (the day the store's way), "" without one."""
        if self.next_payment is None:
            return ""
        return _("next payment {date}").format(date=format_date(self.next_payment, format="medium",
                                                                locale=money.locale))


def schedule_words(*, every_months: int | None, day: int | None, every_days: int | None, payments: int | None) -> str:
    """"every month on day 1, 12 payments", "every 7 days, until cancelled"."""
    if every_days is not None:
        often = ngettext("every day", "every {count} days", every_days).format(count=every_days)
    elif every_months is not None and day is not None:
        often = ngettext("every month on day {day}", "every {count} months on day {day}", every_months).format(
            count=every_months, day=day)
    elif every_months is not None:
        often = ngettext("every month", "every {count} months", every_months).format(count=every_months)
    else:
        often = ""
    count = ("" if payments is None else _("until cancelled") if payments == 0 else
             ngettext("{count} payment", "{count} payments", payments).format(count=payments))
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
    return Membership(subscription.id, plan.name if plan else _("Custom"), amount, words, subscription.status,
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
        raise ValueError(_("{customer}'s details could not be read: {reason}").format(
            customer=customer.name, reason=_refused(error))) from error
    if vault.default_method is None:
        raise NoPaymentMethod(_("{customer} has no card on file to charge: attach them and press Ctrl+U to "
                                "send a link to add one, then enroll them; nothing was sent").format(
            customer=customer.name))
    if not vault.email:
        raise ValueError(_("{customer} has no email, which the service needs for a membership; nothing was sent")
                         .format(customer=customer.name))
    try:
        draft = SubscriptionDraft(customerVaultId=customer.id, customSchedule=CustomSchedule(
            amount=plan.amount, payments=plan.payments, dayFrequency=plan.every_days,
            monthFrequency=plan.every_months, dayOfMonth=plan.day))
    except (InvalidInput, ValueError) as error:
        raise ValueError(_("the plan {plan} cannot be sent: {error}; nothing was sent").format(
            plan=plan.name, error=error)) from error
    try:
        made = await client.subscriptions.create(draft)
    except ApiError as error:
        raise ValueError(_("the service refused the membership: {reason}").format(reason=_refused(error))) from error
    log.info("customer %s enrolled in %s: subscription %s", customer.id, plan.name, made.id)
    return _membership(made, plans)


async def change_membership(counter: Counter, customer: OrderCustomer, membership: Membership,
                            change: MembershipChange, manager: StaffMember, reason: str) -> Membership:
    """Pause, resume or cancel ``membership`` (approved by ``manager``, who gave ``reason``):
    refused here when its status does not allow it (nothing sent), else sent, and once the
    service did it, written to the audit trail (who, which customer and membership, why)."""
    if membership.status not in change.allowed_from:
        if membership.status is None:
            now = _("unknown")
        else:
            now = _(STATUS_WORDS[membership.status]) if membership.status in STATUS_WORDS else _("in an unknown state")
        raise ValueError(change.not_allowed.format(name=membership.name, now=now))
    subscriptions = counter.station.client.subscriptions
    send = {MembershipChange.PAUSE: subscriptions.pause, MembershipChange.RESUME: subscriptions.resume,
            MembershipChange.CANCEL: subscriptions.cancel}[change]
    try:
        moved = await send(membership.id)
    except TransitionRefused as error:
        raise ValueError(change.refused.format(reason=_refused(error))) from error
    except ApiError as error:
        raise ValueError(_("the service refused it: {reason}").format(reason=_refused(error))) from error
    cashier = counter.cashier.name if counter.cashier else "-"
    detail = (f"{membership.name} ({membership.id}) of {customer.name} ({customer.id}) {change.done}, "
              f"on {cashier}'s screen")  # not for people: the audit trail's
    log.info("membership %s of customer %s %s by %s", membership.id, customer.id, change.done, manager.name)
    await counter.disk(counter.staff.record, manager.name, change.audit_action, detail, reason)
    plans = counter.config.memberships
    return _membership(moved, plans)
