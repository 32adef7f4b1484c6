"""Opening files: migrations from older versions, and refusing damaged, foreign or newer files."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest

from pos_app.journal import (
    CURRENT_VERSION,
    Journal,
    JournalCorrupt,
    JournalLocked,
    JournalTooNew,
    Operation,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    Outcome,
    TerminalBusy,
)
from pos_app.journal.schema import APPLICATION_ID
from tests.journal.helpers import digest, raw, sale

# The version 1 layout exactly as released; kept here verbatim (not imported) so that an
# edit to the migration steps cannot silently change what "a v1 file" means in this test.
V1_DDL = f"""
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE attempts (
    id TEXT PRIMARY KEY,
    operation TEXT NOT NULL
        CHECK (operation IN ('sale', 'preauth', 'capture', 'void', 'refund', 'close_batch')),
    terminal_id TEXT NOT NULL,
    gateway TEXT NOT NULL,
    amount INTEGER CHECK (amount IS NULL OR (typeof(amount) = 'integer' AND amount > 0)),
    order_key TEXT,
    ref TEXT,
    created_at TEXT NOT NULL,
    request TEXT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    outcome TEXT CHECK (outcome IN ('approved', 'declined', 'failed', 'unknown')),
    data TEXT NOT NULL DEFAULT '{{}}',
    CHECK ((kind = 'outcome') = (outcome IS NOT NULL))
);
CREATE INDEX events_by_attempt ON events (attempt_id, seq);
CREATE INDEX attempts_by_terminal ON attempts (terminal_id, created_at);
PRAGMA user_version = 1;
"""

# The version 2 step exactly as released, kept verbatim for the same reason.
V2_DDL = """
CREATE TABLE open_attempts (
    attempt_id TEXT PRIMARY KEY REFERENCES attempts (id),
    terminal_id TEXT NOT NULL,
    order_key TEXT
) WITHOUT ROWID;
CREATE INDEX open_by_terminal ON open_attempts (terminal_id);
CREATE INDEX open_by_order ON open_attempts (order_key) WHERE order_key IS NOT NULL;
CREATE INDEX attempts_by_order ON attempts (order_key) WHERE order_key IS NOT NULL;
CREATE INDEX attempts_by_day ON attempts (created_at);
CREATE INDEX outcome_events ON events (attempt_id, seq) WHERE kind = 'outcome';
INSERT INTO open_attempts (attempt_id, terminal_id, order_key)
    SELECT a.id, a.terminal_id, a.order_key FROM attempts a
    WHERE coalesce((SELECT e.outcome FROM events e
                    WHERE e.attempt_id = a.id AND e.kind = 'outcome'
                    ORDER BY e.seq DESC LIMIT 1), 'unknown') = 'unknown'
    ORDER BY a.rowid;
CREATE TRIGGER attempts_append_only_u BEFORE UPDATE ON attempts
    BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END;
CREATE TRIGGER attempts_append_only_d BEFORE DELETE ON attempts
    BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END;
CREATE TRIGGER events_append_only_u BEFORE UPDATE ON events
    BEGIN SELECT raise(ABORT, 'journal events are append-only'); END;
CREATE TRIGGER events_append_only_d BEFORE DELETE ON events
    BEGIN SELECT raise(ABORT, 'journal events are append-only'); END;
CREATE TRIGGER open_attempts_no_update BEFORE UPDATE ON open_attempts
    BEGIN SELECT raise(ABORT, 'open_attempts rows are only inserted and deleted'); END;
PRAGMA user_version = 2;
"""

# The version 3 and 4 steps exactly as released, kept verbatim for the same reason.
V3_V4_DDL = """
ALTER TABLE attempts ADD COLUMN owner TEXT;
CREATE INDEX claimed_events ON events (attempt_id, seq) WHERE kind = 'claimed';
PRAGMA user_version = 3;
ALTER TABLE attempts ADD COLUMN cashier TEXT;
PRAGMA user_version = 4;
"""

# The version 5 step exactly as released, kept verbatim for the same reason.
V5_DDL = """
CREATE TABLE events_v5 (
    seq INTEGER PRIMARY KEY,
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    outcome TEXT CHECK (outcome IN ('approved', 'partially_approved', 'declined', 'failed', 'unknown')),
    data TEXT NOT NULL DEFAULT '{}',
    CHECK ((kind = 'outcome') = (outcome IS NOT NULL))
);
INSERT INTO events_v5 (seq, attempt_id, kind, at, outcome, data)
    SELECT seq, attempt_id, kind, at, outcome, data FROM events ORDER BY seq;
DROP TABLE events;
ALTER TABLE events_v5 RENAME TO events;
CREATE INDEX events_by_attempt ON events (attempt_id, seq);
CREATE INDEX outcome_events ON events (attempt_id, seq) WHERE kind = 'outcome';
CREATE INDEX claimed_events ON events (attempt_id, seq) WHERE kind = 'claimed';
CREATE TRIGGER events_append_only_u BEFORE UPDATE ON events
    BEGIN SELECT raise(ABORT, 'journal events are append-only'); END;
CREATE TRIGGER events_append_only_d BEFORE DELETE ON events
    BEGIN SELECT raise(ABORT, 'journal events are append-only'); END;
PRAGMA user_version = 5;
"""

AT = "2026-03-07T12:00:00.000000+00:00"


def build_v1(path):
    conn = sqlite3.connect(path)  # rollback-journal mode, as a v1 file may well be
    conn.executescript(V1_DDL)
    attempts = [
        ("a-v1inflight000000000", "sale", "T1", "S", 1000, "o-1", None),
        ("a-v1unknown0000000000", "sale", "T2", "S", 2000, "o-2", None),
        ("a-v1approved000000000", "sale", "T3", "B", 3000, "o-3", None),
        ("a-v1resolved000000000", "sale", "T4", "S", 4000, "o-4", None),
        ("a-v1void0000000000000", "void", "T3", "B", None, None, "t-3"),
    ]
    conn.executemany(
        "INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}')", [(*row, AT) for row in attempts]
    )
    events = [
        ("a-v1inflight000000000", "sent", None, "{}"),
        ("a-v1inflight000000000", "msg_identifier", None, '{"msgIdentifier":"m-1"}'),
        ("a-v1unknown0000000000", "sent", None, "{}"),
        ("a-v1unknown0000000000", "outcome", "unknown", '{"outcome":"unknown","result":{}}'),
        ("a-v1approved000000000", "sent", None, "{}"),
        ("a-v1approved000000000", "outcome", "approved", '{"outcome":"approved","result":{"transactionId":"t-3"}}'),
        ("a-v1resolved000000000", "outcome", "unknown", '{"outcome":"unknown","result":{}}'),
        ("a-v1resolved000000000", "outcome", "failed", '{"outcome":"failed","result":{}}'),
        ("a-v1void0000000000000", "outcome", "declined", '{"outcome":"declined","result":{}}'),
    ]
    conn.executemany("INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES (?, ?, ?, ?, ?)",
                     [(a, k, AT, o, d) for a, k, o, d in events])
    conn.commit()
    conn.close()


def build_v2(path):
    """The v1 file above as the version 2 pos-app left it: migrated, in WAL mode."""
    build_v1(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(f"BEGIN IMMEDIATE; {V2_DDL} COMMIT;")
    conn.close()


def build_v4(path):
    """The v2 file above as the version 4 pos-app left it (owner and cashier columns, no orders)."""
    build_v2(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(f"BEGIN IMMEDIATE; {V3_V4_DDL} COMMIT;")
    conn.close()


def build_v5(path):
    """The v4 file above as the version 5 pos-app left it (partial approvals, no orders)."""
    build_v4(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(f"BEGIN IMMEDIATE; {V5_DDL} COMMIT;")
    conn.close()


def attempt_columns(journal):
    return [row[1] for row in journal._conn.execute("PRAGMA table_info(attempts)")]


def test_fresh_journal_is_at_current_version(journal, path):
    conn = raw(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    finally:
        conn.close()


def test_v1_journal_opens_and_is_migrated(tmp_path):
    path = tmp_path / "v1.db"
    build_v1(path)
    with Journal.open(path) as journal:
        assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        assert journal._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert attempt_columns(journal)[-2:] == ["owner", "cashier"]
        found = {a.id: a for a in journal.in_flight()}
        assert set(found) == {"a-v1inflight000000000", "a-v1unknown0000000000"}
        assert all(a.owner is None for a in journal.attempts())  # begun before owners existed
        assert [a.id for a in journal.resumable()] == list(found)
        assert found["a-v1inflight000000000"].msg_identifier == "m-1"
        assert found["a-v1unknown0000000000"].outcome is Outcome.UNKNOWN
        with pytest.raises(TerminalBusy, match="a-v1inflight000000000"):
            sale(journal, "T1", "o-new")
        with pytest.raises(OrderHasUnknownAttempt, match="a-v1unknown0000000000"):
            sale(journal, "T9", "o-2")
        with pytest.raises(OrderAlreadyPaid, match="a-v1approved000000000"):
            sale(journal, "T9", "o-3")
        fresh = sale(journal, "T4", "o-4")  # failed after unknown: free, chargeable
        assert fresh.owner == journal.owner == journal.get(fresh.id).owner
        journal.finish("a-v1inflight000000000", Outcome.APPROVED)
        assert {a.id for a in journal.in_flight()} == {"a-v1unknown0000000000", fresh.id}
        assert journal.get("a-v1void0000000000000").operation is Operation.VOID
    with pytest.raises(sqlite3.IntegrityError):  # v2 triggers are in place
        conn = raw(path)
        try:
            conn.execute("DELETE FROM events")
        finally:
            conn.close()
    with Journal.open(path) as again:  # second open: nothing left to migrate
        assert len(again.attempts()) == 6


def test_migrated_journal_keeps_every_event_and_takes_partial_approvals(tmp_path):
    """Version 5 copies ``events`` into a table whose CHECK allows ``partially_approved``: every
    event keeps its seq and data, the append-only triggers are back, and a partial approval
    counts as a charge of its order (never charged again)."""
    path = tmp_path / "v2.db"
    build_v2(path)
    conn = raw(path)
    before = conn.execute("SELECT seq, attempt_id, kind, at, outcome, data FROM events ORDER BY seq").fetchall()
    conn.close()
    with Journal.open(path) as journal:
        conn = raw(path)
        try:
            after = conn.execute("SELECT seq, attempt_id, kind, at, outcome, data FROM events ORDER BY seq").fetchall()
            assert after == before
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("UPDATE events SET data = '{}'")
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("DELETE FROM events")
        finally:
            conn.close()
        partial = sale(journal, "T7", "o-partial", amount=1234)
        journal.mark_sent(partial.id)
        journal.finish(partial.id, Outcome.PARTIALLY_APPROVED, {"approved_amount": 500, "transaction_id": "t-9"})
        settled = journal.get(partial.id)
        assert settled.outcome is Outcome.PARTIALLY_APPROVED and settled.is_final and settled.charged == 500
        assert [a.id for a in journal.order_attempts("o-partial")] == [partial.id]
        assert partial.id not in {a.id for a in journal.in_flight()}
        with pytest.raises(OrderAlreadyPaid, match=partial.id):
            sale(journal, "T8", "o-partial", amount=734)


def test_v2_journal_opens_and_its_attempts_are_resumable(tmp_path):
    path = tmp_path / "v2.db"
    build_v2(path)
    conn = raw(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.close()
    open_ids = ["a-v1inflight000000000", "a-v1unknown0000000000"]
    with Journal.open(path) as journal, Journal.open(path) as other:
        assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        assert attempt_columns(journal)[-2:] == ["owner", "cashier"]
        assert journal._conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'claimed_events'").fetchone()
        assert all(a.owner is None for a in journal.attempts())
        assert [a.id for a in journal.in_flight()] == open_ids
        assert [a.id for a in journal.resumable()] == open_ids == [a.id for a in other.resumable()]
        with pytest.raises(TerminalBusy, match="a-v1inflight000000000"):
            sale(journal, "T1", "o-new")

        taken = journal.claim("a-v1inflight000000000")
        assert taken.owner == journal.owner and taken.msg_identifier == "m-1" and taken.sent
        assert [e.data for e in taken.events if e.kind == "claimed"] == [{"owner": journal.owner, "from": None}]
        assert other.claim("a-v1inflight000000000") is None  # held by a live owner now
        assert [a.id for a in other.resumable()] == ["a-v1unknown0000000000"]
        assert other.claim("a-v1approved000000000") is None  # final: nothing to resume
        journal.finish("a-v1inflight000000000", Outcome.APPROVED, {"transactionId": "t-1"})
        assert [a.id for a in other.resumable()] == ["a-v1unknown0000000000"]


def test_v5_journal_opens_with_an_empty_orders_table_and_keeps_its_attempts(tmp_path):
    path = tmp_path / "v5.db"
    build_v5(path)
    conn = raw(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    assert conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'orders'").fetchone() is None
    conn.close()
    with Journal.open(path) as journal:
        assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        assert len(journal.attempts()) == 5 and journal.order_totals(["o-3"]) == {}
        journal.record_order("o-9", subtotal=1000, tax=80, taxes={"State sales tax": 80})
    with Journal.open(path) as again:
        assert again.order_totals(["o-9"])["o-9"][0].total == 1080


def _corrupt_schema_page(path):
    data = bytearray(path.read_bytes())
    data[100:1024] = b"\xa5" * 924  # page 1 after the file header: the schema table
    path.write_bytes(bytes(data))


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(b"this is a shopping list, not a journal\n"), id="text"),
        pytest.param(lambda p: p.write_bytes(os.urandom(8192)), id="random"),
        pytest.param(lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x00" * 20), id="short-header"),
        pytest.param(_corrupt_schema_page, id="schema-page"),
        pytest.param(_truncate, id="truncated"),
    ],
)
def test_damaged_file_is_refused_and_left_byte_for_byte(tmp_path, damage):
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        for index in range(40):
            attempt = sale(journal, f"T{index}", f"o-{index}")
            journal.record(attempt.id, "answer", {"padding": "x" * 300})
    damage(path)
    before, files = digest(path), sorted(os.listdir(tmp_path))
    with pytest.raises(JournalCorrupt, match="left as it is") as caught:
        with Journal.open(path) as journal:
            journal.in_flight()
    assert str(path) in str(caught.value)
    assert digest(path) == before
    assert sorted(os.listdir(tmp_path)) == files  # no -wal/-shm left behind either


def test_verify_finds_damage_that_open_does_not_read(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        for index in range(200):
            journal.finish(sale(journal, f"T{index}", f"o-{index}").id, Outcome.DECLINED)
    conn = raw(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'attempts_by_day'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page_size : root * page_size] = b"\xff" * page_size
    path.write_bytes(bytes(data))
    before = digest(path)
    with Journal.open(path) as journal:
        assert journal.in_flight() == []
        with pytest.raises(JournalCorrupt, match="damaged"):
            journal.verify()
    assert digest(path) == before


def test_verify_passes_on_a_sound_journal(journal):
    sale(journal)
    journal.verify()


def test_newer_schema_is_refused_and_left_untouched(path):
    with Journal.open(path) as journal:
        sale(journal)
    conn = raw(path)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.close()
    before = digest(path)
    with pytest.raises(JournalTooNew, match=f"version {CURRENT_VERSION + 1}.*newer pos-app"):
        Journal.open(path)
    assert digest(path) == before


def test_foreign_sqlite_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "catalog.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id, name)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(JournalCorrupt, match="not a pos-app journal"):
        Journal.open(path)
    assert digest(path) == before


def test_exclusively_locked_file_raises_journal_locked_on_open(path):
    Journal.open(path).close()
    holder = raw(path)
    try:
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("SELECT count(*) FROM attempts").fetchone()
        started = time.monotonic()
        with pytest.raises(JournalLocked, match="locked") as caught:
            Journal.open(path, busy_timeout=0.2)
        assert time.monotonic() - started < 3
        assert str(path) in str(caught.value)
    finally:
        holder.close()
    Journal.open(path).close()  # once released, it opens


def test_write_lock_held_too_long_raises_journal_locked_and_writes_nothing(path):
    journal = Journal.open(path, busy_timeout=0.2)
    holder = raw(path)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(JournalLocked, match="try again"):
            sale(journal)
        holder.execute("ROLLBACK")
        assert journal.attempts() == []
        sale(journal)  # the journal is usable after the lock is gone
        assert not journal._conn.in_transaction
    finally:
        holder.close()
        journal.close()


def test_closed_journal_refuses_use(path):
    journal = Journal.open(path)
    journal.close()
    journal.close()  # twice is fine
    from pos_app.journal import JournalError

    with pytest.raises(JournalError, match="closed"):
        journal.in_flight()
