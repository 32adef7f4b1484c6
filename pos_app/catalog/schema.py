"""The catalog file's layout, its versioned migrations, and the checks made before use.

The schema version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a file from
version ``i`` to ``i + 1`` and is never edited once released (a change is a new step).
Opening refuses, without writing a byte, a file that is not SQLite, a SQLite file that is
not a pos-app catalog, and a catalog written by a newer pos-app.

Version 1: ``items`` (one row per live item; ``pos``, the rowid, is the item's place in
name order, so rowid order is alphabetical order), ``items_fts`` (FTS5 over name, SKU and
category, external content on ``items``, prefix indexes for 1 to 3 characters), indexes by
SKU, by folded name and by category; ``taxes``; ``categories``; ``sync_state`` (one row:
when the catalog was last synced).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from pos_app.catalog.errors import CatalogCorrupt, CatalogError, CatalogTooNew

APPLICATION_ID = 0x504F5343  # "POSC" in the SQLite header: this file is a pos-app catalog
SQLITE_MAGIC = b"SQLite format 3\x00"

V1: tuple[str, ...] = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    """CREATE TABLE items (
        pos INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        sku TEXT,
        price_cents INTEGER NOT NULL CHECK (typeof(price_cents) = 'integer'),
        category TEXT,
        tax_ids TEXT NOT NULL DEFAULT '[]',
        description TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX items_by_sku ON items (sku) WHERE sku IS NOT NULL",
    "CREATE INDEX items_by_name_key ON items (name_key)",
    "CREATE INDEX items_by_category ON items (category, pos) WHERE category IS NOT NULL",
    """CREATE VIRTUAL TABLE items_fts USING fts5 (
        name, sku, category,
        content = 'items', content_rowid = 'pos',
        tokenize = 'unicode61 remove_diacritics 2',
        prefix = '1 2 3'
    )""",
    """CREATE TABLE taxes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        rate TEXT NOT NULL,
        pos INTEGER NOT NULL
    )""",
    "CREATE TABLE categories (pos INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    """CREATE TABLE sync_state (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        synced_at TEXT NOT NULL,
        item_count INTEGER NOT NULL
    )""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (V1,)
CURRENT_VERSION = len(MIGRATIONS)


def check_header(path: Path) -> None:
    """Refuse a non-empty file that does not start like SQLite, before SQLite opens it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CatalogError(f"catalog {path} cannot be read: {exc}") from None
    if head and (len(head) < 100 or not head.startswith(SQLITE_MAGIC)):
        raise CatalogCorrupt(
            f"catalog {path} is not a database (it does not start with the SQLite header); it was "
            "left as it is: move it aside and sync the catalog again (it is a copy of the service's)"
        )


def inspect(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of an opened file, after making sure it is ours and not too new. Only reads."""
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id: int = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id != APPLICATION_ID:
        tables: int = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if app_id != 0 or version != 0 or tables:
            raise CatalogCorrupt(
                f"{path} is a SQLite database but not a pos-app catalog (application_id {app_id:#x}, "
                f"{tables} schema objects); it was left as it is: point the catalog at another file"
            )
    if version > CURRENT_VERSION:
        raise CatalogTooNew(
            f"catalog {path} has schema version {version}, written by a newer pos-app; this pos-app "
            f"understands up to version {CURRENT_VERSION}. Update pos-app, or move the file aside and "
            "sync again; the file was left as it is"
        )
    return version


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the file to ``CURRENT_VERSION`` in one write transaction (re-read under the write lock)."""
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


def use_wal(conn: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
    """Switch to WAL, retrying while another process holds the file (SQLite reports that
    lock as busy at once instead of calling the busy handler)."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            mode: str = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as exc:
            busy = (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (5, 6)
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)
    if mode.lower() != "wal":
        raise CatalogError(f"catalog {path} cannot use write-ahead logging (got {mode!r})")


def sqlite_error(exc: sqlite3.Error, path: Path, doing: str) -> CatalogError:
    """A SQLite error as a catalog error: damage reports become ``CatalogCorrupt``."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return CatalogCorrupt(
            f"catalog {path} is damaged ({exc}) while {doing}; it was left as it is: move it aside "
            "and sync the catalog again (it is a copy of the service's)"
        )
    return CatalogError(f"catalog {path}: {doing} failed: {exc}")


def connect(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """The write connection: WAL, ``synchronous=NORMAL``, schema at the current version.

    NORMAL, not FULL: the catalog is a copy of the service's; a power cut may lose the
    last sync (never corrupt the file), and the next sync brings it back.
    """
    check_header(path)
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, "opening") from None
    try:
        conn.execute("BEGIN")
        try:
            version = inspect(conn, path)  # read-only: refusals leave the file untouched
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
        use_wal(conn, path, busy_timeout)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA journal_size_limit = 8388608")
        if version != CURRENT_VERSION:
            migrate(conn, path)
        # Cheap damage check: the schema and the small tables must read.
        conn.execute("SELECT count(*) FROM sync_state").fetchone()
        conn.execute("SELECT count(*) FROM taxes").fetchone()
    except CatalogError:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise sqlite_error(exc, path, "opening") from None
    except BaseException:
        conn.close()
        raise
    return conn


def connect_reader(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """A read-only connection for one thread's searches (``query_only``; WAL snapshot reads)."""
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, "opening a reader") from None
    return conn
