"""An order and its payment lines survive a kill -9 (issue 17): a child process runs the
app's station and counter on the sandbox, rings a cart, pays a card part, takes cash, and
is killed with SIGKILL after one of those steps. Started again on the same folder, the cart
is the same order with the lines it had (the card part approved, the cash received), the
same amount due, and the rest pays it: card and cash counted once each."""

from __future__ import annotations

from pathlib import Path

import pytest

from pos_app.config import StoreConfig
from pos_app.station import Station
from pos_app.station.order import LineState, Tender
from tests import killing
from tests.counters import counter_for


def run_until_killed(sandbox, data_dir: Path, after: str) -> dict[str, list[str]]:
    """The worker's lines up to the step ``after``; the worker is then killed with SIGKILL."""
    return killing.run_until_killed("tests.station.till_worker", [sandbox.base_url, sandbox.keys["B"],
                                                                   str(data_dir)], after, paced=True)


@pytest.mark.parametrize("after", ["cart", "card", "cash"])
async def test_the_order_comes_back_as_it_was_after_a_kill(sandbox, tmp_path, after):
    data_dir = tmp_path / "data"
    said = run_until_killed(sandbox, data_dir, after)
    order_key, total = said["cart"][0], int(said["cart"][1])
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                         poll_wait_limit=20.0, data_dir=data_dir)
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            assert counter.cart.order_key == order_key and counter.totals().total == total
            expected = []
            if "card" in said:
                expected.append((Tender.CARD, LineState.APPROVED, int(said["card"][0])))
            if "cash" in said:
                expected.append((Tender.CASH, LineState.RECEIVED, int(said["cash"][0])))
            assert [(line.tender, line.state, line.counted) for line in counter.payments.lines] == expected
            paid = sum(counted for _, _, counted in expected)
            assert counter.payments.due(total) == total - paid
            taken = await counter.pay_cash(total - paid)
            assert taken.paid is not None and taken.paid.paid == total
            charges = [p for p in sandbox.stats()["payments"] if p["paid"]]
            assert len(charges) == (1 if "card" in said else 0)  # the card part charged once
            assert sum(e.amount for e in await station.journal.order_cash(order_key)) == total - (
                int(said["card"][0]) if "card" in said else 0)
        finally:
            await counter.aclose()
