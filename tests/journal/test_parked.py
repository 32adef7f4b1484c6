"""Orders parked on a payment link, in the journal (schema version 12): a parking is written
before its link is asked for, at most one is live per order, "paid" goes in once per order
whoever sees it (a second sighting, a second process on the same file), the rows are
append-only and a restart reads what was waiting."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from pos_app.journal import Journal, ParkingRefused, ParkStage

LINK_ID = "65a1c0de00000000000000aa"


def park(journal: Journal, order_key: str = "o-1", amount: int = 1299):
    return journal.begin_parking(order_key, amount, contact="(555) 123-4567", cart='{"lines": []}', cashier="Ann")


def test_a_parking_is_written_before_its_link_then_follows_it_to_paid_and_receipted(journal):
    parking = park(journal)
    assert parking.stage is ParkStage.PARKING and parking.waiting and parking.link_id is None
    parked = journal.record_link(parking, LINK_ID, "https://pay.example/l")
    assert parked.stage is ParkStage.PARKED and parked.link_id == LINK_ID and parked.amount == 1299
    paid = journal.record_link_paid(parked, payment_id="pay-1", surcharge=39, detail="seen paid")
    assert paid is not None and paid.paid and paid.payment_id == "pay-1" and paid.surcharge == 39
    assert journal.record_receipt(paid).stage is ParkStage.RECEIPTED
    assert journal.record_receipt(paid) is None  # once
    assert journal.parking(parking.parking_id).stage is ParkStage.RECEIPTED


def test_a_link_seen_paid_twice_completes_its_order_once_even_from_another_process(journal, path):
    parked = journal.record_link(park(journal), LINK_ID, None)
    other = Journal.open(path)
    try:
        assert other.record_link_paid(parked, payment_id="pay-1", surcharge=0, detail="first") is not None
        assert journal.record_link_paid(parked, payment_id="pay-1", surcharge=0, detail="again") is None
        assert other.record_link_paid(parked, payment_id="pay-1", surcharge=0, detail="again") is None
    finally:
        other.close()
    rows = sqlite3.connect(path).execute("SELECT count(*) FROM parked_orders WHERE stage = 'paid'").fetchone()
    assert rows == (1,)


def test_one_live_parking_per_order_and_none_after_it_was_paid(journal):
    first = park(journal)
    with pytest.raises(ParkingRefused, match="already waiting on a payment link"):
        park(journal)
    journal.end_parking(first, ParkStage.FAILED, "the service refused the link")
    second = journal.record_link(park(journal), LINK_ID, None)
    journal.end_parking(second, ParkStage.RETURNED, "cancelled by the cashier")
    third = journal.record_link(park(journal), LINK_ID, None)
    journal.record_link_paid(third, payment_id="pay-1", surcharge=0, detail="paid")
    with pytest.raises(ParkingRefused, match="paid by its payment link already"):
        park(journal)
    with pytest.raises(ParkingRefused, match="cannot be paid now"):
        journal.record_link_paid(second, payment_id="pay-2", surcharge=0, detail="late")


def test_stages_out_of_turn_and_bad_amounts_are_refused(journal):
    parking = park(journal)
    with pytest.raises(ParkingRefused, match="cannot be paid now"):
        journal.record_link_paid(parking, payment_id="p", surcharge=0, detail="no link yet")
    journal.end_parking(parking, ParkStage.RETURNED, "back")
    with pytest.raises(ParkingRefused, match="cannot be parked now"):
        journal.record_link(parking, LINK_ID, None)
    with pytest.raises(ValueError, match="above zero"):
        park(journal, "o-2", 0)
    with pytest.raises(ValueError, match="returned or failed"):
        journal.end_parking(parking, ParkStage.PAID, "no")


def test_the_list_holds_what_waits_and_what_moved_since_and_survives_a_reopen(journal, path):
    waiting = journal.record_link(park(journal, "o-1"), LINK_ID, None)
    done = journal.record_link(park(journal, "o-2"), LINK_ID, None)
    journal.record_link_paid(done, payment_id="pay-1", surcharge=0, detail="paid")
    assert [p.order_key for p in journal.parked_orders()] == ["o-1"]
    since = datetime.now(UTC) - timedelta(hours=1)
    assert [(p.order_key, p.stage) for p in journal.parked_orders(since=since)] == [
        ("o-1", ParkStage.PARKED), ("o-2", ParkStage.PAID)]
    journal.close()
    again = Journal.open(path)
    try:
        assert again.parked_orders() == [waiting]
    finally:
        again.close()


def test_parked_rows_are_append_only(journal, path):
    park(journal)
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE parked_orders SET stage = 'paid'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM parked_orders")
