"""The manager's back office against the sandbox: the day's payments merged from the
journal and the service's list, void and refund with a reason and an audit row, the
attempts that need a person."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.sandbox.faults import DROP_ANSWER
from pos_app.staff import DEMO_CASHIER_PIN, StaffMember
from pos_app.station import Station
from pos_app.station.back_office import BackOffice, Problem
from pos_app.station.events import PaymentProgress
from pos_app.station.payments import PaymentFilter, PaymentStatus, Source, filtered
from pos_app.terminal.outcomes import Phase
from tests.counters import counter_for
from tests.waiting import wait_until_async

MANAGER = StaffMember("Demo Manager", "manager")  # type: ignore[arg-type]


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


@pytest.fixture
async def office(sandbox, config):
    station = await Station.open(config, sandbox.keys["B"], training=True)
    counter = await counter_for(station)
    await counter.sign_in(DEMO_CASHIER_PIN)
    try:
        yield BackOffice(counter)
    finally:
        await counter.aclose()
        await station.aclose()


async def today(office: BackOffice):
    return await office.payments(datetime.now().date())


def row_of(history, attempt_id):
    return next(row for row in history.rows if row.attempt_id == attempt_id)


async def test_the_days_payments_merge_the_journal_and_the_service(office, sandbox):
    service = office.station.service
    sale = await service.sale("tb-2001", 1250)
    declined = await service.sale("tb-2001", 9905)
    office.station.sign_in("-")
    other_lane = await service.sale("tb-2002", 700)  # listed by the service; this journal knows it too
    history = await today(office)
    assert history.complete and history.problem is None
    row = row_of(history, sale.attempt_id)
    assert (row.status, row.source, row.base, row.cashier, row.terminal_id) == (
        PaymentStatus.APPROVED, Source.BOTH, 1250, "Demo Cashier", "tb-2001")
    assert row.settled is False and row.card_last4 and row.total == row.base + row.surcharge
    assert row.voidable and row.refundable == 0
    assert row_of(history, declined.attempt_id).status is PaymentStatus.DECLINED
    assert row_of(history, other_lane.attempt_id).cashier is None
    assert [r.at for r in history.rows] == sorted((r.at for r in history.rows), reverse=True)

    only_b = filtered(history.rows, PaymentFilter(terminal_id="tb-2002"))
    assert [r.attempt_id for r in only_b] == [other_lane.attempt_id]
    assert [r.attempt_id for r in filtered(history.rows, PaymentFilter(status=PaymentStatus.DECLINED))] == [
        declined.attempt_id]
    by_amount = filtered(history.rows, PaymentFilter(min_total=office.money.parse("12.50"), max_total=row.total))
    assert [r.attempt_id for r in by_amount] == [sale.attempt_id]
    assert [r.attempt_id for r in filtered(history.rows, PaymentFilter(text=f"demo {row.card_last4}"))] == [
        sale.attempt_id, declined.attempt_id] or row.card_last4 != row_of(history, declined.attempt_id).card_last4


async def test_a_payment_the_journal_does_not_know_is_listed_from_the_service(office, sandbox):
    import httpx

    from tests.sandbox.helpers import pay_b_approved

    with httpx.Client(base_url=sandbox.base_url, headers={"key-hash": sandbox.keys["B"]}) as other:
        made = pay_b_approved(other, 4321)  # another app, same merchant
    history = await today(office)
    [row] = [r for r in history.rows if r.transaction_id == made["transactionId"]]
    assert (row.source, row.status, row.base, row.attempt_id) == (Source.SERVICE, PaymentStatus.APPROVED, 4321, None)


async def test_void_an_unsettled_sale_with_a_reason_and_an_audit_row(office, sandbox):
    sale = await office.station.service.sale("tb-2001", 1800)
    row = row_of(await today(office), sale.attempt_id)
    with pytest.raises(ValueError, match="reason"):
        await office.void(row, manager=MANAGER, reason="  ")
    again = await today(office)  # read again: nothing changed, the kept rows come back as they were
    assert row_of(again, sale.attempt_id) is row
    result = await office.void(row, manager=MANAGER, reason="rang up the wrong item")
    assert result.outcome is Outcome.APPROVED
    after = row_of(await today(office), sale.attempt_id)  # the void is a change: a new row
    assert after.status is PaymentStatus.VOIDED and not after.voidable
    [entry] = await office.audit(limit=1)
    assert (entry.actor, entry.action, entry.reason) == ("Demo Manager", "void", "rang up the wrong item")
    assert "void of" in entry.detail and sale.transaction_id in entry.detail and ": approved" in entry.detail
    assert "on Demo Cashier's screen" in entry.detail
    with pytest.raises(ValueError, match="cannot be voided"):
        await office.void(after, manager=MANAGER, reason="again")


async def test_refund_part_then_the_rest_then_it_is_refused(office, sandbox):
    sale = await office.station.service.sale("tb-2001", 5000)
    unsettled = row_of(await today(office), sale.attempt_id)
    with pytest.raises(ValueError, match="not settled yet: void it"):
        await office.refund(unsettled, 100, manager=MANAGER, reason="x")
    sandbox.settle()
    row = row_of(await today(office), sale.attempt_id)
    assert row.settled is True and row.refundable == 5000 and not row.voidable
    with pytest.raises(ValueError, match=r"between \$0.01 and \$50.00"):
        await office.refund(row, 5001, manager=MANAGER, reason="too much")
    first = await office.refund(row, 2000, manager=MANAGER, reason="one item returned")
    assert first.outcome is Outcome.APPROVED
    row = row_of(await today(office), sale.attempt_id)
    assert (row.status, row.refunded, row.refundable) == (PaymentStatus.PARTLY_REFUNDED, 2000, 3000)
    rest = await office.refund(row, row.refundable, manager=MANAGER, reason="the rest returned")
    assert rest.outcome is Outcome.APPROVED
    row = row_of(await today(office), sale.attempt_id)
    assert (row.status, row.refunded, row.refundable) == (PaymentStatus.REFUNDED, 5000, 0)
    with pytest.raises(ValueError, match="already fully refunded"):
        await office.refund(row, 1, manager=MANAGER, reason="once more")
    stale = replace(row, status=PaymentStatus.PARTLY_REFUNDED, refunded=4000)  # a list read before the refund
    refused = await office.refund(stale, 1000, manager=MANAGER, reason="stale screen")
    assert refused.outcome is not Outcome.APPROVED  # the service refuses it: nothing moves twice
    audit = await office.audit(limit=3)
    assert [(e.action, e.reason) for e in audit] == [
        ("refund", "stale screen"), ("refund", "the rest returned"), ("refund", "one item returned")]
    assert "$20.00" in audit[2].detail and ": approved" in audit[2].detail
    assert len([p for p in sandbox.stats()["payments"]]) == 1


async def test_an_unknown_payment_needs_attention_until_resolved(office, sandbox):
    lost = await office.station.sale(DROP_ANSWER, order_key="cart-lost")
    assert lost.outcome is Outcome.UNKNOWN
    [item] = await office.needs_attention()
    assert item.problem is Problem.UNRESOLVED and item.attempt.id == lost.attempt_id
    assert "unknown" in item.note and "$99.06" in item.note
    row = row_of(await today(office), lost.attempt_id)
    assert row.status is PaymentStatus.UNKNOWN  # the list shows a charge, but only the workflow decides
    checked = await office.station.check_again(lost.attempt_id, wait_limit=5)
    assert checked.outcome is Outcome.APPROVED
    assert await office.needs_attention() == []
    after = await office.station.sale(500, order_key="cart-next")  # the terminal is free again
    assert after.outcome is Outcome.APPROVED


async def test_a_conflict_is_listed_and_the_charge_can_be_given_back(sandbox, config):
    sandbox.set_faults(s_delay_min=1.5, s_delay_max=1.5)
    station = await Station.open(config.replace(terminal_id="ts-1001"), sandbox.keys["S"], training=True)
    counter = await counter_for(station)
    office = BackOffice(counter)
    try:
        phases = []
        station.events.subscribe(lambda e: phases.append(e.progress.phase) if isinstance(e, PaymentProgress) else None)
        sale = asyncio.ensure_future(station.sale(3300, order_key="cart-conflict"))
        await wait_until_async(lambda: Phase.RECEIVED in phases, what="the message polled", timeout=10)
        [attempt] = await station.journal.in_flight()
        decided = await station.resolve(attempt.id, paid=False, reason="customer walked away", by="Demo Manager",
                                        force=True)
        assert decided.outcome is Outcome.FAILED
        await sale  # the terminal's late answer: approved
        conflict = next(i for i in await office.needs_attention() if i.problem is Problem.CONFLICT)
        assert conflict.attempt.id == attempt.id and "refund it" in conflict.note
        row = row_of(await today(office), attempt.id)
        assert row.conflict and row.status is PaymentStatus.APPROVED and row.voidable
        given_back = await office.void(row, manager=MANAGER, reason="paid cash instead")
        assert given_back.outcome is Outcome.APPROVED
        assert row_of(await today(office), attempt.id).status is PaymentStatus.VOIDED
    finally:
        await counter.aclose()
        await station.aclose()


async def test_reading_ahead_builds_the_rows_that_f9_then_shows(office, sandbox):
    sale = await office.station.service.sale("tb-2001", 2200)
    await office.warm(datetime.now().date())
    [read_ahead] = [kept.row for kept in office._drafts.values() if kept.row and kept.row.attempt_id == sale.attempt_id]
    later = await office.station.service.sale("tb-2001", 700)
    history = await today(office)
    assert row_of(history, sale.attempt_id) is read_ahead  # unchanged: not read, drafted or built again
    assert row_of(history, later.attempt_id).status is PaymentStatus.APPROVED
