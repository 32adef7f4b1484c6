"""A subscription's schedule entry charged again: version 11 lets the attempts table take the
operation, row for row, and the entry's order (``schedule:<id>``) is guarded like a sale's."""

from __future__ import annotations

import sqlite3

import pytest

from pos_app.journal import Journal, Operation, OrderAlreadyPaid, OrderHasUnknownAttempt, Outcome
from pos_app.journal.schema import MIGRATIONS
from tests.journal.helpers import raw


def retry(journal: Journal, entry: str = "e-1", subscription: str = "s-1", amount: int = 1250):
    return journal.begin_attempt(operation=Operation.SUBSCRIPTION_RETRY, terminal_id=f"subscription:{subscription}",
                                 gateway="auto", amount=amount, order_key=f"schedule:{entry}",
                                 request={"scheduleId": entry, "subscriptionId": subscription, "amount": amount})


def build_v10(path) -> None:
    """A version 10 journal with a card-on-file charge (approved), written by that version."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    for step in MIGRATIONS[:10]:
        for statement in step:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 10")
    conn.execute("INSERT INTO attempts (id, operation, terminal_id, gateway, amount, order_key, ref, created_at, "
                 "request, owner, cashier) VALUES ('a-v10', 'card_charge', 'vault:c1', 'auto', 900, 'o-10', NULL, "
                 "'2026-01-02T10:00:00.000000Z', '{}', NULL, NULL)")
    conn.execute("INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES ('a-v10', 'outcome', "
                 "'2026-01-02T10:00:01.000000Z', 'approved', '{\"outcome\": \"approved\"}')")
    conn.execute("COMMIT")
    conn.close()


def test_v10_journal_is_migrated_row_for_row_and_takes_subscription_retries(tmp_path):
    path = tmp_path / "v10.db"
    build_v10(path)
    conn = raw(path)
    before = conn.execute("SELECT rowid, * FROM attempts ORDER BY rowid").fetchall()
    conn.close()
    with Journal.open(path) as journal:
        conn = raw(path)
        try:
            assert conn.execute("SELECT rowid, * FROM attempts ORDER BY rowid").fetchall() == before
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("DELETE FROM attempts")
        finally:
            conn.close()
        assert journal.get("a-v10").operation is Operation.CARD_CHARGE
        assert journal.get(retry(journal).id).operation is Operation.SUBSCRIPTION_RETRY


def test_an_entry_is_never_retried_while_a_retry_is_unknown_or_after_one_was_approved(journal):
    first = retry(journal)
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN, {})
    with pytest.raises(OrderHasUnknownAttempt, match=first.id):
        retry(journal, subscription="s-2")
    journal.finish(first.id, Outcome.APPROVED, {"payment_id": "p-1", "amount": 1250})
    with pytest.raises(OrderAlreadyPaid, match=first.id):
        retry(journal, subscription="s-other")
    assert retry(journal, entry="e-2").order_key == "schedule:e-2"  # another entry is another order


def test_an_approved_retry_is_not_a_difference_with_the_transaction_list(journal):
    approved = retry(journal)
    journal.mark_sent(approved.id)
    journal.finish(approved.id, Outcome.APPROVED, {"payment_id": "p-1", "amount": 1250})
    assert journal.reconcile([]).journal_only == ()  # the service does not list a retry's charge
