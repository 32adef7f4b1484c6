"""The manager's views: the day's summary in cents, and reconciliation with the service list."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from pos_app.journal import Journal, Operation, Outcome
from tests.journal.helpers import Clock, sale

NY = "America/New_York"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def timed(path, clock):
    with Journal.open(path, clock=clock) as journal:
        yield journal


def at(clock, *args):
    clock.now = datetime(*args, tzinfo=UTC)


def test_summary_counts_and_totals_per_terminal_operation_outcome(timed, clock):
    # 2026-03-07 in New York is 05:00 UTC on the 7th to 05:00 UTC on the 8th (EST, -5).
    at(clock, 2026, 3, 7, 4, 59)  # 23:59 on the 6th in New York: another day
    timed.finish(sale(timed, "T1", "o-early", 100_00).id, Outcome.APPROVED)
    at(clock, 2026, 3, 7, 5, 0)
    timed.finish(sale(timed, "T1", "o-1", 12_50).id, Outcome.APPROVED)
    timed.finish(sale(timed, "T1", "o-2", 7_25).id, Outcome.APPROVED)
    timed.finish(sale(timed, "T1", "o-3", 3_00).id, Outcome.DECLINED)
    refund = timed.begin_attempt(operation=Operation.REFUND, terminal_id="T1", gateway="B", amount=2_00,
                                 ref="t-1", request={"pnRefNum": "t-1", "amount": 2_00})
    timed.finish(refund.id, Outcome.APPROVED)
    void = timed.begin_attempt(operation=Operation.VOID, terminal_id="T2", gateway="B", ref="t-2", request={})
    timed.finish(void.id, Outcome.APPROVED)
    unknown = sale(timed, "T2", "o-4", 50_00)
    timed.finish(unknown.id, Outcome.UNKNOWN)
    at(clock, 2026, 3, 8, 4, 59, 59)  # 23:59:59 on the 7th in New York
    sale(timed, "T3", "o-5", 9_99)  # still in flight
    at(clock, 2026, 3, 8, 5, 0)
    timed.finish(sale(timed, "T4", "o-late", 1_00).id, Outcome.APPROVED)

    summary = timed.summary(date(2026, 3, 7), tz=NY)
    table = {(line.terminal_id, line.operation, line.outcome): (line.count, line.total) for line in summary.lines}
    assert table == {
        ("T1", Operation.SALE, Outcome.APPROVED): (2, 19_75),
        ("T1", Operation.SALE, Outcome.DECLINED): (1, 3_00),
        ("T1", Operation.REFUND, Outcome.APPROVED): (1, 2_00),
        ("T2", Operation.VOID, Outcome.APPROVED): (1, 0),
        ("T2", Operation.SALE, Outcome.UNKNOWN): (1, 50_00),
        ("T3", Operation.SALE, None): (1, 9_99),
    }
    assert summary.tz == NY and summary.day == date(2026, 3, 7)
    assert summary.totals(operation=Operation.SALE, outcomes=[Outcome.APPROVED]) == (2, 19_75)
    assert summary.totals(terminal_id="T1") == (4, 24_75)
    assert summary.totals(outcomes=[None, Outcome.UNKNOWN]) == (2, 59_99)
    assert summary.by_terminal()["T2"][Operation.SALE][Outcome.UNKNOWN].total == 50_00
    assert [line.terminal_id for line in summary.lines] == sorted(line.terminal_id for line in summary.lines)
    # The same instants seen from UTC fall on other days.
    assert timed.summary(date(2026, 3, 7), tz="UTC").totals(terminal_id="T1") == (5, 124_75)


def test_summary_counts_a_resolved_unknown_under_its_final_outcome(timed, clock):
    first = sale(timed, "T1", "o-1", 5_00)
    timed.finish(first.id, Outcome.UNKNOWN)
    timed.resolve_by_manager(first.id, paid=True, reason="slip", by="Ann")
    summary = timed.summary(clock.now.date(), tz="UTC")
    assert summary.totals(outcomes=[Outcome.APPROVED]) == (1, 5_00)
    assert summary.totals(outcomes=[Outcome.UNKNOWN]) == (0, 0)


def test_summary_day_follows_daylight_saving(timed, clock):
    # 2026-03-08 in New York is 23 hours long: 05:00 UTC to 04:00 UTC next day.
    at(clock, 2026, 3, 9, 3, 30)  # 23:30 EDT on the 8th
    timed.finish(sale(timed, "T1", "o-1", 1_00).id, Outcome.APPROVED)
    at(clock, 2026, 3, 9, 4, 30)  # 00:30 EDT on the 9th
    timed.finish(sale(timed, "T1", "o-2", 2_00).id, Outcome.APPROVED)
    assert timed.summary(date(2026, 3, 8), tz=NY).totals() == (1, 1_00)
    assert [a.order_key for a in timed.attempts(day=date(2026, 3, 9), tz=NY)] == ["o-2"]


def test_attempts_filters_by_day_and_terminal(timed, clock):
    a = sale(timed, "T1", "o-1")
    timed.finish(a.id, Outcome.APPROVED)
    b = sale(timed, "T2", "o-2")
    clock.advance(days=1)
    c = sale(timed, "T1", "o-3")
    assert [x.id for x in timed.attempts()] == [a.id, b.id, c.id]
    assert [x.id for x in timed.attempts(terminal_id="T1")] == [a.id, c.id]
    assert [x.id for x in timed.attempts(day=date(2026, 3, 7), tz="UTC")] == [a.id, b.id]
    assert [x.id for x in timed.attempts(day=date(2026, 3, 8), terminal_id="T1", tz="UTC")] == [c.id]
    assert timed.attempts(day=date(2026, 3, 7), tz="UTC")[0].outcome is Outcome.APPROVED
    assert all(x.events == () for x in timed.attempts())
    assert [x.id for x in timed.attempts(since=c.created_at)] == [c.id]
    assert [x.id for x in timed.attempts(since=a.created_at, terminal_id="T1")] == [a.id, c.id]


# -- reconciliation ------------------------------------------------------------------------


def entry(attempt_id=None, *, transaction=None, payment=None, amount=1250, error=None, **extra):
    agent = "pos-app/0.1.0 (store 7; station 2; cashier 11"
    agent += f"; attempt {attempt_id})" if attempt_id else ")"
    return {"transactionId": transaction, "paymentId": payment, "amount": amount, "userAgent": agent,
            "error": error, **extra}


def test_reconcile_both_directions(journal):
    by_agent = sale(journal, "T1", "o-1")
    journal.finish(by_agent.id, Outcome.APPROVED, {"transactionId": "t-1", "paymentId": "p-1"})
    by_transaction = sale(journal, "T1", "o-2")
    journal.finish(by_transaction.id, Outcome.APPROVED, {"transactionId": "t-2"})
    by_payment = sale(journal, "T1", "o-3")
    journal.record(by_payment.id, "poll_status", {"status": "complete", "paymentId": "p-3"})
    journal.finish(by_payment.id, Outcome.APPROVED, {})
    missing_at_service = sale(journal, "T1", "o-4")
    journal.finish(missing_at_service.id, Outcome.APPROVED, {"transactionId": "t-4"})
    declined = sale(journal, "T1", "o-5")
    journal.finish(declined.id, Outcome.DECLINED, {"transactionId": "t-5"})
    never_reached = sale(journal, "T1", "o-6")
    journal.finish(never_reached.id, Outcome.FAILED)

    service = [
        entry(by_agent.id, transaction="t-1", payment="p-1"),
        entry(transaction="t-2", payment="p-2"),
        entry(transaction="t-x3", payment="p-3"),
        entry(declined.id, transaction="t-5", error="DECLINED"),
        entry(transaction="t-web", payment="p-web", amount=99_00, userAgent="Mozilla/5.0"),
    ]
    result = journal.reconcile(service)

    pairs = {m.attempt.id: (m.matched_by, m.entry["transactionId"], m.problem) for m in result.matched}
    assert pairs == {
        by_agent.id: ("attempt_id", "t-1", None),
        by_transaction.id: ("transactionId", "t-2", None),
        by_payment.id: ("paymentId", "t-x3", None),
        declined.id: ("attempt_id", "t-5", None),
    }
    assert [e["transactionId"] for e in result.service_only] == ["t-web"]
    assert [a.id for a in result.journal_only] == [missing_at_service.id]
    assert not result.clean and result.problems == ()


def test_reconcile_flags_pairs_that_disagree(journal):
    lost = sale(journal, "T2", "o-1")  # an unknown sale holds its terminal: the next one is on T1
    journal.mark_sent(lost.id)
    journal.finish(lost.id, Outcome.UNKNOWN)
    wrongly_failed = sale(journal, "T1", "o-2")
    journal.finish(wrongly_failed.id, Outcome.FAILED)
    approved = sale(journal, "T1", "o-3", 10_00)
    journal.finish(approved.id, Outcome.APPROVED, {"transactionId": "t-3"})

    result = journal.reconcile([
        entry(lost.id, transaction="t-1"),
        entry(wrongly_failed.id, transaction="t-2"),
        entry(approved.id, transaction="t-3", amount=10_30, baseAmount=10_00, surcharge=30),
        entry(approved.id, transaction="t-3b", amount=10_00),
    ])
    problems = {m.entry["transactionId"]: m.problem for m in result.problems}
    assert "unknown in the journal" in problems["t-1"] and "resolve" in problems["t-1"]
    assert "failed" in problems["t-2"] and "without error" in problems["t-2"]
    assert "t-3" not in problems  # surcharge on top of the base amount is not a difference
    assert "double charge" in problems["t-3b"]
    assert result.journal_only == () and result.service_only == ()


def test_reconcile_flags_amount_and_error_differences(journal):
    first = sale(journal, "T1", "o-1", 10_00)
    journal.finish(first.id, Outcome.APPROVED, {"transactionId": "t-1"})
    second = sale(journal, "T1", "o-2", 5_00)
    journal.finish(second.id, Outcome.APPROVED, {"transactionId": "t-2"})
    result = journal.reconcile([
        entry(first.id, transaction="t-1", amount=12_00),
        entry(second.id, transaction="t-2", amount=5_00, error="Processor error"),
    ])
    problems = {m.attempt.id: m.problem for m in result.problems}
    assert "journal 1000 cents, service 1200 cents" in problems[first.id]
    assert "error 'Processor error'" in problems[second.id]


def test_reconcile_compares_a_partial_approval_with_what_was_approved(journal):
    partial = sale(journal, "T1", "o-1", 12_34)
    journal.finish(partial.id, Outcome.PARTIALLY_APPROVED, {"transactionId": "t-1", "approved_amount": 5_00})
    assert journal.reconcile([entry(partial.id, transaction="t-1", amount=5_00)]).clean
    [match] = journal.reconcile([entry(partial.id, transaction="t-1", amount=12_34)]).problems
    assert "journal 500 cents, service 1234 cents" in match.problem
    failed = journal.reconcile([entry(partial.id, transaction="t-1", amount=5_00, error="DECLINED")]).problems
    assert "the journal says partially_approved but the service entry has error" in failed[0].problem
    assert [a.id for a in journal.reconcile([]).journal_only] == [partial.id]  # charged, and not listed


def test_reconcile_by_day_still_finds_attempts_named_in_user_agent(timed, clock):
    yesterday = sale(timed, "T1", "o-1")
    timed.finish(yesterday.id, Outcome.APPROVED, {"transactionId": "t-1"})
    clock.advance(days=1)
    today = sale(timed, "T1", "o-2")
    timed.finish(today.id, Outcome.APPROVED, {"transactionId": "t-2"})
    result = timed.reconcile([entry(yesterday.id, transaction="t-1")], day=clock.now.date(), tz="UTC")
    assert [m.attempt.id for m in result.matched] == [yesterday.id]
    assert [a.id for a in result.journal_only] == [today.id]


def test_reconcile_of_matching_lists_is_clean(journal):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, Outcome.APPROVED, {"transactionId": "t-1"})
    assert journal.reconcile([entry(first.id, transaction="t-1")]).clean


def test_attempts_changed_gives_the_day_then_only_what_changed(timed, clock):
    at(clock, 2026, 3, 2, 15, 0)
    first = sale(timed, "T1", "o-1")
    timed.mark_sent(first.id)
    second = sale(timed, "T2", "o-2")
    at(clock, 2026, 3, 3, 15, 0)
    sale(timed, "T3", "o-other-day")  # another day: never listed for the 2nd
    day = date(2026, 3, 2)
    every, mark = timed.attempts_changed(day, tz="UTC")
    assert [a.id for a in every] == [first.id, second.id] == [a.id for a in timed.attempts(day=day, tz="UTC")]
    assert every == timed.attempts(day=day, tz="UTC")  # folded exactly as attempts() folds them
    assert timed.attempts_changed(day, mark, tz="UTC") == ([], mark)  # nothing new
    timed.finish(first.id, Outcome.APPROVED, {"transaction_id": "t-1"})
    [changed], later = timed.attempts_changed(day, mark, tz="UTC")
    assert changed.id == first.id and changed.outcome is Outcome.APPROVED and later > mark
    assert changed == next(a for a in timed.attempts(day=day, tz="UTC") if a.id == first.id)
    at(clock, 2026, 3, 2, 16, 0)
    third = sale(timed, "T4", "o-3")  # begun, nothing sent yet: listed by its row alone
    assert [a.id for a in timed.attempts_changed(day, later, tz="UTC")[0]] == [third.id]


def test_newest_attempts_are_the_last_begun_of_the_day_folded_alike(timed, clock):
    at(clock, 2026, 3, 2, 15, 0)
    begun = [sale(timed, f"T{n}", f"o-{n}") for n in range(5)]
    timed.finish(begun[3].id, Outcome.APPROVED, {"transaction_id": "t-3"})
    at(clock, 2026, 3, 3, 9, 0)
    sale(timed, "T9", "o-next-day")  # the next day's: never among the 2nd's newest
    day = date(2026, 3, 2)
    newest = timed.newest_attempts(day, 2, tz="UTC")
    assert [a.id for a in newest] == [begun[3].id, begun[4].id]  # the last two, in the order begun
    assert newest == timed.attempts(day=day, tz="UTC")[-2:]  # folded exactly as attempts() folds them
    assert newest[0].outcome is Outcome.APPROVED
    assert [a.id for a in timed.newest_attempts(day, 50, tz="UTC")] == [a.id for a in begun]
