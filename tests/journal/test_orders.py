"""Order totals in the journal: each cart sent to be paid leaves its subtotal, tax, total and
tax by name, append-only; the totals an attempt paid are the latest recorded before it began;
totals that make no sense are refused with a sentence and nothing is written."""

from __future__ import annotations

import sqlite3

import pytest

from pos_app.journal import Journal, OrderTotals
from pos_app.journal.threaded import AsyncJournal
from tests.journal.helpers import Clock, count, raw, sale


def test_an_orders_totals_are_kept_and_read_back_by_order_key(path):
    with Journal.open(path) as journal:
        journal.record_order("o-1", subtotal=2000, tax=165, taxes={"State sales tax": 125, "City tax": 40})
        journal.record_order("o-2", subtotal=599, tax=0, taxes={})
        found = journal.order_totals(["o-1", "o-2", "o-nothing"])
    with Journal.open(path) as again:  # durable: a new process reads the same
        assert again.order_totals(["o-1"]) == {"o-1": found["o-1"]}
    assert set(found) == {"o-1", "o-2"}
    [first] = found["o-1"]
    assert (first.subtotal, first.tax, first.total) == (2000, 165, 2165)
    assert dict(first.taxes) == {"City tax": 40, "State sales tax": 125}
    assert found["o-2"][0].total == 599 and dict(found["o-2"][0].taxes) == {}


def test_an_attempt_paid_the_totals_recorded_last_before_it_began(path):
    clock = Clock()
    with Journal.open(path, clock=clock) as journal:
        journal.record_order("o-1", subtotal=1000, tax=80, taxes={})
        clock.advance(seconds=1)
        declined = sale(journal, order="o-1", amount=1080)
        journal.finish(declined.id, "declined")
        clock.advance(seconds=30)  # the cashier adds a line and pays again
        journal.record_order("o-1", subtotal=1500, tax=120, taxes={})
        clock.advance(seconds=1)
        approved = sale(journal, order="o-1", amount=1620)
        rows = journal.order_totals(["o-1"])["o-1"]
    assert [row.total for row in rows] == [1080, 1620]
    assert OrderTotals.of(rows, declined.created_at).total == 1080
    assert OrderTotals.of(rows, approved.created_at).total == 1620
    assert OrderTotals.of(rows, rows[0].recorded_at.replace(year=2000)) is None


@pytest.mark.parametrize(("key", "subtotal", "tax", "taxes", "said"), [
    ("", 1000, 80, {}, "order key"),
    ("o-1", 10.5, 80, {}, "subtotal must be a whole number of cents"),
    ("o-1", 1000, True, {}, "tax must be a whole number of cents"),
    ("o-1", 1000, -1, {}, "tax cannot be negative"),
    ("o-1", 1000, 80, {"State": 7.5}, "map each tax name to cents"),
    ("o-1", 1000, 80, [("State", 80)], "map each tax name to cents"),
])
def test_totals_that_make_no_sense_are_refused_and_nothing_is_written(path, key, subtotal, tax, taxes, said):
    with Journal.open(path) as journal:
        with pytest.raises(ValueError, match=said):
            journal.record_order(key, subtotal=subtotal, tax=tax, taxes=taxes)
    assert count(path, "orders") == 0


def test_orders_are_append_only(journal, path):
    journal.record_order("o-1", subtotal=1000, tax=80, taxes={"State sales tax": 80})
    conn = raw(path)
    try:
        for statement in ("UPDATE orders SET tax = 0", "DELETE FROM orders"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(statement)
        with pytest.raises(sqlite3.IntegrityError):  # the total is the subtotal plus the tax, or nothing
            conn.execute("INSERT INTO orders (order_key, recorded_at, subtotal, tax, total) "
                         "VALUES ('o-2', '2026-03-07T12:00:00.000000+00:00', 1000, 80, 1000)")
    finally:
        conn.close()
    assert journal.order_totals(["o-1"])["o-1"][0].tax == 80


async def test_the_threaded_journal_records_and_reads_on_its_own_thread(path):
    journal = await AsyncJournal.open(path)
    try:
        await journal.record_order("o-1", subtotal=1000, tax=80, taxes={"State sales tax": 80})
        found = await journal.order_totals(iter(["o-1"]))
    finally:
        await journal.close()
    assert found["o-1"][0].total == 1080
