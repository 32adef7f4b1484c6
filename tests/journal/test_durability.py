"""Durability and the append-only record: what a crash leaves behind tells what to do next."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pos_app.journal import (
    Journal,
    Operation,
    OrderAlreadyPaid,
    Outcome,
    RefHasPendingFollowUp,
    TerminalBusy,
)
from tests.journal.helpers import count, raw, sale

ROOT = Path(__file__).resolve().parents[2]


def test_journal_uses_wal_and_full_sync(journal):
    conn = journal._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_open_creates_missing_parent_folders(tmp_path):
    path = tmp_path / "a" / "b" / "journal.db"
    with Journal.open(path):
        pass
    assert path.is_file()


def test_begin_attempt_is_committed_before_it_returns(journal, path):
    attempt = sale(journal)
    # Still no mark_sent: a second connection (as another process would) already sees it.
    other = raw(path)
    try:
        row = other.execute("SELECT id, operation, terminal_id, amount FROM attempts").fetchone()
        assert row == (attempt.id, "sale", "T1", 1250)
        assert other.execute("SELECT attempt_id FROM open_attempts").fetchall() == [(attempt.id,)]
        assert not journal._conn.in_transaction
    finally:
        other.close()


def test_each_event_is_committed_before_the_call_returns(journal, path):
    attempt = sale(journal)
    journal.mark_sent(attempt.id)
    assert count(path, "events") == 1
    journal.record(attempt.id, "msg_identifier", {"msgIdentifier": "m-1"})
    assert count(path, "events") == 2
    journal.finish(attempt.id, Outcome.APPROVED, {"paymentId": "p-1"})
    assert count(path, "events") == 3
    assert count(path, "open_attempts") == 0


def test_rows_are_only_ever_inserted(journal, path):
    statements: list[str] = []
    journal._conn.set_trace_callback(statements.append)
    seen = [count(path, "events")]

    first = sale(journal, "T1", "o-1")
    for step in (
        lambda: journal.mark_sent(first.id),
        lambda: journal.record(first.id, "msg_identifier", {"msgIdentifier": "m-1"}),
        lambda: journal.record(first.id, "poll_status", {"status": "processing", "elapsed": 2.0}),
        lambda: journal.record(first.id, "poll_status", {"status": "timeout", "elapsed": 120.0}),
        lambda: journal.finish(first.id, Outcome.UNKNOWN, {"msgIdentifier": "m-1"}),
        lambda: journal.resolve_by_manager(first.id, paid=False, reason="no card charge on the slip", by="Ann"),
    ):
        step()
        seen.append(count(path, "events"))
    second = sale(journal, "T1", "o-2")
    journal.mark_sent(second.id)
    journal.finish(second.id, Outcome.APPROVED, {"transactionId": "t-2"})
    seen.append(count(path, "events"))
    journal.get(first.id)
    journal.in_flight()

    assert seen == sorted(seen) and seen[-1] == 8
    writes = [s for s in statements if re.match(r"\s*(UPDATE|DELETE|REPLACE|INSERT\s+OR\s+REPLACE)\b", s, re.I)]
    # The only delete is the open_attempts index row of an attempt reaching a final outcome.
    assert writes and all(re.match(r"\s*DELETE FROM open_attempts\b", s) for s in writes)
    assert len(writes) == 2


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE attempts SET amount = 1",
        "DELETE FROM attempts",
        "UPDATE events SET data = '{}'",
        "DELETE FROM events",
        "UPDATE open_attempts SET terminal_id = 'x'",
    ],
)
def test_the_file_itself_refuses_update_and_delete(journal, path, statement):
    attempt = sale(journal)
    journal.mark_sent(attempt.id)
    other = raw(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only|only inserted"):
            other.execute(statement)
    finally:
        other.close()


def test_in_flight_after_close_without_finish(path):
    journal = Journal.open(path)
    never_sent = sale(journal, "T1", "o-1")
    sent = sale(journal, "T2", "o-2", 990, gateway="B")
    journal.mark_sent(sent.id)
    polled = sale(journal, "T3", "o-3", 777)
    journal.mark_sent(polled.id)
    journal.record(polled.id, "msg_identifier", {"msgIdentifier": "m-3"})
    journal.record(polled.id, "poll_status", {"status": "processing", "elapsed": 3.1})
    done = sale(journal, "T4", "o-4")
    journal.finish(done.id, Outcome.DECLINED, {"transactionId": "t-4"})
    journal.close()  # the process "dies" here: nothing else is written

    with Journal.open(path) as reopened:
        found = {a.id: a for a in reopened.in_flight()}
        assert set(found) == {never_sent.id, sent.id, polled.id}
        assert found[never_sent.id].sent is False
        assert (found[sent.id].sent, found[sent.id].gateway, found[sent.id].amount) == (True, "B", 990)
        resumed = found[polled.id]
        assert (resumed.operation, resumed.terminal_id, resumed.msg_identifier, resumed.last_status) == (
            "sale", "T3", "m-3", "processing"
        )
        assert resumed.outcome is None and resumed.events == ()
        # Its terminal stays busy until the terminal service resumes it.
        from pos_app.journal import TerminalBusy

        with pytest.raises(TerminalBusy):
            sale(reopened, "T3", "o-9")


@pytest.mark.parametrize(("stage", "sent", "msg"), [("begun", False, None), ("msg", True, "m-crash")])
def test_in_flight_after_the_process_is_killed(tmp_path, stage, sent, msg):
    path = tmp_path / "journal.db"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.journal.crash_worker", str(path), stage],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        attempt_id = child.stdout.readline().strip()
        assert attempt_id.startswith("a-"), attempt_id
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        child.stdin.close()
        child.stdout.close()

    with Journal.open(path) as journal:
        [left] = journal.in_flight()
        assert (left.id, left.sent, left.msg_identifier, left.amount, left.terminal_id) == (
            attempt_id, sent, msg, 4321, "T-crash"
        )


def test_an_unknown_sale_holds_its_terminal_for_sales_but_not_for_follow_ups(journal):
    attempt = sale(journal, "T1", "o-1")
    journal.mark_sent(attempt.id)
    journal.finish(attempt.id, Outcome.UNKNOWN, {"msgIdentifier": "m-1"})
    [left] = journal.in_flight()
    assert left.id == attempt.id and left.outcome is Outcome.UNKNOWN and left.msg_identifier == "m-1"
    for operation in (Operation.SALE, Operation.PREAUTH):  # with or without an order number
        for order in ("o-2", None):
            with pytest.raises(TerminalBusy) as refused:
                journal.begin_attempt(operation=operation, terminal_id="T1", gateway="S", amount=500,
                                      order_key=order, request={})
            assert refused.value.unknown and refused.value.attempt_id == attempt.id
    refund = journal.begin_attempt(operation=Operation.REFUND, terminal_id="T1", gateway="S", amount=100,
                                   ref="t-9", request={})
    journal.finish(refund.id, Outcome.APPROVED)
    other_lane = sale(journal, "T2", "o-2")
    journal.resolve_by_manager(attempt.id, paid=False, reason="no charge on the terminal", by="mgr")
    freed = sale(journal, "T1", "o-3")
    assert {a.id for a in journal.in_flight()} == {other_lane.id, freed.id}


def test_a_follow_up_on_a_reference_with_an_unresolved_follow_up_is_refused(journal):
    first = journal.begin_attempt(operation=Operation.REFUND, terminal_id="T1", gateway="B", amount=300,
                                  ref="t-1", request={})
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN)
    for operation, amount in ((Operation.REFUND, 300), (Operation.VOID, None), (Operation.CAPTURE, 300)):
        with pytest.raises(RefHasPendingFollowUp) as refused:
            journal.begin_attempt(operation=operation, terminal_id="T2", gateway="B", amount=amount,
                                  ref="t-1", request={})
        assert refused.value.attempt_id == first.id and refused.value.ref == "t-1"
    other_ref = journal.begin_attempt(operation=Operation.REFUND, terminal_id="T2", gateway="B", amount=300,
                                      ref="t-2", request={})
    journal.finish(other_ref.id, Outcome.APPROVED)
    journal.finish(first.id, Outcome.APPROVED)
    again = journal.begin_attempt(operation=Operation.REFUND, terminal_id="T1", gateway="B", amount=1,
                                  ref="t-1", request={})
    assert again.ref == "t-1"


def test_a_late_approval_after_a_not_paid_decision_makes_the_order_paid_and_is_a_conflict(journal):
    attempt = sale(journal, "T1", "o-late")
    journal.mark_sent(attempt.id)
    journal.resolve_by_manager(attempt.id, paid=False, reason="customer left", by="mgr")
    assert journal.get(attempt.id).conflict is None
    journal.record(attempt.id, "late_answer", {"outcome": "approved", "payment_id": "p-1"})
    decided = journal.get(attempt.id)
    assert decided.outcome is Outcome.FAILED and decided.conflict == {"outcome": "approved", "payment_id": "p-1"}
    with pytest.raises(OrderAlreadyPaid):
        sale(journal, "T2", "o-late")


def test_payment_for_ref_reads_the_payment_an_outcome_recorded(journal):
    attempt = sale(journal, "T1", "o-ref")
    journal.finish(attempt.id, Outcome.APPROVED, {"transaction_id": "t-77", "payment_id": "p-77"})
    assert journal.payment_for_ref("t-77") == "p-77"
    assert journal.payment_for_ref("t-78") is None


def test_get_returns_every_event_in_order(journal):
    attempt = sale(journal)
    journal.mark_sent(attempt.id)
    journal.record(attempt.id, "msg_identifier", {"msgIdentifier": "m-1"})
    journal.record(attempt.id, "poll_status", {"status": "complete", "paymentId": "p-1"})
    done = journal.finish(attempt.id, Outcome.APPROVED, {"paymentId": "p-1", "last4": "4242"})
    got = journal.get(attempt.id)
    assert got == done
    assert [e.kind for e in got.events] == ["sent", "msg_identifier", "poll_status", "outcome"]
    assert [e.seq for e in got.events] == sorted(e.seq for e in got.events)
    assert all(e.at.tzinfo is not None and e.attempt_id == attempt.id for e in got.events)
    assert got.result == {"paymentId": "p-1", "last4": "4242"}
    assert got.created_at.utcoffset().total_seconds() == 0
