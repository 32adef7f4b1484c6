"""The journal file's layout, its versioned migrations, and the checks made before writing.

The schema version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a file from
version ``i`` to ``i + 1`` and is never edited once released (a change is a new step).
Opening (``pos_app.sqlite_file``) refuses, without writing a byte, a file that is not SQLite,
a SQLite file that is not a pos-app journal, and a journal written by a newer pos-app.

Version 1: ``attempts`` (what was asked) and ``events`` (what happened, append-only).
Version 2: the ``open_attempts`` index (attempts without a final outcome: an insert at
``begin_attempt``, a delete at the final outcome) so that recovery and the busy check
never scan history; indexes by order key and day; triggers refusing UPDATE and DELETE on
the record tables.
Version 3: ``attempts.owner``, the owner (see ``owners``) that began the attempt; NULL for
attempts begun before. Who holds an attempt later is told by its ``claimed`` events, found
through their own small index (as outcomes are) so that no guard walks an attempt's history.
Version 4: ``attempts.cashier``, the staff member signed in when the attempt began (for the
payments list and the end-of-shift report per cashier); NULL for attempts begun before.
Version 5: the outcome ``partially_approved`` (a sale or pre-auth the service approved for
less than it asked; ``result.approved_amount`` says how much). SQLite cannot change a
CHECK constraint in place, so ``events`` is copied, row for row, into a table that allows it
(in the migration's one transaction), and its indexes and append-only triggers are made again.
Version 6: ``orders``, the totals of each cart sent to be paid (subtotal, tax, total, tax by
name; see ``orders``), append-only like the record tables, for the tax the reports show.
Version 7: an index of attempts by ``ref``, so that the order guard finds whether a charge
was voided since (a voided charge no longer pays its order), and of outcomes by the payment
and transaction they name, so that a charge accounted to two attempts is seen at once;
neither reads history.
Version 8: ``cash``, the cash ledger (each movement of the drawer's cash: an order's cash
line with what was tendered and the change, cash given back, cash in and out, no sale), and
``z_reports``, the numbered shift closes (expected, counted, left in the drawer); both
append-only (see ``cash``).
Version 9: ``orders.lines``, the lines of the cart sent to be paid (line id, name, sku, unit
cents, quantity, the line's tax cents; NULL for rows written before, and for the totals a
return records before charging the kept part again), and ``order_returns``, each return of
an order's lines (``begun`` before any money moves, then ``done`` or ``stopped``), append-only;
see ``orders``.
Version 10: the operations of the service's payment routes (``card_charge``, ``card_capture``,
``card_void``, ``card_refund``, ``ach_charge``, ``ach_void``, ``ach_refund``): a card on file
or a bank account charged without a terminal, and the follow-ups of such a payment by its id.
SQLite cannot change a CHECK constraint in place, so ``attempts`` is copied, row for row and
rowid for rowid, into a table that allows them (foreign keys checked at the commit, when
every event and open attempt has its attempt again), and its indexes and triggers are made
again.
Version 11: the operation ``subscription_retry`` (a subscription's schedule entry charged
again now), copied into a widened ``attempts`` exactly as version 10 did.
Version 12: ``parked_orders``, the orders parked on a payment link (phone orders), a row per
stage (parking, parked, paid, receipted, returned, failed), append-only; a unique index lets
one ``paid`` row per order in, so a parked order completes once (see ``parked``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pos_app import sqlite_file
from pos_app.i18n import N_
from pos_app.journal.errors import JournalCorrupt, JournalError, JournalTooNew, from_sqlite
from pos_app.sqlite_file import FileKind

APPLICATION_ID = 0x504F534A  # "POSJ" in the SQLite header: this file is a pos-app journal

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

V4: tuple[str, ...] = ("ALTER TABLE attempts ADD COLUMN cashier TEXT",)

V5: tuple[str, ...] = (
    """CREATE TABLE events_v5 (
        seq INTEGER PRIMARY KEY,
        attempt_id TEXT NOT NULL REFERENCES attempts (id),
        kind TEXT NOT NULL,
        at TEXT NOT NULL,
        outcome TEXT CHECK (outcome IN ('approved', 'partially_approved', 'declined', 'failed', 'unknown')),
        data TEXT NOT NULL DEFAULT '{}',
        CHECK ((kind = 'outcome') = (outcome IS NOT NULL))
    )""",
    "INSERT INTO events_v5 (seq, attempt_id, kind, at, outcome, data) "
    "SELECT seq, attempt_id, kind, at, outcome, data FROM events ORDER BY seq",
    "DROP TABLE events",  # its indexes and triggers go with it (no trigger fires on a drop)
    "ALTER TABLE events_v5 RENAME TO events",
    "CREATE INDEX events_by_attempt ON events (attempt_id, seq)",
    "CREATE INDEX outcome_events ON events (attempt_id, seq) WHERE kind = 'outcome'",
    "CREATE INDEX claimed_events ON events (attempt_id, seq) WHERE kind = 'claimed'",
    """CREATE TRIGGER events_append_only_u BEFORE UPDATE ON events
        BEGIN SELECT raise(ABORT, 'journal events are append-only'); END""",
    """CREATE TRIGGER events_append_only_d BEFORE DELETE ON events
        BEGIN SELECT raise(ABORT, 'journal events are append-only'); END""",
)

V6: tuple[str, ...] = (
    """CREATE TABLE orders (
        seq INTEGER PRIMARY KEY,
        order_key TEXT NOT NULL CHECK (order_key <> ''),
        recorded_at TEXT NOT NULL,
        subtotal INTEGER NOT NULL CHECK (typeof(subtotal) = 'integer'),
        tax INTEGER NOT NULL CHECK (typeof(tax) = 'integer' AND tax >= 0),
        total INTEGER NOT NULL CHECK (typeof(total) = 'integer' AND total = subtotal + tax),
        taxes TEXT NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX orders_by_key ON orders (order_key, seq)",
    """CREATE TRIGGER orders_append_only_u BEFORE UPDATE ON orders
        BEGIN SELECT raise(ABORT, 'journal orders are append-only'); END""",
    """CREATE TRIGGER orders_append_only_d BEFORE DELETE ON orders
        BEGIN SELECT raise(ABORT, 'journal orders are append-only'); END""",
)

V7: tuple[str, ...] = (
    "CREATE INDEX attempts_by_ref ON attempts (ref) WHERE ref IS NOT NULL",
    "CREATE INDEX outcome_payments ON events (json_extract(data, '$.result.payment_id')) WHERE kind = 'outcome'",
    "CREATE INDEX outcome_transactions ON events (json_extract(data, '$.result.transaction_id')) "
    "WHERE kind = 'outcome'",
)

V8: tuple[str, ...] = (
    """CREATE TABLE cash (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('sale', 'return', 'cash_in', 'cash_out', 'no_sale')),
        amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount >= 0),
        created_at TEXT NOT NULL,
        order_key TEXT CHECK ((kind IN ('sale', 'return')) = (order_key IS NOT NULL)),
        tendered INTEGER CHECK (tendered IS NULL OR (typeof(tendered) = 'integer' AND tendered >= amount)),
        change INTEGER CHECK (change IS NULL OR (typeof(change) = 'integer' AND change >= 0)),
        station_id TEXT,
        cashier TEXT,
        reason TEXT,
        CHECK (kind <> 'sale' OR (tendered IS NOT NULL AND change IS NOT NULL AND tendered - change = amount))
    )""",
    "CREATE INDEX cash_by_order ON cash (order_key) WHERE order_key IS NOT NULL",
    """CREATE TRIGGER cash_append_only_u BEFORE UPDATE ON cash
        BEGIN SELECT raise(ABORT, 'the cash ledger is append-only'); END""",
    """CREATE TRIGGER cash_append_only_d BEFORE DELETE ON cash
        BEGIN SELECT raise(ABORT, 'the cash ledger is append-only'); END""",
    """CREATE TABLE z_reports (
        number INTEGER PRIMARY KEY CHECK (number > 0),
        closed_at TEXT NOT NULL,
        station_id TEXT NOT NULL,
        terminal_id TEXT,
        opening_float INTEGER NOT NULL CHECK (typeof(opening_float) = 'integer'),
        expected INTEGER NOT NULL CHECK (typeof(expected) = 'integer'),
        counted INTEGER NOT NULL CHECK (typeof(counted) = 'integer' AND counted >= 0),
        left_in_drawer INTEGER NOT NULL CHECK (typeof(left_in_drawer) = 'integer' AND left_in_drawer >= 0),
        by TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        reason TEXT,
        figures TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE TRIGGER z_reports_append_only_u BEFORE UPDATE ON z_reports
        BEGIN SELECT raise(ABORT, 'Z reports are never rewritten'); END""",
    """CREATE TRIGGER z_reports_append_only_d BEFORE DELETE ON z_reports
        BEGIN SELECT raise(ABORT, 'Z reports are never rewritten'); END""",
)

V9: tuple[str, ...] = (
    "ALTER TABLE orders ADD COLUMN lines TEXT",
    """CREATE TABLE order_returns (
        seq INTEGER PRIMARY KEY,
        return_id TEXT NOT NULL,
        order_key TEXT NOT NULL CHECK (order_key <> ''),
        kind TEXT NOT NULL CHECK (kind IN ('begun', 'done', 'stopped')),
        recorded_at TEXT NOT NULL,
        lines TEXT NOT NULL DEFAULT '{}',
        amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount >= 0),
        by TEXT,
        reason TEXT,
        detail TEXT,
        UNIQUE (return_id, kind)
    )""",
    "CREATE INDEX order_returns_by_order ON order_returns (order_key, seq)",
    """CREATE TRIGGER order_returns_append_only_u BEFORE UPDATE ON order_returns
        BEGIN SELECT raise(ABORT, 'journal returns are append-only'); END""",
    """CREATE TRIGGER order_returns_append_only_d BEFORE DELETE ON order_returns
        BEGIN SELECT raise(ABORT, 'journal returns are append-only'); END""",
)

def _attempts_allowing(*operations: str) -> tuple[str, ...]:
    """The statements that copy ``attempts``, row for row and rowid for rowid, into a table
    whose CHECK allows ``operations`` (SQLite cannot change a CHECK in place), its indexes
    and triggers made again; foreign keys are checked at the commit, when every event and
    open attempt has its attempt again."""
    allowed = ", ".join(f"'{operation}'" for operation in operations)
    return (
        "PRAGMA defer_foreign_keys = ON",  # until the commit: events and open_attempts name attempts meanwhile
        "CREATE TEMP TABLE attempts_before AS SELECT rowid AS old_rowid, * FROM attempts",
        "DROP TABLE attempts",  # its indexes and triggers go with it
        f"""CREATE TABLE attempts (
        id TEXT PRIMARY KEY,
        operation TEXT NOT NULL CHECK (operation IN ({allowed})),
        terminal_id TEXT NOT NULL,
        gateway TEXT NOT NULL,
        amount INTEGER CHECK (amount IS NULL OR (typeof(amount) = 'integer' AND amount > 0)),
        order_key TEXT,
        ref TEXT,
        created_at TEXT NOT NULL,
        request TEXT NOT NULL,
        owner TEXT,
        cashier TEXT
    )""",
        "INSERT INTO attempts (rowid, id, operation, terminal_id, gateway, amount, order_key, ref, created_at, "
        "request, owner, cashier) SELECT old_rowid, id, operation, terminal_id, gateway, amount, order_key, ref, "
        "created_at, request, owner, cashier FROM attempts_before ORDER BY old_rowid",
        "DROP TABLE attempts_before",
        "CREATE INDEX attempts_by_terminal ON attempts (terminal_id, created_at)",
        "CREATE INDEX attempts_by_order ON attempts (order_key) WHERE order_key IS NOT NULL",
        "CREATE INDEX attempts_by_day ON attempts (created_at)",
        "CREATE INDEX attempts_by_ref ON attempts (ref) WHERE ref IS NOT NULL",
        """CREATE TRIGGER attempts_append_only_u BEFORE UPDATE ON attempts
        BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END""",
        """CREATE TRIGGER attempts_append_only_d BEFORE DELETE ON attempts
        BEGIN SELECT raise(ABORT, 'journal attempts are append-only'); END""",
    )


_V10_OPERATIONS = ("sale", "preauth", "capture", "void", "refund", "close_batch", "card_charge", "card_capture",
                   "card_void", "card_refund", "ach_charge", "ach_void", "ach_refund")
V10 = _attempts_allowing(*_V10_OPERATIONS)
V11 = _attempts_allowing(*_V10_OPERATIONS, "subscription_retry")

V12: tuple[str, ...] = (
    """CREATE TABLE parked_orders (
        seq INTEGER PRIMARY KEY,
        parking_id TEXT NOT NULL,
        order_key TEXT NOT NULL CHECK (order_key <> ''),
        stage TEXT NOT NULL CHECK (stage IN ('parking', 'parked', 'paid', 'receipted', 'returned', 'failed')),
        recorded_at TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}',
        UNIQUE (parking_id, stage)
    )""",
    "CREATE UNIQUE INDEX parked_orders_paid_once ON parked_orders (order_key) WHERE stage = 'paid'",
    "CREATE INDEX parked_orders_by_order ON parked_orders (order_key, seq)",
    """CREATE TRIGGER parked_orders_append_only_u BEFORE UPDATE ON parked_orders
        BEGIN SELECT raise(ABORT, 'parked orders are append-only'); END""",
    """CREATE TRIGGER parked_orders_append_only_d BEFORE DELETE ON parked_orders
        BEGIN SELECT raise(ABORT, 'parked orders are append-only'); END""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12)
CURRENT_VERSION = len(MIGRATIONS)


JOURNAL = FileKind(
    name=N_("journal"),
    application_id=APPLICATION_ID,
    migrations=MIGRATIONS,
    error=JournalError,
    corrupt=JournalCorrupt,
    too_new=JournalTooNew,
    from_sqlite=from_sqlite,
    advice=N_("keep a copy for support and start with a new journal path"),
    checks=("SELECT count(*) FROM open_attempts",),  # the schema page and the small recovery index
)


def connect(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """A WAL, ``synchronous=FULL`` connection to a journal at the current schema version."""
    return sqlite_file.connect(JOURNAL, path, busy_timeout=busy_timeout)
