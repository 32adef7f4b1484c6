"""What an order sold and what came back, in the journal (schema version 9): the lines of
the cart sent to be paid are kept with its totals (the latest row that has them), a return
is written before any money moves and then ended, both append-only; cash given back for a
card sale is at most what the order's cards and cash took."""

from __future__ import annotations

import sqlite3

import pytest

from pos_app.journal import CashKind, Journal, OrderLine, Outcome, ReturnStage
from tests.journal.helpers import raw, sale

LINES = [OrderLine(1, "Coffee beans", "SKU-1", 1200, 2, 198), OrderLine(2, "Mug", None, 800, 1, 66)]


def test_an_orders_lines_are_kept_with_its_totals_and_the_latest_row_that_has_them_counts(journal):
    assert journal.order_lines("o-1") is None
    journal.record_order("o-1", subtotal=3200, tax=264, taxes={"State": 264}, lines=LINES)
    assert journal.order_lines("o-1") == LINES
    journal.record_order("o-1", subtotal=2400, tax=198, taxes={"State": 198}, lines=LINES[:1])
    assert journal.order_lines("o-1") == LINES[:1]
    journal.record_order("o-1", subtotal=1200, tax=99, taxes={})  # a return's totals: no lines
    assert journal.order_lines("o-1") == LINES[:1]
    assert journal.order_totals(["o-1"])["o-1"][-1].total == 1299


def test_lines_that_make_no_sense_are_refused(journal):
    with pytest.raises(ValueError, match="quantity"):
        OrderLine(1, "x", None, 100, 0)
    with pytest.raises(ValueError, match="own line id"):
        journal.record_order("o-1", subtotal=200, tax=0, taxes={}, lines=[LINES[0], LINES[0]])
    with pytest.raises(ValueError, match="OrderLine"):
        journal.record_order("o-1", subtotal=200, tax=0, taxes={}, lines=[{"line_id": 1}])  # type: ignore[list-item]
    assert journal.order_lines("o-1") is None


def test_a_return_is_begun_then_ended_and_append_only(journal, path):
    journal.record_order("o-1", subtotal=3200, tax=264, taxes={}, lines=LINES)
    begun = journal.begin_return("o-1", {1: 1}, 1299, by="Mo", reason="broken")
    assert (begun.stage, dict(begun.lines), begun.amount, begun.by) == (ReturnStage.BEGUN, {1: 1}, 1299, "Mo")
    ended = journal.end_return(begun, given_back=1299)
    assert (ended.return_id, ended.stage, ended.amount) == (begun.return_id, ReturnStage.DONE, 1299)
    stopped = journal.end_return(journal.begin_return("o-1", {2: 1}, 866, by="Mo", reason="x"), given_back=0,
                                 problem="the refund is unknown")
    assert stopped.stage is ReturnStage.STOPPED and stopped.detail == "the refund is unknown"
    assert [r.stage for r in journal.order_returns("o-1")] == [ReturnStage.BEGUN, ReturnStage.DONE,
                                                               ReturnStage.BEGUN, ReturnStage.STOPPED]
    with pytest.raises(ValueError, match="quantities"):
        journal.begin_return("o-1", {1: 0}, 100, by="Mo", reason="x")
    with pytest.raises(ValueError, match="reason"):
        journal.begin_return("o-1", {1: 1}, 100, by="Mo", reason=" ")
    conn = raw(path)
    try:
        for sql in ("UPDATE order_returns SET amount = 1", "DELETE FROM order_returns",
                    "UPDATE orders SET lines = NULL"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(sql)
    finally:
        conn.close()


def test_cash_given_back_for_a_card_sale_is_at_most_what_the_order_took(journal):
    journal.record_order("o-1", subtotal=2000, tax=0, taxes={})
    attempt = sale(journal, order="o-1", amount=1500)
    journal.finish(attempt.id, Outcome.APPROVED, {"transaction_id": "t-1", "payment_id": "p-1"})
    journal.record_cash_sale("o-1", 500)
    with pytest.raises(ValueError, match="in cash"):  # without the manager's option: the cash only
        journal.record_cash(CashKind.RETURN, 600, reason="x", order_key="o-1")
    with pytest.raises(ValueError, match="in all"):
        journal.record_cash(CashKind.RETURN, 2001, reason="x", order_key="o-1", for_card=True)
    back = journal.record_cash(CashKind.RETURN, 2000, reason="card refunded in cash", order_key="o-1", for_card=True)
    assert back.drawer_change == -2000


def test_a_version_8_journal_gains_lines_and_returns(tmp_path):
    from pos_app.journal.schema import MIGRATIONS
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:8]:
        for sql in step:
            conn.execute(sql)
    conn.execute("PRAGMA user_version = 8")
    conn.execute("INSERT INTO orders (order_key, recorded_at, subtotal, tax, total, taxes) "
                 "VALUES ('o-old', '2024-01-01T00:00:00.000000+00:00', 100, 0, 100, '{}')")
    conn.close()
    with Journal.open(path) as journal:
        assert journal.order_lines("o-old") is None and journal.order_returns("o-old") == []
        journal.record_order("o-new", subtotal=3200, tax=264, taxes={}, lines=LINES)
        assert journal.order_lines("o-new") == LINES
