"""The station: one lane's wiring shared by the CLI and the GUI, events every window can
follow, a payment the cashier can stop waiting for, identity per sign-in."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.api.identity import attempt_in
from pos_app.config import StoreConfig
from pos_app.journal import Journal, Operation, Outcome
from pos_app.station import Station
from pos_app.station.events import AttemptsSettled, OperationEnded, PaymentProgress
from pos_app.terminal.outcomes import Phase
from tests.counters import counter_for
from tests.waiting import wait_until_async


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="ts-1001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def test_a_sale_publishes_progress_and_its_outcome_to_every_subscriber(sandbox, config):
    async with await Station.open(config, sandbox.keys["S"]) as station:
        first, second = [], []
        station.events.subscribe(first.append)
        unsubscribe = station.events.subscribe(second.append)
        station.sign_in("Dana")
        result = await station.sale(1234, order_key="cart-1")
        unsubscribe()
        await station.sale(1500, order_key="cart-2")
    assert result.outcome is Outcome.APPROVED and result.msg_identifier
    phases = [e.progress.phase for e in second if isinstance(e, PaymentProgress)]
    assert phases[0] is Phase.SENDING and Phase.COMPLETE in phases
    assert second[-1] == OperationEnded(result)  # exactly one outcome event, the last
    assert len([e for e in first if isinstance(e, OperationEnded)]) == 2  # the first subscriber saw both
    [payment, _] = sandbox.stats()["payments"]
    assert "cashier Dana" in payment["userAgent"] and attempt_in(payment["userAgent"]) == result.attempt_id


async def test_the_journal_records_who_was_signed_in_for_each_attempt(sandbox, config):
    async with await Station.open(config, sandbox.keys["S"], cashier="-") as station:
        unattended = await station.sale(300, order_key="cart-robot")
        station.sign_in("Dana")
        by_dana = await station.sale(400, order_key="cart-dana")
        station.sign_out()
        station.sign_in("Eli")
        by_eli = await station.sale(500, order_key="cart-eli")
        cashiers = {a.id: a.cashier for a in await station.journal.attempts()}
    assert cashiers == {unattended.attempt_id: None, by_dana.attempt_id: "Dana", by_eli.attempt_id: "Eli"}


async def test_stop_waiting_journals_the_payment_unknown_and_it_stays_resumable(sandbox, config):
    sandbox.set_faults(s_delay_min=3, s_delay_max=3)
    async with await Station.open(config, sandbox.keys["S"]) as station:
        outcomes, phases = [], []
        station.events.subscribe(lambda e: outcomes.append(e.result) if isinstance(e, OperationEnded) else None)
        station.events.subscribe(lambda e: phases.append(e.progress.phase) if isinstance(e, PaymentProgress) else None)
        payment = asyncio.ensure_future(station.sale(2500, order_key="cart-stop"))
        await wait_until_async(lambda: Phase.RECEIVED in phases, what="the message polled", timeout=10)
        assert station.stop_waiting()
        result = await payment
        assert result.outcome is Outcome.UNKNOWN and "stopped waiting" in result.message
        assert outcomes == [result] and not station.paying
        [pending] = await station.journal.in_flight()
        assert pending.id == result.attempt_id and pending.outcome is Outcome.UNKNOWN
        held = await station.sale(700, order_key="cart-next")  # the terminal is held by the unknown
        assert held.refusal is not None and held.blocked_by == result.attempt_id
        checked = await station.check_again(result.attempt_id, wait_limit=10)
        assert checked.outcome is Outcome.APPROVED


async def test_start_up_recovery_settles_what_a_dead_process_left(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"]) as station:
        sale = await station.service.sale("tb-2001", 900)  # a real charge to find again
    dead = Journal.open(config.journal_path)
    orphan = dead.begin_attempt(operation=Operation.SALE, terminal_id="tb-2002", gateway="B", amount=800,
                                request={})
    dead.close()  # its process died before sending: nothing can have been charged
    async with await Station.open(config, sandbox.keys["B"]) as station:
        recovered = []
        station.events.subscribe(lambda e: recovered.append(e.results) if isinstance(e, AttemptsSettled) else None)
        [result] = await station.recover()
        assert result.attempt_id == orphan.id and result.outcome is Outcome.FAILED
        assert recovered == [(result,)]
        assert sale.outcome is Outcome.APPROVED


async def test_a_station_without_a_terminal_says_so(sandbox, config):
    async with await Station.open(config.replace(terminal_id=None), sandbox.keys["B"]) as station:
        with pytest.raises(ValueError, match="terminal"):
            await station.sale(100, order_key="c")


async def test_a_cart_whose_lost_payment_turns_out_approved_is_paid_not_charged_again(sandbox, config):
    from pos_app.terminal.outcomes import Refusal

    async with await Station.open(config.replace(terminal_id="tb-2001"), sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            await counter.add(next(i for i in await counter.search("a", 40) if i.price_cents > 100))
            order_key = counter.cart.order_key
            sandbox.set_faults(drop_next=1)  # charged, then the answer is lost
            lost = await counter.pay()
            assert lost.outcome is Outcome.UNKNOWN and counter.cart.order_key == order_key
            again = await counter.pay()  # the cashier presses F12 again: the first one is found
            assert again.refusal is Refusal.EARLIER_ATTEMPT_APPROVED and again.blocked_by == lost.attempt_id
            assert counter.last_paid is not None and counter.last_paid.result is not None
            assert counter.last_paid.result.attempt_id == lost.attempt_id
            assert counter.cart.is_empty and counter.cart.order_key != order_key
            assert len(sandbox.stats()["payments"]) == 1
        finally:
            await counter.aclose()


async def test_a_carts_totals_are_journaled_as_it_is_sent_to_be_paid(sandbox, config):
    async with await Station.open(config.replace(terminal_id="tb-2001"), sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            taxed = [i for i in await counter.search("a", 60) if i.tax_ids and i.price_cents > 100]
            for item in taxed[:2]:
                await counter.add(item, 2)
            totals, order_key = counter.totals(), counter.cart.order_key
            assert totals.tax > 0 and totals.breakdown
            paid = await counter.pay()
            recorded = await station.journal.order_totals([order_key])
            attempt = await station.journal.get(paid.attempt_id)
        finally:
            await counter.aclose()
    assert paid.outcome is Outcome.APPROVED and paid.amount == totals.total
    [row] = recorded[order_key]
    assert (row.subtotal, row.tax, row.total) == (totals.subtotal, totals.tax, totals.total)
    assert dict(row.taxes) == dict(totals.breakdown)
    assert row.recorded_at <= attempt.created_at and attempt.order_key == order_key  # written before it began
