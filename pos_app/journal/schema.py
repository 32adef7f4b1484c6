"""The journal file's layout, its versioned migrations, and the checks made before writing.

The schema version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a file from
version ``i`` to ``i + 1`` and is never edited once released (a change is a new step).
Opening refuses, without writing a byte, a file that is not SQLite, a SQLite file that is
not a pos-app journal, and a journal written by a newer pos-app.

Version 1: ``attempts`` (what was asked) and ``events`` (what happened, append-only).
Version 2: the ``open_attempts`` index (attempts without a final outcome: an insert at
``begin_attempt``, a delete at the final outcome) so that recovery and the busy check
never scan history; indexes by order key and day; triggers refusing UPDATE and DELETE on
the record tables.
Version 3: ``attempts.owner``, the owner (see ``owners``) that began the attempt; NULL for
attempts begun before. Who holds an attempt later is told by its ``claimed`` events, found
through their own small index (as outcomes are) so that no guard walks an attempt's history.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from pos_app.journal.errors import JournalCorrupt, JournalError, JournalTooNew, from_sqlite

APPLICATION_ID = 0x504F534A  # "POSJ" in the SQLite header: this file is a pos-app journal
SQLITE_MAGIC = b"SQLite format 3\x00"

V1: tuple[str, ...] = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    """CREATE TABLE attempts (
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
    )""",
    """CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        attempt_id TEXT NOT NULL REFERENCES attempts (id),
        kind TEXT NOT NULL,
        at TEXT NOT NULL,
        outcome TEXT CHECK (outcome IN ('approved', 'declined', 'failed', 'unknown')),
        data TEXT NOT NULL DEFAULT '{}',
        CHECK ((kind = 'outcome') = (outcome IS NOT NULL))
    )""",
    "CREATE INDEX events_by_attempt ON events (attempt_id, seq)",
    "CREATE INDEX attempts_by_terminal ON attempts (terminal_id, created_at)",
)

V2: tuple[str, ...] = (
    """CREATE TABLE open_attempts (
        attempt_id TEXT PRIMARY KEY REFERENCES attempts (id),
        terminal_id TEXT NOT NULL,
        order_key TEXT
    ) WITHOUT ROWID""",
    "CREATE INDEX open_by_terminal ON open_attempts (terminal_id)",
    "CREATE INDEX open_by_order ON open_attempts (order_key) WHERE order_key IS NOT NULL",
    "CREATE INDEX attempts_by_order ON attempts (order_key) WHERE order_key IS NOT NULL",
    "CREATE INDEX attempts_by_day ON attempts (created_at)",
    "CREATE INDEX outcome_events ON events (attempt_id, seq) WHERE kind = 'outcome'",
    # Backfill: every attempt whose latest outcome is missing or 'unknown' is open.
    """INSERT INTO open_attempts (attempt_id, terminal_id, order_key)
        SELECT a.id, a.terminal_id, a.order_key FROM attempts a
        WHERE coalesce((SELECT e.outcome FROM events e
                        WHERE e.attempt_id = a.id AND e.kind = 'outcome'
                        ORDER BY e.seq DESC LIMIT 1), 'unknown') = 'unknown'
        ORDER BY a.rowid""",
    """CREATE TRIGGER attempts_append_only_u BEFORE UPDATE ON attempts
        BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END""",
    """CREATE TRIGGER attempts_append_only_d BEFORE DELETE ON attempts
        BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END""",
    """CREATE TRIGGER events_append_only_u BEFORE UPDATE ON events
        BEGIN SELECT raise(ABORT, 'journal events are append-only'); END""",
    """CREATE TRIGGER events_append_only_d BEFORE DELETE ON events
        BEGIN SELECT raise(ABORT, 'journal events are append-only'); END""",
    """CREATE TRIGGER open_attempts_no_update BEFORE UPDATE ON open_attempts
        BEGIN SELECT raise(ABORT, 'open_attempts rows are only inserted and deleted'); END""",
)

V3: tuple[str, ...] = (
    "ALTER TABLE attempts ADD COLUMN owner TEXT",
    "CREATE INDEX claimed_events ON events (attempt_id, seq) WHERE kind = 'claimed'",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (V1, V2, V3)
CURRENT_VERSION = len(MIGRATIONS)


def check_header(path: Path) -> None:
    """Refuse a non-empty file that does not start like SQLite, before SQLite opens it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise JournalError(f"journal {path} cannot be read: {exc}") from None
    if head and (len(head) < 100 or not head.startswith(SQLITE_MAGIC)):
        raise JournalCorrupt(
            f"journal {path} is not a database (it does not start with the SQLite header); "
            "the file was left as it is: keep a copy for support and start with a new journal path"
        )


def inspect(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of an opened file, after making sure it is ours and not too new.

    Only reads: a refused file is closed as it was found.
    """
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id != APPLICATION_ID:
        tables = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if app_id != 0 or version != 0 or tables:
            raise JournalCorrupt(
                f"{path} is a SQLite database but not a pos-app journal "
                f"(application_id {app_id:#x}, {tables} schema objects); it was left as it is"
            )
    if version > CURRENT_VERSION:
        raise JournalTooNew(
            f"journal {path} has schema version {version}, written by a newer pos-app; this "
            f"pos-app understands up to version {CURRENT_VERSION}. Update pos-app; the file "
            "was left as it is"
        )
    return version


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Bring the file to ``CURRENT_VERSION`` in one write transaction; returns the old version.

    The version is read again under the write lock, so two processes opening an old file
    at once migrate it exactly once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = inspect(conn, path)
        for step in range(version, CURRENT_VERSION):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
        if version != CURRENT_VERSION:
            conn.execute(f"PRAGMA user_version = {CURRENT_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return version


def _use_wal(conn: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
    """Switch to WAL, retrying while others hold the file.

    Leaving rollback mode needs an exclusive lock, and SQLite reports that lock as busy at
    once instead of calling the busy handler (it would deadlock otherwise); so two
    processes creating a journal together must retry here themselves.
    """
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as exc:
            busy = (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (5, 6)
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)
    if mode.lower() != "wal":
        raise JournalError(f"journal {path} cannot use write-ahead logging (got {mode!r})")


def connect(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """A WAL, ``synchronous=FULL`` connection to a journal at the current schema version."""
    check_header(path)
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise from_sqlite(exc, path, "opening") from None
    try:
        conn.execute("BEGIN")  # one snapshot: another process may be creating the file now
        try:
            version = inspect(conn, path)  # read-only: refusals leave the file untouched
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
        _use_wal(conn, path, busy_timeout)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA journal_size_limit = 8388608")  # a checkpointed WAL shrinks back
        conn.execute("PRAGMA foreign_keys = ON")
        if version != CURRENT_VERSION:
            migrate(conn, path)
        else:
            # Cheap damage check: the schema page and the small recovery index must read.
            conn.execute("SELECT count(*) FROM open_attempts").fetchone()
    except JournalError:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise from_sqlite(exc, path, "opening") from None
    except BaseException:
        conn.close()
        raise
    return conn
