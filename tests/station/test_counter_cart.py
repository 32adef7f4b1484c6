"""The counter's cart, without Qt: what a cashier lowers or removes after a card payment
was attempted on the order (declined, failed or unknown) is in the audit trail, with who,
which line and from/to; before any attempt, and when a line only grows, nothing is."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.station import Station
from tests.counters import counter_for, under_a_dollar


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


LOWERING = {"line_removed", "quantity_lowered"}  # AuditAction values


async def lowered(counter) -> list:
    return [e for e in await counter.disk(counter.staff.audit) if e.action in LOWERING]


@pytest.mark.parametrize("fault,outcome", [(None, Outcome.DECLINED), ("404", Outcome.FAILED),
                                           ("drop", Outcome.UNKNOWN)])
async def test_lowering_a_line_after_a_payment_attempt_is_audited_and_not_before(sandbox, config, fault, outcome):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            await counter.sign_in("1111")
            item, deal = await under_a_dollar(counter)
            line = await counter.add(item, 2)
            await counter.set_quantity(line.line_id, 1)
            extra = await counter.add(deal)
            await counter.remove(extra.line_id)
            assert await lowered(counter) == []  # nothing attempted on this order yet

            await counter.add(deal)
            if fault == "404":
                sandbox.inject("terminal.pay", 404)
            elif fault == "drop":
                sandbox.set_faults(drop_next=1)
            attempt = await counter.pay()
            assert attempt.outcome is outcome and not counter.cart.is_empty
            if outcome is Outcome.UNKNOWN:  # were it charged, it would pay for what is left: not lowered
                with pytest.raises(ValueError, match="no known result"):
                    await counter.remove(line.line_id)
                resolved = await station.resolve(attempt.attempt_id, paid=False, reason="no charge", by="mgr",
                                                 force=True)
                if resolved.outcome is not Outcome.FAILED:  # the service showed the charge: the order is paid
                    return

            await counter.set_quantity(line.line_id, 3)  # raised: not audited
            await counter.set_quantity(line.line_id, 2)
            await counter.remove(line.line_id)
            entries = await lowered(counter)  # newest first
        finally:
            await counter.aclose()
    assert len(entries) == 2, entries
    removed, stepped = entries
    order = counter.cart.order_key
    assert (stepped.actor, stepped.action, removed.actor, removed.action) == (
        "Demo Cashier", "quantity_lowered", "Demo Cashier", "line_removed")
    assert stepped.detail == (f"{item.name} (line {line.line_id}, SKU {item.sku}): quantity 3 → 2; order {order}, "
                              f"after payment attempt {attempt.attempt_id} ({outcome})")
    assert removed.detail.startswith(f"{item.name} (line {line.line_id}, SKU {item.sku}): quantity 2 → 0;")


async def test_a_change_the_audit_trail_cannot_take_is_not_made(sandbox, config):
    from pos_app.staff import StaffError

    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            item, deal = await under_a_dollar(counter)
            line = await counter.add(item)
            await counter.add(deal)
            assert (await counter.pay()).outcome is Outcome.DECLINED
            counter.staff.close()  # the staff file can no longer be written
            with pytest.raises(StaffError):
                await counter.remove(line.line_id)
            assert counter.cart.line(line.line_id).quantity == 1
        finally:
            await counter.aclose()


async def test_before_the_journal_is_read_a_restored_cart_is_not_lowered_a_new_one_is(sandbox, config):
    from pos_app.station.counter import Counter
    from pos_app.station.events import EventBus

    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            item, _ = await under_a_dollar(counter)
            await counter.add(item, 2)  # saved as cart.json, as a crash would leave it
        finally:
            await counter.aclose()
    restarted = await Counter.open(config, EventBus(), training=True)  # the payment side not attached yet
    try:
        [line] = restarted.cart.lines
        with pytest.raises(ValueError, match="still being checked"):  # it may have been paid before the stop
            await restarted.set_quantity(line.line_id, 1)
        assert restarted.cart.line(line.line_id).quantity == 2
        await restarted.new_sale()  # a cart begun in this run had no attempt the journal could miss
        again = await restarted.add(item, 2)
        await restarted.remove(again.line_id)
        assert await lowered(restarted) == []
    finally:
        await restarted.aclose()
