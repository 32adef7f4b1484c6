"""The operations of the service's payment routes (card on file, ACH, their follow-ups by
payment id): version 10 lets the attempts table take them, and they meet the same guards
as a terminal sale (an order charged once, one follow-up of a payment at a time)."""

from __future__ import annotations

import sqlite3

import pytest

from pos_app.journal import (
    Journal,
    Operation,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    Outcome,
    RefHasPendingFollowUp,
)
from pos_app.journal.schema import MIGRATIONS
from tests.journal.helpers import raw


def charge(journal: Journal, order: str, amount: int = 1500, *, customer: str = "c1",
           operation: Operation = Operation.CARD_CHARGE):
    return journal.begin_attempt(operation=operation, terminal_id=f"vault:{customer}", gateway="auto",
                                 amount=amount, order_key=order, request={"amount": amount, "customerId": customer})


def build_v9(path) -> None:
    """A version 9 journal with a sale (approved) and a void of it, written by that version."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    for step in MIGRATIONS[:9]:
        for statement in step:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 9")
    rows = [("a-v9sale", "sale", 1250, "o-9", None), ("a-v9void", "void", None, None, "t-1")]
    for attempt_id, operation, amount, order, ref in rows:
        conn.execute("INSERT INTO attempts (id, operation, terminal_id, gateway, amount, order_key, ref, created_at, "
                     "request, owner, cashier) VALUES (?, ?, 'T1', 'B', ?, ?, ?, '2026-01-02T10:00:00.000000Z', '{}', "
                     "NULL, NULL)", (attempt_id, operation, amount, order, ref))
        conn.execute("INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES (?, 'outcome', "
                     "'2026-01-02T10:00:01.000000Z', 'approved', ?)",
                     (attempt_id, '{"outcome": "approved", "result": {"transaction_id": "t-1"}}'))
    conn.execute("COMMIT")
    conn.close()


def test_v9_journal_is_migrated_row_for_row_and_takes_card_on_file_charges(tmp_path):
    path = tmp_path / "v9.db"
    build_v9(path)
    conn = raw(path)
    before = conn.execute("SELECT rowid, * FROM attempts ORDER BY rowid").fetchall()
    events = conn.execute("SELECT * FROM events ORDER BY seq").fetchall()
    conn.close()
    with Journal.open(path) as journal:
        conn = raw(path)
        try:
            assert conn.execute("SELECT rowid, * FROM attempts ORDER BY rowid").fetchall() == before
            assert conn.execute("SELECT * FROM events ORDER BY seq").fetchall() == events
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("DELETE FROM attempts")
        finally:
            conn.close()
        assert journal.get("a-v9void").operation is Operation.VOID
        card = charge(journal, "o-10")
        assert journal.get(card.id).operation is Operation.CARD_CHARGE


def test_a_card_on_file_charge_guards_its_order_like_a_sale(journal):
    first = charge(journal, "o-1")
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN, {})
    with pytest.raises(OrderHasUnknownAttempt, match=first.id):
        charge(journal, "o-1", customer="c2")
    journal.finish(first.id, Outcome.APPROVED, {"payment_id": "p-1", "transaction_id": "t-1", "amount": 1500})
    with pytest.raises(OrderAlreadyPaid, match=first.id):
        charge(journal, "o-1", customer="c2")
    with pytest.raises(OrderAlreadyPaid):  # an ACH charge of the same order is a second charge too
        charge(journal, "o-1", customer="c3", operation=Operation.ACH_CHARGE)


def test_a_charge_voided_by_its_payment_id_no_longer_pays_its_order(journal):
    first = charge(journal, "o-2")
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.APPROVED, {"payment_id": "p-2", "transaction_id": "t-2", "amount": 1500})
    void = journal.begin_attempt(operation=Operation.CARD_VOID, terminal_id="payment:p-2", gateway="auto",
                                 ref="p-2", request={"paymentId": "p-2"})
    journal.mark_sent(void.id)
    journal.finish(void.id, Outcome.APPROVED, {"payment_id": "p-2"})
    assert journal.order_charges("o-2") == {}
    again = charge(journal, "o-2")
    assert again.order_key == "o-2"


def test_no_second_refund_of_a_payment_while_one_is_unknown(journal):
    refund = journal.begin_attempt(operation=Operation.CARD_REFUND, terminal_id="payment:p-3", gateway="auto",
                                   amount=500, ref="p-3", request={"paymentId": "p-3", "amount": 500})
    journal.mark_sent(refund.id)
    journal.finish(refund.id, Outcome.UNKNOWN, {})
    with pytest.raises(RefHasPendingFollowUp, match=refund.id):
        journal.begin_attempt(operation=Operation.CARD_REFUND, terminal_id="payment:p-3", gateway="auto",
                              amount=500, ref="p-3", request={"paymentId": "p-3", "amount": 500})
