"""A return planned from a stale read of the order (two F9 windows, an old dialog) is
refused before any money moves: the same items' money is never given back twice."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind
from pos_app.station import Station
from pos_app.station.returns import StepKind, read_order, run_return
from tests.counters import counter_for, manager_of, two_lines


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def test_a_return_run_from_a_stale_read_of_the_order_gives_nothing_back_twice(sandbox, config):
    """An order of 2 × A + B paid in cash. The return dialog is opened twice on it (two F9
    windows, or the manager presses OK again on a dialog read before the first return): both
    plans return one A (there are two, and the order's cash covers both runs). ``begin_return``
    records the lines without checking what earlier returns took back, and the drawer's cap is
    only the cash the order kept, so the second run gives A's money from the drawer again (both
    A now count as returned while one is still with the customer, and the second run records
    a stale after-return total). Safe: the second run is refused and no cash moves for it."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            assert (await counter.pay_cash(total)).paid is not None
            manager = await manager_of(counter)
            first_read = await read_order(station, order_key)
            second_read = await read_order(station, order_key)  # the other dialog, read at the same time
            plan = first_read.plan({lines[0].line_id: 1})
            assert [s.kind for s in plan.steps] == [StepKind.CASH]
            done = await run_return(counter, plan, manager=manager, reason="broken")
            assert done.complete
            try:
                await run_return(counter, second_read.plan({lines[0].line_id: 1}), manager=manager,
                                 reason="broken")
            except ValueError:
                pass  # refused: the safe way
            back = sum(e.amount for e in await station.journal.order_cash(order_key) if e.kind is CashKind.RETURN)
            assert back == plan.amount, f"{back} cents given back for items worth {plan.amount}"
        finally:
            await counter.aclose()
