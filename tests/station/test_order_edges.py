"""Edges of "a result settles only its own order" that a review broke, each made real on the
sandbox: a manager's reference that does not stand as the charge, one charge for two
orders, a partial charge voided, a partly paid cart's locked items, a cart lowered while its
payment is unknown or before the restored order is read, "stop waiting" during another order's check, the shift end's
checks, a close by serial while any terminal holds an unknown."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import ChargeTaken, Journal, Operation, Outcome
from pos_app.journal.models import SHARED_CHARGE
from pos_app.station import Station
from pos_app.station.events import AttemptsSettled, PaymentProgress
from pos_app.terminal.outcomes import Phase, Refusal
from tests.counters import counter_for


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def lost_sale(station, sandbox, amount, order_key, terminal="tb-2001"):
    """A sale charged at the service whose answer was lost: unknown in the journal."""
    sandbox.set_faults(drop_next=1)
    result = await station.sale(amount, order_key=order_key, terminal_id=terminal)
    assert result.outcome is Outcome.UNKNOWN
    return result


async def test_a_reference_to_a_voided_payment_or_a_held_one_does_not_pay_a_sale(sandbox, config):
    sandbox.set_faults(foreign_user_agent=1)  # the service names no attempt: only a reference could
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        lost = await lost_sale(station, sandbox, 2500, "cart-a")
        elsewhere = await station.sale(2500, order_key="cart-b", terminal_id="tb-2002")
        held = await station.sale(2500, order_key="cart-c", preauth=True)
        voided_unknown = (await station.client.get_payment(elsewhere.payment_id)).transaction_id
        await station.void("tb-2002", elsewhere.transaction_id, payment_id=elsewhere.payment_id)
        for reference in (held.payment_id, voided_unknown):
            refused = await station.resolve(lost.attempt_id, paid=True, reason="slip", by="mgr", reference=reference)
            assert refused.refusal is Refusal.NO_CHARGE_FOUND, refused
        assert (await station.journal.get(lost.attempt_id)).needs_resolution


async def test_a_reference_the_list_does_not_show_yet_proves_nothing(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        sandbox.set_faults(list_lag_s=120)
        sandbox.inject("terminal.pay", 503)  # nothing charged for this one
        unknown = await station.sale(2500, order_key="cart-a")
        other = await lost_sale(station, sandbox, 2500, "cart-b", terminal="tb-2002")
        [payment] = sandbox.stats()["payments"]
        refused = await station.resolve(unknown.attempt_id, paid=True, reason="slip", by="mgr",
                                        reference=payment["id"])
        assert refused.refusal is Refusal.NO_CHARGE_FOUND and "does not show" in refused.message
        assert (await station.journal.get(unknown.attempt_id)).needs_resolution
        assert other.attempt_id != unknown.attempt_id


def test_one_charge_recorded_for_two_attempts_is_flagged_and_never_decided_twice(tmp_path):
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        first, second, third = (journal.begin_attempt(operation=Operation.SALE, terminal_id=f"T{n}", gateway="B",
                                                      amount=900, order_key=f"o-{n}", request={}) for n in range(3))
        for attempt in (first, second, third):
            journal.mark_sent(attempt.id)
        journal.finish(first.id, Outcome.APPROVED, {"payment_id": "p-1", "transaction_id": "t-1"})
        journal.finish(second.id, Outcome.APPROVED, {"payment_id": "p-1", "transaction_id": "t-1"})
        for attempt_id in (first.id, second.id):
            flagged = journal.get(attempt_id)
            assert any(e.kind == SHARED_CHARGE for e in flagged.events)
            assert any("one charge (p-1)" in note for note in flagged.attention)
        journal.finish(third.id, Outcome.UNKNOWN)
        with pytest.raises(ChargeTaken, match=first.id):
            journal.resolve_by_manager(third.id, paid=True, reason="slip", by="mgr",
                                       evidence={"payment_id": "p-1", "transaction_id": "t-1"})
        assert journal.get(third.id).needs_resolution


async def test_a_partial_charge_voided_frees_the_order_to_be_paid_in_full(sandbox, config):
    sandbox.set_faults(approve_at_most=500)
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            await counter.add(next(i for i in await counter.search("a", 60) if i.price_cents >= 600))
            partial = await counter.pay()
            assert partial.outcome is Outcome.PARTIALLY_APPROVED and counter.payments.paid == 500
            sandbox.set_faults(approve_at_most=0)
            voided = await station.void("tb-2001", partial.transaction_id, payment_id=partial.payment_id)
            assert voided.outcome is Outcome.APPROVED
            assert counter.payments.paid == 0 and counter.last_paid is None  # the void gave it back
            again = await counter.pay()
            assert again.outcome is Outcome.APPROVED and counter.last_paid is not None
            assert counter.last_paid.result == again and counter.cart.is_empty
        finally:
            await counter.aclose()


async def test_a_partly_paid_orders_items_are_locked(sandbox, config):
    """Once a line moved money the cart's items cannot change (the customer saw that total
    on the terminal): adding, lowering and removing are refused, the cart stays as it was."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            items = sorted((i for i in await counter.search("a", 60) if i.price_cents > 100),
                           key=lambda i: i.price_cents)
            await counter.add(items[0])
            await counter.add(items[-1])
            sandbox.set_faults(approve_at_most=100)
            partial = await counter.pay()
            assert partial.outcome is Outcome.PARTIALLY_APPROVED
            before = counter.cart.lines
            for edit in (lambda: counter.remove(before[-1].line_id), lambda: counter.add(items[1]),
                         lambda: counter.set_quantity(before[0].line_id, 5),
                         lambda: counter.add_open_price("Gift wrap", 499)):
                with pytest.raises(ValueError, match="items cannot change"):
                    await edit()
            assert counter.cart.lines == before and counter.last_paid is None
        finally:
            await counter.aclose()


async def test_no_line_is_lowered_while_its_orders_payment_is_unknown(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            items = [i for i in await counter.search("a", 60) if i.price_cents > 100][:2]
            for item in items:
                await counter.add(item)
            sandbox.set_faults(drop_next=1)
            lost = await counter.pay()
            assert lost.outcome is Outcome.UNKNOWN
            with pytest.raises(ValueError, match="no known result"):
                await counter.remove(counter.cart.lines[0].line_id)
            assert len(counter.cart.lines) == 2
        finally:
            await counter.aclose()


async def test_the_restored_cart_is_not_lowered_before_its_order_is_read(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        first = await counter_for(station)
        await first.sync_catalog()
        await first.add(next(i for i in await first.search("a", 60) if i.price_cents > 100))
        await first.aclose()
        restored = await counter_for(station, read_order=False)
        try:
            with pytest.raises(ValueError, match="still being checked"):
                await restored.remove(restored.cart.lines[0].line_id)
            await restored.restore_order()
            await restored.remove(restored.cart.lines[0].line_id)
            assert restored.cart.is_empty
        finally:
            await restored.aclose()


async def test_stop_waiting_during_another_orders_check_reports_nothing_sent(sandbox, config):
    async with await Station.open(config.replace(terminal_id="ts-1001", poll_wait_limit=1.0),
                                  sandbox.keys["S"], training=True) as station:
        sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.3)
        held = await station.sale(9903, order_key="cart-other")  # its message stays in timeout
        assert held.outcome is Outcome.UNKNOWN
        station.service.brief_wait = 5.0
        checking = asyncio.Event()
        station.events.subscribe(lambda e: checking.set() if isinstance(e, PaymentProgress)
                                 and e.progress.phase is Phase.CHECKING else None)
        sale = asyncio.ensure_future(station.sale(1035, order_key="cart-mine"))
        await asyncio.wait_for(checking.wait(), timeout=10)  # the earlier unknown is checked first
        assert station.stop_waiting()
        result = await sale
        assert result.attempt_id is None and result.outcome is Outcome.FAILED and result.order_key == "cart-mine"


async def test_the_shift_ends_checks_are_published_and_pay_the_cart_they_prove(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        settled = []
        station.events.subscribe(lambda e: settled.append(e.results) if isinstance(e, AttemptsSettled) else None)
        try:
            await counter.sync_catalog()
            await counter.add(next(i for i in await counter.search("a", 60) if i.price_cents > 100))
            sandbox.set_faults(drop_next=1)
            lost = await counter.pay()
            assert lost.outcome is Outcome.UNKNOWN
            end = await station.shift_end("tb-2001", by="mgr")
            assert end.report.close.result.outcome is Outcome.APPROVED
            assert [r.attempt_id for r in settled[-1]] == [lost.attempt_id]
            assert counter.last_paid is not None and counter.last_paid.result.attempt_id == lost.attempt_id
        finally:
            await counter.aclose()


async def test_a_close_by_serial_waits_for_every_terminals_unknown(sandbox, config):
    async with await Station.open(config.replace(terminal_id="ts-1002", poll_wait_limit=1.0),
                                  sandbox.keys["S"], training=True) as station:
        sandbox.inject("terminal.pay", 503)  # reached the service, which says nothing of it
        stuck = await station.sale(1500, order_key="cart-stuck", terminal_id="ts-1002")
        assert stuck.outcome is Outcome.UNKNOWN
        end = await station.shift_end("P3A-2310-0101", by="mgr", by_serial=True)  # the list says ts-1001
        close = end.report.close.result
        assert close.refusal is Refusal.TERMINAL_HAS_UNKNOWN and close.blocked_by == stuck.attempt_id
        assert not any(a.operation is Operation.CLOSE_BATCH for a in await station.journal.attempts())
