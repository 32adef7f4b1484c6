"""A late approval after a manager's "not paid" (a conflict: the card WAS charged) blocks
another charge, card or cash, of the order, whether or not a total was recorded for it; end
to end, the app's second F12 on such an order charges nothing."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Attempt, Journal, OrderAlreadyPaid
from pos_app.station import Station
from pos_app.station.events import PaymentProgress
from tests.counters import cart_over, counter_for
from tests.journal.helpers import sale
from tests.waiting import wait_until_async


@pytest.fixture
def journal(tmp_path):
    opened = Journal.open(tmp_path / "journal.sqlite3")
    yield opened
    opened.close()


def _charged_after_not_paid(journal: Journal, order: str) -> None:
    first = sale(journal, order=order, amount=1000)
    journal.mark_sent(first.id)
    journal.finish(first.id, "unknown")
    journal.resolve_by_manager(first.id, paid=False, reason="customer says it failed", by="Mo", forced=True)
    # the service's answer arrives later: approved (what recorder.finish journals on InvalidResolution)
    journal.record(first.id, "late_answer", {"outcome": "approved", "transaction_id": "t-1", "payment_id": "p-1",
                                             "amount": 1000})
    assert journal.get(first.id).conflict


def test_without_a_recorded_total_the_late_approval_pays_the_order(journal):
    _charged_after_not_paid(journal, "cli-order")
    with pytest.raises(OrderAlreadyPaid):
        sale(journal, order="cli-order", amount=1000)


@pytest.mark.parametrize("second", ["card", "cash"])
def test_with_a_recorded_total_the_late_approval_does_not_count(journal, second):
    journal.record_order("app-order", subtotal=1000, tax=0, taxes={})
    _charged_after_not_paid(journal, "app-order")
    with pytest.raises(OrderAlreadyPaid):  # the customer's card was charged 1000 already
        if second == "card":
            sale(journal, order="app-order", amount=1000)
        else:
            journal.record_cash_sale("app-order", 1000)


async def _approved_after_not_paid(sandbox, station, counter) -> Attempt:
    """A type S card payment of a rung-up cart, still waiting when a manager decides "not
    paid" (forced: too early), then approved by the terminal: the attempt, its late approval kept."""
    polled: list[PaymentProgress] = []
    station.events.subscribe(lambda event: polled.append(event) if isinstance(event, PaymentProgress) else None)
    await cart_over(counter, 150)
    sandbox.set_faults(s_delay_min=2.0, s_delay_max=2.0)
    paying = asyncio.ensure_future(counter.pay())
    await wait_until_async(lambda: polled, what="the payment's first poll")
    [waiting] = await station.journal.in_flight()
    await station.service.resolve(waiting.id, paid=False, reason="customer walked off", by="Mo", force=True)
    await paying
    return waiting


async def test_a_second_f12_after_a_late_approval_charges_nothing(sandbox, tmp_path):
    """A type S payment is still waiting when a manager decides "not paid" (forced: too
    early); the terminal then approves it: the journal keeps a late approval (a conflict).
    F12 again (the screen shows the total due) is refused: the service has one charge."""
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="ts-1001",
                         poll_wait_limit=20.0, data_dir=tmp_path / "data")
    async with await Station.open(config, sandbox.keys["S"], training=True) as station:
        counter = await counter_for(station)
        try:
            waiting = await _approved_after_not_paid(sandbox, station, counter)
            assert (await station.journal.get(waiting.id)).conflict  # the late approval is kept
            sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.4)
            again = await counter.pay()
            assert not again.outcome.moved_money
            charges = [p for p in sandbox.stats()["payments"] if p.get("status") != "declined"]
            assert len(charges) == 1, "the customer was charged twice"
        finally:
            await counter.aclose()


async def test_an_order_settled_while_f12_waits_on_the_journal_is_not_charged_under_the_next_order(sandbox,
                                                                                                   tmp_path):
    """The race the run above met once in fifteen: F12 pressed while the counter's background
    re-read (after the manager's decision and the late approval) has not finished. The
    re-read settles the order and the cart starts a new one while F12 waits on the journal;
    the card request must still name the order F12 was pressed for (refused: paid), never
    the new order with the old one's amount. The re-read is made to finish inside that wait."""
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="ts-1001",
                         poll_wait_limit=20.0, data_dir=tmp_path / "data")
    async with await Station.open(config, sandbox.keys["S"], training=True) as station:
        counter = await counter_for(station)
        try:
            await _approved_after_not_paid(sandbox, station, counter)
            pressed_for = counter.cart.order_key
            journal_write = station.journal.record_order

            async def write_then_reread(*args, **kwargs):  # the background re-read lands during F12's wait
                await journal_write(*args, **kwargs)
                await counter._read_again()

            station.journal.record_order = write_then_reread
            again = await counter.pay()
            assert counter.cart.order_key != pressed_for  # the re-read settled the order meanwhile
            assert again.order_key == pressed_for and not again.outcome.moved_money
            charges = [p for p in sandbox.stats()["payments"] if p.get("status") != "declined"]
            assert len(charges) == 1, "the customer was charged twice"
        finally:
            await counter.aclose()
