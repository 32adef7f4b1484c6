"""A card part a manager decided "not paid" (forced, before the service could tell) that the
service approves later: the journal counts the charge toward the order (a conflict, on the
manager's list), and so does the counter, live and after a restart: it asks only for the
rest, and the order can be paid (it was stuck asking for cents the journal refused)."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.station import Station
from pos_app.station.order import LineState
from tests.counters import cart_over, counter_for
from tests.waiting import wait_until_async


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-3", terminal_id="ts-1001",
                       poll_wait_limit=0.05, data_dir=tmp_path / "data")


async def test_a_late_approval_after_not_paid_counts_at_the_counter(sandbox, config):
    async with await Station.open(config, sandbox.keys["S"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 300)
            order_key = counter.cart.order_key
            part = await counter.pay(amount=150)  # type S: the message is not complete within the wait
            assert part.outcome is Outcome.UNKNOWN
            checking = asyncio.ensure_future(station.check_again(part.attempt_id, wait_limit=5.0))  # F9, polling
            decided = await station.resolve(part.attempt_id, paid=False, reason="customer says declined",
                                            by="Mo", force=True)  # meanwhile, at the back office
            assert decided.outcome is Outcome.FAILED and counter.payments.due(total) == total
            late = await checking
            assert late.outcome is Outcome.FAILED  # the decision stands; the late answer is kept beside it
            assert (await station.journal.get(part.attempt_id)).conflict is not None
            assert await station.journal.order_charges(order_key) == {part.attempt_id: 150}
            await wait_until_async(lambda: counter.payments.due(total) == total - 150,
                                   what="the counter counting the late charge, as the journal does")
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["S"], training=True) as again:  # the app starts again
        restored = await counter_for(again)
        try:
            assert restored.cart.order_key == order_key and restored.payments.due(total) == total - 150
            [line] = restored.payments.paying_lines()
            assert (line.state, line.counted) == (LineState.APPROVED, 150)
            taken = await restored.pay_cash(total - 150)
            assert taken.paid is not None and taken.entry.amount == total - 150
        finally:
            await restored.aclose()
