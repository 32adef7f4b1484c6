"""A parked order survives a kill -9 (issue 19): a child process parks an order on a payment
link with the watcher running and is killed with SIGKILL. The link is paid meanwhile; the
app started again on the same folder finds the order still waiting, and its watcher
completes it once: one completion, one paid row, whatever it reads after."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pos_app.journal import ParkStage
from tests.killing import run_until_killed
from tests.links import paid
from tests.parking import lane, lane_config
from tests.waiting import wait_until_async


def park_then_kill(sandbox, data_dir: Path) -> list[str]:
    """The worker's ``parked`` line (order key, link id, total); the worker is then killed."""
    said = run_until_killed("tests.station.parked_worker", [sandbox.base_url, sandbox.keys["B"], str(data_dir)],
                            "parked")
    return said["parked"]


async def test_a_parked_order_waits_through_a_kill_then_completes_once(sandbox, tmp_path):
    data_dir = tmp_path / "data"
    order_key, link_id, total = park_then_kill(sandbox, data_dir)
    async with lane(sandbox, data_dir, watching=False) as it:
        [waiting] = await it.parked.waiting()
        assert (waiting.order_key, waiting.link_id, waiting.stage) == (order_key, link_id, ParkStage.PARKED)
        assert it.counter.cart.is_empty  # the lane was freed before the kill
    paid(sandbox, link_id)
    async with lane(sandbox, data_dir) as it:
        [done] = await wait_until_async(lambda: it.completed, timeout=15, what="the parked order completed")
        assert done.paid.order_key == order_key and done.paid.paid == int(total) and not done.restored
        rounds = it.watcher.rounds
        it.watcher.wake()
        await wait_until_async(lambda: it.watcher.rounds >= rounds + 2, timeout=10, what="two more rounds")
        assert len(it.completed) == 1
    async with lane(sandbox, data_dir) as it:  # restarted again: completed, its receipt still due once
        [again] = await wait_until_async(lambda: it.completed, timeout=10, what="the receipt offered")
        assert again.restored and again.parking.order_key == order_key
        await it.parked.receipt_given(again.parking)
    async with lane(sandbox, data_dir) as it:
        await wait_until_async(lambda: it.watcher.rounds >= 2, timeout=10, what="two rounds")
        assert it.completed == []
    rows = sqlite3.connect(lane_config(sandbox, data_dir).journal_path).execute(
        "SELECT stage FROM parked_orders WHERE order_key = ? ORDER BY seq", (order_key,)).fetchall()
    assert [stage for (stage,) in rows] == ["parking", "parked", "paid", "receipted"]
