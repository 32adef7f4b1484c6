"""The cash ledger and Z reports in the journal: an order's balance is judged in one place
for cards and cash (a split never charges the same cents twice), cash is durable before
the drawer opens, the ledger and the Z reports are append-only, Z numbers follow each
other and a second close of the same shift is refused."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from pos_app.journal import (
    AboveBalance,
    CashKind,
    InvalidTransition,
    Journal,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
)
from tests.journal.helpers import raw, sale


def _order(journal: Journal, key: str = "o-1", total: int = 2000) -> None:
    journal.record_order(key, subtotal=total, tax=0, taxes={})


def test_cash_pays_what_is_due_and_the_rest_is_change(journal):
    _order(journal, total=1553)
    entry = journal.record_cash_sale("o-1", 2000, station_id="lane-1", cashier="Ann")
    assert (entry.kind, entry.tendered, entry.amount, entry.change) == (CashKind.SALE, 2000, 1553, 447)
    assert (entry.station_id, entry.cashier, entry.order_key) == ("lane-1", "Ann", "o-1")
    with pytest.raises(OrderAlreadyPaid):
        journal.record_cash_sale("o-1", 100)
    with pytest.raises(OrderAlreadyPaid):  # nor a card for an order cash paid
        sale(journal, order="o-1", amount=100)


def test_a_split_card_then_cash_then_card_never_charges_above_the_balance(journal):
    _order(journal, total=3000)
    declined = sale(journal, amount=3000)
    journal.finish(declined.id, "declined")
    card = sale(journal, amount=1000)
    journal.finish(card.id, "approved", {"transaction_id": "t-1", "approved_amount": 1000})
    cash = journal.record_cash_sale("o-1", 500)
    assert (cash.amount, cash.change) == (500, 0)
    with pytest.raises(AboveBalance) as refused:
        sale(journal, amount=1600)
    assert refused.value.due == 1500
    last = sale(journal, amount=1500)
    journal.finish(last.id, "approved", {"transaction_id": "t-2"})
    with pytest.raises(OrderAlreadyPaid):
        sale(journal, amount=1)


def test_a_partial_approval_counts_for_what_it_approved(journal):
    _order(journal, total=1234)
    partial = sale(journal, amount=1234)
    journal.finish(partial.id, "partially_approved", {"transaction_id": "t-1", "approved_amount": 500})
    assert journal.record_cash_sale("o-1", 1000).amount == 734


def test_an_unknown_card_line_holds_the_order_against_cash(journal):
    _order(journal)
    unknown = sale(journal, amount=2000)
    journal.mark_sent(unknown.id)
    journal.finish(unknown.id, "unknown")
    with pytest.raises(OrderHasUnknownAttempt):
        journal.record_cash_sale("o-1", 2000)
    assert journal.order_cash("o-1") == []


def test_a_voided_charge_is_due_again(journal):
    _order(journal, total=1000)
    card = sale(journal, amount=1000)
    journal.finish(card.id, "approved", {"transaction_id": "t-9"})
    void = journal.begin_attempt(operation="void", terminal_id="T1", gateway="S", ref="t-9", request={})
    journal.finish(void.id, "approved", {})
    assert journal.record_cash_sale("o-1", 1000).amount == 1000


def test_a_refund_makes_its_part_due_again_and_a_return_recorded_leaves_nothing_due(journal):
    _order(journal, total=1000)
    card = sale(journal, amount=1000)
    journal.finish(card.id, "approved", {"transaction_id": "t-9"})
    unknown = journal.begin_attempt(operation="refund", terminal_id="T1", gateway="S", ref="t-9", amount=300,
                                    request={})
    journal.mark_sent(unknown.id)
    journal.finish(unknown.id, "unknown")  # not known to have given anything back: the order stays paid
    assert journal.order_charges("o-1") == {card.id: 1000}
    journal.finish(unknown.id, "declined")  # checked again: it gave nothing back
    refund = journal.begin_attempt(operation="refund", terminal_id="T1", gateway="S", ref="t-9", amount=300,
                                   request={})
    journal.finish(refund.id, "approved", {})
    assert journal.order_charges("o-1") == {card.id: 700}
    with pytest.raises(AboveBalance) as refused:
        sale(journal, amount=301)
    assert refused.value.due == 300
    journal.record_order("o-1", subtotal=700, tax=0, taxes={})  # a return: the items of 300 came back
    with pytest.raises(OrderAlreadyPaid):
        journal.record_cash_sale("o-1", 300)
    whole = journal.begin_attempt(operation="refund", terminal_id="T1", gateway="S", ref="t-9", amount=700,
                                  request={})
    journal.finish(whole.id, "approved", {})
    assert journal.order_charges("o-1") == {card.id: 0}  # refunded in full: kept, for nothing


def test_cash_needs_a_recorded_total_and_a_positive_whole_amount(journal):
    with pytest.raises(ValueError, match="no recorded total"):
        journal.record_cash_sale("o-none", 500)
    _order(journal)
    for bad in (0, -5, 12.5, True, "20"):
        with pytest.raises(ValueError, match="cash received"):
            journal.record_cash_sale("o-1", bad)  # type: ignore[arg-type]
    assert journal.order_cash("o-1") == []


def test_cash_given_back_is_at_most_what_the_order_kept(journal):
    _order(journal, total=800)
    journal.record_cash_sale("o-1", 1000)
    with pytest.raises(ValueError, match="kept 800"):
        journal.record_cash(CashKind.RETURN, 900, reason="cancelled", order_key="o-1")
    back = journal.record_cash(CashKind.RETURN, 800, reason="cancelled", order_key="o-1", cashier="Mo")
    assert back.drawer_change == -800
    assert journal.record_cash_sale("o-1", 800).amount == 800  # due again once given back


def test_movements_need_a_reason_and_sensible_amounts(journal):
    with pytest.raises(ValueError, match="reason"):
        journal.record_cash(CashKind.CASH_OUT, 500, reason=" ")
    with pytest.raises(ValueError, match="above zero"):
        journal.record_cash(CashKind.CASH_IN, 0, reason="float")
    with pytest.raises(ValueError, match="only then names one"):
        journal.record_cash(CashKind.CASH_IN, 100, reason="x", order_key="o-1")
    assert journal.record_cash(CashKind.NO_SALE, 0, reason="change for a note").drawer_change == 0


def test_the_ledger_and_z_reports_are_append_only(journal, path):
    _order(journal)
    journal.record_cash_sale("o-1", 2000)
    last, moves = journal.shift_cash()
    journal.close_z(station_id="lane-1", terminal_id="T1", opening_float=0, expected=2000, counted=2000,
                    left_in_drawer=0, by="Mo", last_seq=moves[-1].seq, after=None)
    conn = raw(path)
    try:
        for sql in ("UPDATE cash SET amount = 1", "DELETE FROM cash", "UPDATE z_reports SET counted = 1",
                    "DELETE FROM z_reports"):
            with pytest.raises(sqlite3.DatabaseError):
                conn.execute(sql)
    finally:
        conn.close()


def test_z_reports_are_numbered_and_each_shift_counts_only_its_own_cash(journal):
    _order(journal, "o-1", 1000)
    journal.record_cash_sale("o-1", 1000)
    journal.record_cash(CashKind.CASH_OUT, 300, reason="to the safe")
    last, moves = journal.shift_cash()
    assert last is None and [m.drawer_change for m in moves] == [1000, -300]
    first = journal.close_z(station_id="lane-1", terminal_id="T1", opening_float=0, expected=700, counted=690,
                            left_in_drawer=100, by="Mo", last_seq=moves[-1].seq, after=None, reason="miscount",
                            figures={"card_taken": 5})
    assert (first.label, first.over_short, dict(first.figures)) == ("Z-0001", -10, {"card_taken": 5})
    with pytest.raises(InvalidTransition, match="Z-0001"):  # the same shift closed twice (a race)
        journal.close_z(station_id="lane-1", terminal_id="T1", opening_float=0, expected=700, counted=700,
                        left_in_drawer=0, by="Mo", last_seq=moves[-1].seq, after=None)
    last, moves = journal.shift_cash()
    assert last == first and moves == []
    second = journal.close_z(station_id="lane-1", terminal_id="T1", opening_float=100, expected=100, counted=100,
                             left_in_drawer=100, by="Mo", last_seq=first.last_seq, after=1)
    assert second.label == "Z-0002"
    assert [z.number for z in journal.z_reports()] == [1, 2]


def test_a_cash_line_is_on_disk_when_the_call_returns(path, tmp_path):
    """A process that records cash and is killed at once (os._exit, no close) leaves the line."""
    script = tmp_path / "cash_and_die.py"
    script.write_text(
        "import os, sys\n"
        "from pos_app.journal import Journal\n"
        "journal = Journal.open(sys.argv[1])\n"
        "journal.record_order('o-k', subtotal=999, tax=0, taxes={})\n"
        "journal.record_cash_sale('o-k', 1000)\n"
        "os._exit(0)\n")
    subprocess.run([sys.executable, str(script), str(path)], check=True, timeout=60)
    with Journal.open(path) as again:
        [entry] = again.order_cash("o-k")
    assert (entry.amount, entry.change) == (999, 1)
