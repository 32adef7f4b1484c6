"""A full or read-only disk after a request left never loses its outcome or hangs a sale
(issue 16, row 8): the outcome is kept in memory and reported, the cashier is told, and
the writes (outcome, cart, poll budget) are made again until the disk takes them. The data
folder is a real small tmpfs (tests/disks.py), filled mid-sale. (A read-only remount is
refused by the kernel while the journal is open for writing, so "read-only" is a full
disk's twin here: the same writes fail the same way.)"""

from __future__ import annotations

import asyncio
import json

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.station import Station
from pos_app.station.events import OperationEnded, PaymentProgress, SaveTrouble
from pos_app.terminal.outcomes import Phase, Refusal
from tests.counters import counter_for
from tests.disks import small_disk
from tests.waiting import wait_until_async

RETRY = 0.1


@pytest.fixture
def disk(tmp_path):
    with small_disk(tmp_path / "disk") as mounted:
        yield mounted


def config_on(disk, sandbox, terminal: str) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-1", terminal_id=terminal,
                       poll_wait_limit=20.0, data_dir=disk.root / "data")


async def test_row8_a_full_disk_right_after_the_approval_keeps_the_sale_and_saves_the_cart_later(sandbox, disk):
    async with await Station.open(config_on(disk, sandbox, "tb-2001"), sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        counter.save_retry = RETRY
        troubles = []
        station.events.subscribe(lambda e: troubles.append(e) if isinstance(e, SaveTrouble) else None)
        try:
            await counter.sync_catalog()
            await counter.add(next(i for i in await counter.search("a", 40) if i.price_cents > 100))

            def fill_on_approval(event):  # after the counter's own handler: the disk fills before the cart is saved
                if isinstance(event, OperationEnded) and event.result.outcome is Outcome.APPROVED:
                    disk.fill()

            station.events.subscribe(fill_on_approval)
            result = await asyncio.wait_for(counter.pay(), timeout=20)
            assert result.outcome is Outcome.APPROVED and result.saved  # the journal had room for the outcome
            assert counter.last_paid is not None and counter.last_paid.result is result and counter.cart.is_empty
            await wait_until_async(lambda: counter.unsaved is not None, what="the cart save refused")
            assert [t.what for t in troubles] == ["cart"] and "saved again as soon" in troubles[0].sentence
            new_order = counter.cart.order_key

            disk.free()
            await wait_until_async(lambda: counter.unsaved is None, what="the cart saved again", timeout=10)
            assert troubles[-1].saved
            saved = json.loads(station.config.cart_path.read_text())
            assert saved["order_key"] == new_order and saved["lines"] == []
        finally:
            await counter.aclose()


async def test_row8_a_disk_full_while_polling_still_ends_the_sale_and_journals_it_later(sandbox, disk):
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.2)
    async with await Station.open(config_on(disk, sandbox, "ts-1001"), sandbox.keys["S"], training=True) as station:
        station.service.outcomes.save_retry = RETRY
        troubles, broken = [], []

        def break_disk(event):  # the request has left and the message is being polled
            if isinstance(event, PaymentProgress) and event.progress.phase is Phase.WAITING and not broken:
                broken.append(True)
                disk.fill()

        station.events.subscribe(break_disk)
        station.events.subscribe(lambda e: troubles.append(e) if isinstance(e, SaveTrouble) else None)
        result = await asyncio.wait_for(station.sale(2200, order_key="cart-disk"), timeout=30)
        assert broken and result.outcome is Outcome.APPROVED and not result.saved
        assert troubles and troubles[0].what == "outcome" and not troubles[0].saved
        assert station.service.outcomes.unsaved == [result.attempt_id]
        assert station.budget is not None and isinstance(station.budget.trouble, OSError)  # polled on its own spacing

        disk.free()
        await wait_until_async(lambda: not station.service.outcomes.unsaved, what="the outcome journaled",
                               timeout=10)
        attempt = await station.journal.get(result.attempt_id)
        assert attempt.outcome is Outcome.APPROVED and attempt.result["payment_id"] == result.payment_id
        assert troubles[-1].saved and troubles[-1].what == "outcome"


async def test_a_kept_outcome_decided_meanwhile_is_kept_beside_the_decision_as_a_late_answer(sandbox, disk):
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.2)
    async with await Station.open(config_on(disk, sandbox, "ts-1001"), sandbox.keys["S"], training=True) as station:
        station.service.outcomes.save_retry = 1.0
        broken = []

        def break_disk(event):
            if isinstance(event, PaymentProgress) and event.progress.phase is Phase.WAITING and not broken:
                broken.append(True)
                disk.fill()

        station.events.subscribe(break_disk)
        kept = await asyncio.wait_for(station.sale(2300, order_key="cart-kept"), timeout=30)
        assert kept.outcome is Outcome.APPROVED and not kept.saved
        disk.free()  # another process (a manager's `resolve`) writes first
        decided = await station.journal.resolve_by_manager(kept.attempt_id, paid=False, reason="walked out",
                                                            by="mgr", forced=True)
        assert decided.outcome is Outcome.FAILED
        await wait_until_async(lambda: not station.service.outcomes.unsaved, what="the kept outcome handled",
                               timeout=10)
        attempt = await station.journal.get(kept.attempt_id)
        assert attempt.outcome is Outcome.FAILED and attempt.conflict is not None
        assert attempt.conflict["outcome"] == "approved"  # on the manager's list: charged after "not paid"


async def test_the_next_sale_is_never_answered_with_a_kept_outcome_of_another_order(sandbox, disk):
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.2)
    async with await Station.open(config_on(disk, sandbox, "ts-1001"), sandbox.keys["S"], training=True) as station:
        station.service.outcomes.save_retry = 30.0  # stays kept for this test

        def break_disk(event):
            if isinstance(event, PaymentProgress) and event.progress.phase is Phase.WAITING:
                disk.fill()

        unsubscribe = station.events.subscribe(break_disk)
        kept = await asyncio.wait_for(station.sale(2300, order_key="cart-first"), timeout=30)
        unsubscribe()
        assert kept.outcome is Outcome.APPROVED and not kept.saved
        disk.free()
        second = await station.sale(4100, order_key="cart-second")  # the terminal is still the kept one's
        assert second.refusal is Refusal.TERMINAL_BUSY and second.blocked_by == kept.attempt_id
        assert second.charged is None and len(sandbox.stats()["payments"]) == 1
        assert (await station.check_again(kept.attempt_id)) is kept  # the kept answer, not a new judgement
