"""A late approval after a manager's "not paid" (a conflict: the card WAS charged) blocks
another charge, card or cash, of the order, whether or not a total was recorded for it."""

from __future__ import annotations

import pytest

from pos_app.journal import Journal, OrderAlreadyPaid
from tests.journal.helpers import sale


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
    print("\nbalance counts:", journal.order_charges("app-order"))
    with pytest.raises(OrderAlreadyPaid):  # the customer's card was charged 1000 already
        if second == "card":
            sale(journal, order="app-order", amount=1000)
        else:
            journal.record_cash_sale("app-order", 1000)


# end to end: the app's counter, the sandbox over HTTP
from pos_app.config import StoreConfig  # noqa: E402
from pos_app.station import Station  # noqa: E402
from tests.counters import counter_for  # noqa: E402
from tests.station.test_tenders import cart_over  # noqa: E402


async def test_the_app_charges_the_card_again_after_a_late_approval(sandbox, tmp_path):
    """A type S payment is still waiting when a manager decides "not paid" (forced: too early);
    the terminal then approves it: the journal keeps a late approval (a conflict, "the order
    counts as paid"). F12 again charges the whole total a second time."""
    import asyncio

    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="ts-1001",
                         poll_wait_limit=20.0, data_dir=tmp_path / "data")
    async with await Station.open(config, sandbox.keys["S"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 150)
            sandbox.set_faults(s_delay_min=2.0, s_delay_max=2.0)
            paying = asyncio.ensure_future(counter.pay())
            await asyncio.sleep(0.7)
            [waiting] = await station.journal.in_flight()
            decided = await station.service.resolve(waiting.id, paid=False, reason="customer walked off", by="Mo",
                                                    force=True)
            print("\ndecided:", decided.outcome, decided.refusal, decided.message)
            first = await paying
            print("first F12:", first.outcome, first.message)
            attempt = await station.journal.get(waiting.id)
            print("conflict:", attempt.conflict)
            sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.4)
            again = await counter.pay()  # the screen shows the whole total due
            print("second F12:", again.outcome, again.refusal, again.message)
            charges = [p for p in sandbox.stats()["payments"] if p.get("status") != "declined"]
            print("card charges at the service:", [(p["amount"], p["status"]) for p in charges])
            assert len(charges) == 1, f"the customer was charged {total} twice"
        finally:
            await counter.aclose()
