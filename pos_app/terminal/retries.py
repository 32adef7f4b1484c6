"""A subscription's schedule entry charged again (``GET …/subscription/retry/{scheduleId}``):
what the service can say of such a retry, read without sending it again.

The retry's answer is the entry it charged. Nothing else carries the attempt id: the sandbox
and the reference list the retry's charge neither in the transaction list nor under a
payment the app could read by the attempt id. So a lost answer is settled only by the entry
itself, read from its subscription and compared with the reading journaled with the attempt
(``entry_before`` in its request: status and attempt count before the retry left):

- the entry is ``paid`` now and was charged exactly once since: approved (for the amount asked);
- it failed again, charged exactly once since: declined;
- it shows no new charge and the service answered (a 503 before charging), or the request
  left ``follow_up_settle`` seconds ago: failed, nothing moved;
- anything else (two charges since, the count not stated, the entry gone): unknown, for a
  manager; the entry's order stays held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.subscription_models import (
    EntryStatus,
    RetryOutcome,
    RetryResult,
    ScheduleEntry,
    Subscription,
    SubscriptionStatus,
)
from pos_app.i18n import _, ngettext
from pos_app.journal import Attempt, Operation, Outcome
from pos_app.terminal.evidence import Evidence, age, for_amount

SUBSCRIPTION_LANE = "subscription:{}"
"""The journal's "terminal" of a retry: one retry in flight per subscription."""
SCHEDULE_ORDER = "schedule:{}"
"""The order a retry pays: its schedule entry, never charged twice."""
SEARCH_PAGE = 100
"""Subscriptions read per request while looking for the one that holds an entry."""


class EntryNotFound(LookupError):
    """No subscription of the merchant has the schedule entry."""


@dataclass(frozen=True)
class EntryReading:
    """A schedule entry as read before its retry leaves, with the subscription that holds it."""

    subscription_id: str
    entry: ScheduleEntry

    def before(self) -> dict[str, Any]:
        """What a lost answer is compared with later (journaled in the attempt's request)."""
        return {"status": None if self.entry.status is None else self.entry.status.value,
                "attempts": self.entry.attempts}


async def read_entry(client: PaymentsClient, schedule_id: str, subscription_id: str | None = None) -> EntryReading:
    """The entry and its subscription: that subscription when named, else the merchant's
    subscriptions in every state, read one by one until one lists the entry. Raises
    ``EntryNotFound``, or ``PaymentsError`` when the service cannot be asked."""
    if subscription_id is not None:
        found = _entry_of(await client.subscriptions.get(subscription_id), schedule_id)
        if found is None:
            raise EntryNotFound(_("subscription {subscription} has no schedule entry {entry}").format(
                subscription=subscription_id, entry=schedule_id))
        return EntryReading(subscription_id, found)
    page_number = 1
    while True:
        page = await client.subscriptions.list(statuses=tuple(SubscriptionStatus), page=page_number,
                                               limit=SEARCH_PAGE)
        for listed in page.data:
            found = _entry_of(await client.subscriptions.get(listed.id), schedule_id)
            if found is not None:
                return EntryReading(listed.id, found)
        if not page.data or page_number >= (page.meta.total_pages or 1):
            raise EntryNotFound(_("no subscription has the schedule entry {entry}").format(entry=schedule_id))
        page_number += 1


def _entry_of(subscription: Subscription, schedule_id: str) -> ScheduleEntry | None:
    return next((entry for entry in subscription.schedule if entry.id == schedule_id), None)


def answer_evidence(result: RetryResult, attempt: Attempt) -> Evidence:
    """What the retry's own answer proves (``None`` outcome: the entry must be read). An
    answer naming another entry than the one asked proves nothing of this one."""
    entry = result.entry
    details = _details(entry)
    asked = attempt.request.get("scheduleId")
    if entry is not None and entry.id != asked:
        return Evidence(None, {}, _("the answer names schedule entry {entry}, not {asked}").format(entry=entry.id,
                                                                                          asked=asked))
    if result.outcome is RetryOutcome.DECLINED:
        return Evidence(Outcome.DECLINED, {**details, "gateway_text": result.reason or "declined"})
    if result.outcome is RetryOutcome.APPROVED:
        return for_amount(Evidence(Outcome.APPROVED, details), Operation.SUBSCRIPTION_RETRY, attempt.amount)
    return Evidence(None, details, result.reason or _("the answer does not say whether the entry was charged"))


async def entry_evidence(client: PaymentsClient, attempt: Attempt, *, answered: bool, settle: float) -> Evidence:
    """The entry read again and compared with its reading from before the retry left
    (see the module docstring). Raises ``PaymentsError`` when the service cannot be asked."""
    request = attempt.request
    schedule_id, subscription_id = str(request["scheduleId"]), str(request["subscriptionId"])
    before = request.get("entry_before") or {}
    entry = _entry_of(await client.subscriptions.get(subscription_id), schedule_id)
    if entry is None:
        return Evidence(None, {}, _("subscription {subscription} no longer lists entry {entry}: a manager must "
                                    "check it").format(subscription=subscription_id, entry=schedule_id))
    details = _details(entry)
    was, now = before.get("attempts"), entry.attempts
    charged = None if not isinstance(was, int) or now is None else now - was
    # TRANSLATORS: {state} in the sentences below is this clause: "entry 7 is paid"
    state = _("entry {entry} is {status}").format(entry=schedule_id, status=entry.status) if entry.status else _(
        "entry {entry} is of no stated status").format(entry=schedule_id)
    if charged == 1 and entry.status is EntryStatus.PAID:
        return for_amount(Evidence(Outcome.APPROVED, details, _("{state}: the retry charged it").format(state=state)),
                          Operation.SUBSCRIPTION_RETRY, attempt.amount)
    if charged == 1 and entry.status is EntryStatus.FAILED:
        return Evidence(Outcome.DECLINED, {**details, "gateway_text": entry.error or "declined"},
                        _("{state}: the retry was declined").format(state=state))
    if charged == 0 and entry.status is not EntryStatus.PAID and entry.status == before.get("status"):
        if answered or age(attempt) >= settle:
            return Evidence(Outcome.FAILED, details, _("{state} as before, charged no more times: nothing "
                                                       "moved").format(state=state))
        return Evidence(None, details, _("{state} as before: the service may still be processing the "
                                         "retry").format(state=state))
    if charged is None:
        return Evidence(None, details, _("{state}, but the service does not say how many times it was charged: "
                                         "a manager must check it").format(state=state))
    return Evidence(None, details, ngettext(
        "{state}, charged {count} time since this retry: a manager must check which charge is this one",
        "{state}, charged {count} times since this retry: a manager must check which charge is this one",
        charged).format(state=state, count=charged))


def _details(entry: ScheduleEntry | None) -> dict[str, Any]:
    if entry is None:
        return {}
    return {k: v for k, v in {"payment_id": entry.payment_id, "transaction_id": entry.transaction_id,
                              "amount": entry.amount}.items() if v is not None}
