"""``ChargeService.subscription_retry`` against the sandbox with a real journal: the retry of
a schedule entry is journaled before it leaves, sent once, proven by its answer or by the
entry read again, and the entry (its order ``schedule:<id>``) is never charged twice."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import date

import httpx

from pos_app.api.client import Identity, PaymentsClient
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.api.subscription_models import CustomSchedule, EntryStatus, SubscriptionDraft
from pos_app.journal import Journal, Operation, Outcome
from pos_app.terminal.charges import ChargeService
from pos_app.terminal.outcomes import Refusal

EXP = f"12{date.today().year + 1 - 2000:02d}"


@asynccontextmanager
async def retries(sandbox, path, **options):
    client = PaymentsClient(sandbox.base_url, sandbox.keys["B"], identity=Identity("s1", "lane-1", "c7"))
    journal = Journal.open(path)
    try:
        yield ChargeService(client, journal, wait_limit=1.0, **options), journal
    finally:
        await client.aclose()
        journal.close()


async def failed_entry(sandbox, service: ChargeService, amount: int = 1250) -> tuple[str, str]:
    """A subscription of ``amount`` cents whose first entry failed on its date: (its id, the entry's)."""
    vault = await service.client.customers.create(CustomerDraft(
        firstName="Ada", lastName="Byron", email="a@example.com",
        cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
    made = await service.client.subscriptions.create(SubscriptionDraft(
        customerVaultId=vault.id, customSchedule=CustomSchedule(amount=amount, payments=3, dayFrequency=7)))
    entry_id = made.schedule[0].id
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/subscription-fail", json={"scheduleId": entry_id})
    assert answer.status_code == 200, answer.text
    return made.id, entry_id


def charges_of(sandbox, entry_id: str) -> list:
    return [c for c in sandbox.sandbox.books["B"].subscriptions.charges if c.schedule_id == entry_id]


async def test_an_approved_retry_is_journaled_before_it_leaves_and_never_sent_again(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db") as (service, journal):
        subscription_id, entry_id = await failed_entry(sandbox, service)
        result = await service.subscription_retry(entry_id)  # the subscription is found by its entry
        assert (result.outcome, result.operation, result.amount) == (Outcome.APPROVED, Operation.SUBSCRIPTION_RETRY,
                                                                     1250)
        assert (result.terminal_id, result.order_key) == (f"subscription:{subscription_id}", f"schedule:{entry_id}")
        attempt = journal.get(result.attempt_id)
        kinds = [e.kind for e in attempt.events]
        assert kinds.index("sent") < kinds.index("answer") < kinds.index("outcome")
        assert attempt.request["entry_before"] == {"status": "failed", "attempts": 1}
        [charge] = charges_of(sandbox, entry_id)
        assert charge.user_agent.endswith(f"attempt {result.attempt_id})")

        again = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert (again.outcome, again.refusal, again.attempt_id) == (Outcome.FAILED, Refusal.ORDER_PAID, None)
        assert len(charges_of(sandbox, entry_id)) == 1


async def test_a_decline_inside_a_200_is_declined_and_the_entry_can_be_retried(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db") as (service, _):
        subscription_id, entry_id = await failed_entry(sandbox, service, amount=99)
        result = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert (result.outcome, result.gateway_text) == (Outcome.DECLINED, "DECLINED")
        assert (await service.subscription_retry(entry_id, subscription_id=subscription_id)).outcome is (
            Outcome.DECLINED)  # a declined entry is still unpaid: its order is not held
        assert len(charges_of(sandbox, entry_id)) == 2


async def test_a_503_before_charging_is_failed_once_the_entry_shows_no_charge(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db") as (service, journal):
        subscription_id, entry_id = await failed_entry(sandbox, service, amount=9908)
        result = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert (result.outcome, charges_of(sandbox, entry_id)) == (Outcome.FAILED, [])
        assert [e.kind for e in journal.get(result.attempt_id).events].count("sent") == 1
        assert journal.in_flight() == []


async def test_a_lost_answer_is_unknown_holds_the_entry_and_resume_finds_it_charged_once(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db", brief_wait=0.0) as (service, journal):
        subscription_id, entry_id = await failed_entry(sandbox, service, amount=9906)  # charged, answer dropped
        lost = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert lost.outcome is Outcome.UNKNOWN and "resume" in lost.message

        held = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert (held.outcome, held.refusal) == (Outcome.FAILED, Refusal.ORDER_PAID)  # the entry reads paid
        assert [r.attempt_id for r in held.recovered] == [lost.attempt_id]  # and the unknown was looked at
        assert held.recovered[0].outcome is Outcome.APPROVED

        assert journal.get(lost.attempt_id).outcome is Outcome.APPROVED
        assert len(charges_of(sandbox, entry_id)) == 1


async def test_resume_settles_a_lost_retry_from_its_entry(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db") as (service, journal):
        subscription_id, entry_id = await failed_entry(sandbox, service, amount=9906)
        lost = await service.subscription_retry(entry_id, subscription_id=subscription_id)
        assert lost.outcome is Outcome.UNKNOWN
        [resumed] = await service.resume()
        assert (resumed.attempt_id, resumed.outcome, resumed.amount) == (lost.attempt_id, Outcome.APPROVED, 9906)
        entry = (await service.client.subscriptions.get(subscription_id)).schedule[0]
        assert (entry.status, entry.attempts) == (EntryStatus.PAID, 2)
        assert len(charges_of(sandbox, entry_id)) == 1


async def test_an_unknown_entry_is_refused_before_anything_is_sent(sandbox, tmp_path):
    async with retries(sandbox, tmp_path / "j.db") as (service, journal):
        result = await service.subscription_retry("no-such-entry")
        assert (result.outcome, result.refusal, result.attempt_id) == (Outcome.FAILED, Refusal.INVALID_INPUT, None)
        assert "no subscription has the schedule entry no-such-entry" in result.message
        assert journal.in_flight() == []
