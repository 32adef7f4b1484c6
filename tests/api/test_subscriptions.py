"""Subscriptions through the client against the sandbox over loopback: every operation,
the refusals of reference 3.2 as ``TransitionRefused``, the validation done before
anything is sent, the list's dollar filter, and retry: sent once, typed, never retried."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from pos_app.api import errors as e
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.api.subscription_models import (
    CustomSchedule,
    EntryStatus,
    RetryOutcome,
    SubscriptionChanges,
    SubscriptionDraft,
    SubscriptionStatus,
)
from pos_app.api.subscriptions import TransitionRefused
from pos_app.api.units import request_unit, to_wire
from pos_app.sandbox.subscriptions import DELETE_FINISHED, PAUSE_PAUSED, RESUME_NOT_PAUSED

EXP = f"12{date.today().year + 1 - 2000:02d}"
VAULT_ID = "0123456789abcdef01234567"


def tomorrow() -> date:
    """The service's default start: the next day (UTC), read when a test needs it."""
    return datetime.now(UTC).date() + timedelta(days=1)

def subscription_requests(sandbox, merchant: str = "B", route: str | None = None) -> int:
    counts = sandbox.stats()["requests"].get(merchant, {})
    return sum(n for name, n in counts.items() if name == route or (route is None and name.startswith("subscri")))


async def customer(client) -> str:
    made = await client.customers.create(CustomerDraft(firstName="Ada", lastName="Lovelace", email="ada@example.com",
                                                       cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
    return made.id


def weekly(vault_id: str, amount: int = 1250, payments: int = 3, **extra) -> SubscriptionDraft:
    return SubscriptionDraft(customerVaultId=vault_id,
                             customSchedule=CustomSchedule(amount=amount, payments=payments, dayFrequency=7), **extra)


def fail_entry(sandbox, schedule_id: str) -> None:
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/subscription-fail", json={"scheduleId": schedule_id})
    assert answer.status_code == 200, answer.text


async def test_create_both_frequency_modes_get_and_list(clients):
    client = clients["B"]
    vault_id = await customer(client)
    by_days = await client.subscriptions.create(weekly(vault_id))
    assert by_days.status is SubscriptionStatus.RUNNING and by_days.amount == 1250
    assert by_days.custom_schedule.day_frequency == 7 and by_days.customer_vault_id == vault_id
    assert [entry.status for entry in by_days.schedule] == [EntryStatus.PENDING] * 3
    assert by_days.next_payment.startswith(tomorrow().isoformat()) and by_days.odd_fields == {}

    start = date(tomorrow().year + 1, 3, 10)
    by_months = await client.subscriptions.create(SubscriptionDraft(
        customerVaultId=vault_id, startDate=start,
        customSchedule=CustomSchedule(amount=4000, payments=0, monthFrequency=2, dayOfMonth=31)))
    assert by_months.custom_schedule.until_terminated is True
    assert [entry.date[:10] for entry in by_months.schedule[:3]] == [
        f"{start.year}-03-31", f"{start.year}-05-31", f"{start.year}-07-31"]

    seen = await client.subscriptions.get(by_days.id)
    assert seen.schedule == by_days.schedule
    page = await client.subscriptions.list()
    assert {s.id for s in page.data} == {by_days.id, by_months.id} and all(s.schedule == [] for s in page.data)
    running = await client.subscriptions.list(statuses=(SubscriptionStatus.RUNNING,), customer_id=vault_id, limit=1)
    assert running.meta.count == 2 and len(running.data) == 1


async def test_the_amount_filter_is_sent_in_dollars(clients):
    assert request_unit("subscription.list") == "dollars"
    assert to_wire(1250, request_unit("subscription.list")) == Decimal("12.50")
    client = clients["B"]
    vault_id = await customer(client)
    twelve_fifty = await client.subscriptions.create(weekly(vault_id, amount=1250))
    await client.subscriptions.create(weekly(vault_id, amount=1250_00))  # what 1250 sent as-is would find
    found = await client.subscriptions.list(amount=1250)
    assert [s.id for s in found.data] == [twelve_fifty.id]


async def test_each_transition_allowed_and_refused_with_the_services_sentence(sandbox, clients):
    client = clients["B"]
    vault_id = await customer(client)
    made = await client.subscriptions.create(weekly(vault_id))

    paused = await client.subscriptions.pause(made.id)
    assert paused.status is SubscriptionStatus.PAUSED and paused.next_payment is None and paused.schedule == []
    with pytest.raises(TransitionRefused) as again:
        await client.subscriptions.pause(made.id)
    assert again.value.text == PAUSE_PAUSED and again.value.status_code == 400

    resumed = await client.subscriptions.resume(made.id)
    assert resumed.status is SubscriptionStatus.RUNNING and len(resumed.schedule) == 3
    with pytest.raises(TransitionRefused, match=RESUME_NOT_PAUSED):
        await client.subscriptions.resume(made.id)

    cancelled = await client.subscriptions.cancel(made.id)
    assert cancelled.status is SubscriptionStatus.INACTIVE
    assert (await client.subscriptions.list()).data == []  # inactive: hidden unless asked for
    shown = await client.subscriptions.list(statuses=(SubscriptionStatus.INACTIVE,))
    assert [s.id for s in shown.data] == [made.id]
    with pytest.raises(TransitionRefused, match="Only running subscriptions can be paused"):
        await client.subscriptions.pause(made.id)

    finished = await client.subscriptions.create(weekly(vault_id, payments=1))
    fail_entry(sandbox, finished.schedule[0].id)
    assert (await client.subscriptions.get(finished.id)).status is SubscriptionStatus.INCOMPLETE
    with pytest.raises(TransitionRefused) as refused:
        await client.subscriptions.cancel(finished.id)
    assert refused.value.text == DELETE_FINISHED
    with pytest.raises(e.NotFound):
        await client.subscriptions.get(VAULT_ID)


async def test_update(clients):
    client = clients["B"]
    vault_id = await customer(client)
    made = await client.subscriptions.create(weekly(vault_id))
    changed = await client.subscriptions.update(made.id, SubscriptionChanges(amount=1500, autoRenew=True))
    assert changed.amount == 1500 and changed.auto_renew is True and {e.amount for e in changed.schedule} == {1500}
    start = tomorrow() + timedelta(days=5)
    rebuilt = await client.subscriptions.update(made.id, SubscriptionChanges(
        customSchedule=CustomSchedule(amount=900, payments=2, monthFrequency=1, dayOfMonth=start.day),
        startDate=start))
    assert rebuilt.amount == 900 and [entry.date[:10] for entry in rebuilt.schedule][0] == start.isoformat()

    on_plan = await client.subscriptions.create(SubscriptionDraft(customerVaultId=vault_id,
                                                                  planId="5e1a00000000000000000001"))
    assert on_plan.plan_id == "5e1a00000000000000000001" and on_plan.amount == 2500
    with pytest.raises(TransitionRefused, match="custom plan"):
        await client.subscriptions.update(on_plan.id, SubscriptionChanges(amount=100))


@pytest.mark.parametrize("build, why", [
    (lambda: CustomSchedule(amount=100, dayFrequency=7, monthFrequency=1, dayOfMonth=1), "not both"),
    (lambda: CustomSchedule(amount=100, dayFrequency=7, dayOfMonth=1), "not both"),
    (lambda: CustomSchedule(amount=100), "give a frequency"),
    (lambda: CustomSchedule(amount=100, monthFrequency=1), "both the month frequency and the day"),
    (lambda: CustomSchedule(amount=100, payments=53, dayFrequency=7), "0 to 52"),
    (lambda: CustomSchedule(amount=100, payments=-1, dayFrequency=7), "0 to 52"),
    (lambda: CustomSchedule(amount=100, monthFrequency=25, dayOfMonth=1), "from 1 to 24"),
    (lambda: CustomSchedule(amount=100, monthFrequency=1, dayOfMonth=32), "from 1 to 31"),
    (lambda: CustomSchedule(amount=100, dayFrequency=0), "from 1"),
    (lambda: CustomSchedule(amount=Decimal("12.50"), dayFrequency=7), "whole number of cents"),
    (lambda: CustomSchedule(amount=0, dayFrequency=7), "more than 0"),
    (lambda: SubscriptionDraft(customerVaultId="abc", planId="p"), "24-character hexadecimal"),
    (lambda: SubscriptionDraft(customerVaultId=VAULT_ID), "exactly one of a plan id and a custom schedule"),
    (lambda: SubscriptionDraft(customerVaultId=VAULT_ID, planId="p",
                               customSchedule=CustomSchedule(amount=100, dayFrequency=1)), "exactly one of a plan"),
    (lambda: SubscriptionDraft(customerVaultId=VAULT_ID, planId="p", startDate=date.today()), "future date"),
    (lambda: SubscriptionChanges(startDate=tomorrow()), "only with customSchedule"),
    (lambda: SubscriptionChanges(amount=1, customSchedule=CustomSchedule(amount=2, dayFrequency=1)), "must match"),
])
def test_bodies_are_refused_before_sending(build, why):
    with pytest.raises(e.InvalidInput, match=why):
        build()


async def test_bad_calls_send_nothing(sandbox, clients):
    client = clients["B"]
    with pytest.raises(e.InvalidInput, match="nothing to update"):
        await client.subscriptions.update("sub-1", SubscriptionChanges())
    with pytest.raises(e.InvalidInput, match="whole number of cents"):
        await client.subscriptions.list(amount=Decimal("12.50"))  # type: ignore[arg-type]
    with pytest.raises(e.InvalidInput, match="statuses"):
        await client.subscriptions.list(statuses=("running",))  # type: ignore[arg-type]
    with pytest.raises(e.InvalidInput, match="customerId"):
        await client.subscriptions.list(customer_id="abc")
    for call in (client.subscriptions.get(""), client.subscriptions.pause("a/b"), client.subscriptions.resume(" "),
                 client.subscriptions.cancel(""), client.subscriptions.retry("", attempt_id="a-1")):
        with pytest.raises(e.InvalidInput, match="non-empty id"):
            await call
    with pytest.raises(ValueError, match="attempt id"):
        await client.subscriptions.retry("entry-1", attempt_id="")
    assert subscription_requests(sandbox) == 0


async def test_retry_approved_with_the_attempt_in_the_user_agent(sandbox, clients):
    client = clients["B"]
    made = await client.subscriptions.create(weekly(await customer(client)))
    entry_id = made.schedule[0].id
    fail_entry(sandbox, entry_id)
    result = await client.subscriptions.retry(entry_id, attempt_id="att-1")
    assert result.outcome is RetryOutcome.APPROVED and result.schedule_id == entry_id
    assert result.entry.status is EntryStatus.PAID and result.subscription_id == made.id and result.reason is None
    charges = sandbox.sandbox.books["B"].subscriptions.charges
    assert len(charges) == 1 and "attempt att-1" in charges[0].user_agent
    with pytest.raises(e.ApiError, match="already paid"):  # a refusal: nothing charged, raised
        await client.subscriptions.retry(entry_id, attempt_id="att-2")
    assert len(sandbox.sandbox.books["B"].subscriptions.charges) == 1


async def test_retry_declined_inside_a_200(clients):
    client = clients["B"]
    made = await client.subscriptions.create(weekly(await customer(client), amount=99))
    result = await client.subscriptions.retry(made.schedule[0].id, attempt_id="att-1")
    assert result.outcome is RetryOutcome.DECLINED and result.reason == "DECLINED"
    assert result.entry.status is EntryStatus.FAILED


async def test_retry_is_never_retried_on_a_5xx(sandbox, clients, caplog):
    caplog.set_level(logging.INFO, logger="pos_app.api.client")
    client = clients["B"]
    made = await client.subscriptions.create(weekly(await customer(client)))
    sandbox.inject("subscription.retry", 503, count=3)
    result = await client.subscriptions.retry(made.schedule[0].id, attempt_id="att-1")
    assert result.outcome is RetryOutcome.UNKNOWN and "503" in result.reason
    assert subscription_requests(sandbox, route="subscription.retry") == 1  # one request seen by the sandbox
    logged = [r.getMessage() for r in caplog.records if r.name == "pos_app.api.client"]
    assert logged == ["not retrying subscription.retry after status 503: it may move money"]

    sandbox.inject("subscription.get", 503)  # a read, by contrast, is retried
    assert (await client.subscriptions.get(made.id)).id == made.id
    assert subscription_requests(sandbox, route="subscription.get") == 2


async def test_retry_whose_answer_is_lost_is_unknown_and_sent_once(sandbox, clients):
    client = clients["B"]
    made = await client.subscriptions.create(weekly(await customer(client), amount=9906))  # charged, answer dropped
    result = await client.subscriptions.retry(made.schedule[0].id, attempt_id="att-1")
    assert result.outcome is RetryOutcome.UNKNOWN and result.entry is None
    assert subscription_requests(sandbox, route="subscription.retry") == 1
    assert (await client.subscriptions.get(made.id)).schedule[0].status is EntryStatus.PAID  # what a lookup finds


async def test_a_retry_that_never_left_raises(clients):
    async with type(clients["B"])("http://127.0.0.1:9", "k" * 8) as offline:
        with pytest.raises(e.TransportError) as failed:
            await offline.subscriptions.retry("entry-1", attempt_id="att-1")
    assert failed.value.request_sent is False


async def test_a_list_entry_that_is_no_subscription_is_refused_not_fatal(canned, canned_client):
    canned.answer("GET", "/public/subscription", {"meta": {"count": 2, "totalPages": 1, "page": 1, "limit": 10},
                                                  "data": [{"id": "s-1", "status": "sleeping", "amount": "12"},
                                                           {"status": "running"}]})
    page = await canned_client.subscriptions.list()
    assert [s.id for s in page.data] == ["s-1"] and page.skipped == 1
    assert page.data[0].status is None and page.data[0].odd_fields == {"status": "sleeping", "amount": "12"}


async def test_a_retry_answer_without_an_entry_proves_nothing(canned, canned_client):
    canned.answer("GET", "/public/subscription/retry/e-1", {"data": {"id": "s-1"}})
    result = await canned_client.subscriptions.retry("e-1", attempt_id="att-1")
    assert result.outcome is RetryOutcome.UNKNOWN and result.schedule_id == "e-1"
    canned.answer("GET", "/public/subscription/retry/e-2", {"data": {"id": "s-1", "schedule": [{"id": "e-2"}]}})
    with pytest.raises(e.ProtocolError, match="single charged entry"):
        await canned_client.subscriptions.retry("e-2", attempt_id="att-1")
