"""``ChargeService`` against the sandbox with a real journal: card-on-file charges and their
follow-ups by payment id, ACH, bulk charge; each journaled before it leaves, never resent,
a lost answer looked up by its attempt id, an unknown holding its order or its payment."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import date

import pytest

from pos_app.api.charge_models import AchCharge, AchData, CardCharge
from pos_app.api.client import Identity, PaymentsClient
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.journal import Journal, Operation, Outcome
from pos_app.terminal.charges import BulkRow, ChargeService
from pos_app.terminal.outcomes import Refusal
from tests.waiting import wait_until_async

EXP = f"12{date.today().year + 1 - 2000:02d}"


@asynccontextmanager
async def charges(sandbox, path, **options):
    client = PaymentsClient(sandbox.base_url, sandbox.keys["B"], identity=Identity("s1", "lane-1", "c7"))
    journal = Journal.open(path)
    try:
        yield ChargeService(client, journal, wait_limit=options.pop("wait_limit", 3.0), **options), journal
    finally:
        await client.aclose()
        journal.close()


async def customer(service: ChargeService) -> str:
    made = await service.client.customers.create(CustomerDraft(
        firstName="Ada", lastName="Byron", email="a@example.com", cards=[NewCustomerCard(number="424242******4242",
                                                                                         exp=EXP)]))
    return made.id


def sent(sandbox, route: str) -> int:
    return sandbox.stats()["requests"]["B"].get(route, 0)


async def test_a_charge_is_journaled_before_it_leaves_and_names_its_attempt(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, journal):
        cid = await customer(service)
        result = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-1")
        assert (result.outcome, result.operation, result.terminal_id) == (Outcome.APPROVED, Operation.CARD_CHARGE,
                                                                          f"vault:{cid}")
        attempt = journal.get(result.attempt_id)
        kinds = [e.kind for e in attempt.events]
        assert kinds.index("sent") < kinds.index("answer") < kinds.index("outcome")
        entry = (await service.client.list_transactions(externalId=result.attempt_id)).data
        assert [e.payment_id for e in entry] == [result.payment_id]
        assert entry[0].user_agent.endswith(f"attempt {result.attempt_id})")


async def test_a_partial_approval_is_its_own_outcome(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, _):
        cid = await customer(service)
        sandbox.inject("card.charge", 201, body={"data": {"id": "p-partial", "paid": True, "status": "captured",
                                                          "amount": 600, "transactionId": "t-1"}})
        result = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-p")
        assert (result.outcome, result.approved_amount) == (Outcome.PARTIALLY_APPROVED, 600)


async def test_a_2xx_without_proof_is_never_approved(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db", wait_limit=0.5) as (service, _):
        cid = await customer(service)
        sandbox.inject("card.charge", 201, body={"data": {"status": "pending"}})
        result = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-x")
        assert result.outcome is Outcome.UNKNOWN


async def test_an_unknown_charge_holds_its_order_until_resume_finds_it(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db", brief_wait=0.0) as (service, journal):
        cid = await customer(service)
        sandbox.set_faults(drop_next=1, list_lag_s=60)
        lost = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-2")
        assert lost.outcome is Outcome.UNKNOWN
        before = sent(sandbox, "card.charge")
        again = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-2")
        assert again.refusal in (Refusal.TERMINAL_HAS_UNKNOWN, Refusal.ORDER_UNRESOLVED)
        assert sent(sandbox, "card.charge") == before
        sandbox.set_faults(list_lag_s=0)
        [found] = await service.resume(wait_limit=0.0)
        assert (found.attempt_id, found.outcome) == (lost.attempt_id, Outcome.APPROVED)
        paid = await service.card_charge(CardCharge(amount=1500, customerId=cid), order_key="o-2")
        assert paid.refusal is Refusal.ORDER_PAID and sent(sandbox, "card.charge") == before
        assert len(journal.attempts()) == 1


async def test_follow_ups_by_payment_id_are_proven_by_the_payment(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, _):
        cid = await customer(service)
        held = await service.card_charge(CardCharge(amount=2000, capture=False, customerId=cid), order_key="o-3")
        assert held.outcome is Outcome.APPROVED
        captured = await service.card_capture(held.payment_id, 1800)
        assert (captured.outcome, captured.operation, captured.ref) == (Outcome.APPROVED, Operation.CARD_CAPTURE,
                                                                        held.payment_id)
        refused = await service.card_refund(held.payment_id, 500, "requested_by_customer")
        assert (refused.outcome, refused.refusal) == (Outcome.FAILED, Refusal.SERVICE_REFUSED)
        assert "void it instead" in refused.message
        voided = await service.card_void(held.payment_id, "user_cancel")
        assert voided.outcome is Outcome.APPROVED
        with pytest.raises(ValueError, match="reason"):
            await service.card_void(held.payment_id, "because")


async def test_no_second_refund_while_one_is_unknown(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db", brief_wait=0.0) as (service, _):
        cid = await customer(service)
        paid = await service.card_charge(CardCharge(amount=2000, customerId=cid), order_key="o-4")
        sandbox.settle()
        sandbox.set_faults(drop_next=1, list_lag_s=60)  # nor is it listed yet
        sandbox.inject("payment.get", 503, count=20)  # its payment cannot be read to settle it
        lost = await service.card_refund(paid.payment_id, 500, "duplicate")
        assert lost.outcome is Outcome.UNKNOWN
        before = sent(sandbox, "card.refund")
        second = await service.card_refund(paid.payment_id, 500, "duplicate")
        assert second.refusal is Refusal.REF_PENDING_FOLLOW_UP and sent(sandbox, "card.refund") == before


async def test_ach_charge_lost_then_found_and_void(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, _):
        account = AchData(accountType="personalChecking", routingNumber="021000021", accountNumber="123456789")
        lost = await service.ach_charge(AchCharge(amount=9906, achData=account), order_key="o-5")
        assert lost.outcome is Outcome.UNKNOWN
        [found] = await service.resume(wait_limit=0.0)
        assert found.outcome is Outcome.APPROVED and found.payment_id
        voided = await service.ach_void(found.payment_id, "user_cancel")
        assert (voided.outcome, voided.operation) == (Outcome.APPROVED, Operation.ACH_VOID)


async def test_declines_in_every_shape(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, _):
        cid = await customer(service)
        for amount in (99, 9905):
            result = await service.card_charge(CardCharge(amount=amount, customerId=cid), order_key=f"o-d{amount}")
            assert result.outcome is Outcome.DECLINED, amount
        gone = await service.card_charge(CardCharge(amount=1000, customerId="0123456789abcdef01234567"))
        assert (gone.outcome, gone.gateway_text) == (Outcome.DECLINED, "customer not found")


async def test_bulk_charge_journals_each_row_and_reads_the_results_back(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db") as (service, journal):
        one, two, three = await customer(service), await customer(service), await customer(service)
        first = await service.card_charge(CardCharge(amount=700, customerId=three), order_key="o-paid")
        assert first.outcome is Outcome.APPROVED
        rows = [BulkRow(one, 1100, "o-b1"), BulkRow(two, 99, "o-b2"), BulkRow(three, 700, "o-paid")]
        results = await service.bulk_charge(rows)
        assert [(r.outcome, r.refusal) for r in results] == [
            (Outcome.APPROVED, None), (Outcome.DECLINED, None), (Outcome.FAILED, Refusal.ORDER_PAID)]
        assert sent(sandbox, "card.bulk_charge") == 1
        assert {a.order_key for a in journal.attempts() if a.request.get("bulk")} == {"o-b1", "o-b2"}


async def test_a_bulk_charge_whose_answer_is_lost_is_found_row_by_row(sandbox, tmp_path):
    async with charges(sandbox, tmp_path / "j.db", wait_limit=0.2) as (service, _):
        one, two = await customer(service), await customer(service)
        sandbox.set_faults(error_5xx_after_next=1, bulk_delay_s=1.0)
        results = await service.bulk_charge([BulkRow(one, 1100, "o-l1"), BulkRow(two, 1200, "o-l2")])
        assert [r.outcome for r in results] == [Outcome.UNKNOWN, Outcome.UNKNOWN]
        await wait_until_async(lambda: len(sandbox.stats()["payments"]) == 2, what="the queued payments")
        found = await service.resume(wait_limit=0.0)
        assert sorted((r.order_key, r.outcome) for r in found) == [("o-l1", Outcome.APPROVED),
                                                                   ("o-l2", Outcome.APPROVED)]
