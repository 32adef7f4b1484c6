"""The catalog file's layout, its versioned migrations, and the checks made before use.

The schema version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a file from
version ``i`` to ``i + 1`` and is never edited once released (a change is a new step).
Opening (``pos_app.sqlite_file``) refuses, without writing a byte, a file that is not SQLite,
a SQLite file that is not a pos-app catalog, and a catalog written by a newer pos-app.

Version 1: ``items`` (one row per live item; ``pos``, the rowid, is the item's place in
name order, so rowid order is alphabetical order), ``items_fts`` (FTS5 over name, SKU and
category, external content on ``items``, prefix indexes for 1 to 3 characters), indexes by
SKU, by folded name and by category; ``taxes``; ``categories``; ``sync_state`` (one row:
when the catalog was last synced).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pos_app import sqlite_file
from pos_app.catalog.errors import CatalogCorrupt, CatalogError, CatalogTooNew
from pos_app.i18n import N_, _
from pos_app.sqlite_file import FileKind

APPLICATION_ID = 0x504F5343  # "POSC" in the SQLite header: this file is a pos-app catalog

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


def sqlite_error(exc: sqlite3.Error, path: Path, doing: str) -> CatalogError:
    """A SQLite error as a catalog error: damage reports become ``CatalogCorrupt``. ``doing`` is
    marked ``N_()`` where written ("reading an item") and translated here."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return CatalogCorrupt(
            _("catalog {path} is damaged ({detail}) while {doing}; it was left as it is: move it aside "
              "and sync the catalog again (it is a copy of the service's)").format(
                path=path, detail=exc, doing=_(doing))
        )
    return CatalogError(_("catalog {path}: {doing} failed: {detail}").format(path=path, doing=_(doing), detail=exc))


CATALOG = FileKind(
    name="catalog",
    application_id=APPLICATION_ID,
    migrations=MIGRATIONS,
    error=CatalogError,
    corrupt=CatalogCorrupt,
    too_new=CatalogTooNew,
    from_sqlite=sqlite_error,
    advice=N_("move it aside and sync the catalog again (the catalog is a copy of the service's)"),
    too_new_advice=N_("Update pos-app, or move the file aside and sync again"),
    # NORMAL, not FULL: the catalog is a copy of the service's; a power cut may lose the
    # last sync (never corrupt the file), and the next sync brings it back.
    synchronous="NORMAL",
    checks=("SELECT count(*) FROM sync_state", "SELECT count(*) FROM taxes"),  # the schema, the small tables
)


def connect(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """The write connection: WAL, ``synchronous=NORMAL``, schema at the current version."""
    return sqlite_file.connect(CATALOG, path, busy_timeout=busy_timeout, check_same_thread=False)


def connect_reader(path: Path, *, busy_timeout: float) -> sqlite3.Connection:
    """A read-only connection for one thread's searches (``query_only``; WAL snapshot reads)."""
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, N_("opening a reader")) from None
    return conn
