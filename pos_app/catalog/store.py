"""``Catalog``: the merchant's items in a local SQLite file, searched as the cashier types.

Threads. One write connection, guarded by a lock, does every write (``replace_all``, in
one transaction); reads go through one read-only connection per thread, made on first
use. In WAL mode a reader sees the last committed catalog while a sync writes the next
one, so a search from the UI's worker thread never waits for a sync, and each search
reads one snapshot (its queries run in one read transaction: never half old, half new).
Every method may be called from any thread. Reader connections of threads that ended are
closed when the next thread opens one; ``close()`` closes them all: call it once the
threads that search are done.

Search (``search``), ranked in tiers, each tier in name order (the rowid of an item is its
place in name order, so FTS results stream in that order and stop at the limit):
1. the exact SKU (what a scanner or a person typing a whole code gives);
2. names that start with the typed text (case and accents ignored: "gre" → "Green Apples");
3. names with a word starting with each typed word ("gre app" → "Granny Green Apples");
4. a word starting with each typed word in name, SKU or category together ("produce app",
   "0123" for a SKU prefix).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import TracebackType
from typing import Any

from pos_app.catalog.errors import CatalogClosed, CatalogCorrupt, CatalogError
from pos_app.catalog.models import CatalogItem, TaxRate
from pos_app.catalog.schema import connect, connect_reader, sqlite_error
from pos_app.catalog.steps import release_in_steps, sorted_in_steps
from pos_app.catalog.text import key_upper_bound, name_key, prefix_terms, typed_key, words
from pos_app.i18n import N_, _

log = logging.getLogger(__name__)

DEFAULT_BUSY_TIMEOUT = 5.0
"""Seconds a write waits for another process's transaction on the same file."""

MAX_LIMIT = 1000
"""The most rows one ``search`` or ``in_category`` answers."""

_COLUMNS = "pos, id, name, sku, price_cents, category, tax_ids, description"  # not for people
_INSERT = (
    "INSERT INTO items (pos, id, name, name_key, sku, price_cents, category, tax_ids, description) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

type _Row = tuple[int, str, str, str | None, int, str | None, str, str]


def _item(row: _Row) -> CatalogItem:
    __, item_id, name, sku, price, category, tax_ids, description = row
    return CatalogItem(
        id=item_id, name=name, sku=sku, price_cents=price, category=category,
        tax_ids=tuple(json.loads(tax_ids)), description=description,
    )


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number from 1, got {limit!r}")  # not for people
    return min(limit, MAX_LIMIT)


def _clean_sku(sku: str | None) -> str | None:
    if sku is None:
        return None
    sku = sku.strip()
    return sku or None


def code_variants(code: str) -> list[str]:
    """The SKUs a scanned code may be stored as: itself, and the UPC-A / EAN-13 twin.

    A UPC-A code (12 digits) is the EAN-13 code with a leading 0, and scanners are set up
    to send either; so ``"0012345678905"`` also finds ``"012345678905"`` and the other way round.
    """
    variants = [code]
    if code.isascii() and code.isdigit():
        if len(code) == 13 and code.startswith("0"):
            variants.append(code[1:])
        elif len(code) == 12:
            variants.append("0" + code)
    return variants


class Catalog:
    """The local catalog file. Open with ``Catalog.open(path)``; close with ``close()``."""

    def __init__(self, writer: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
        self._writer: sqlite3.Connection | None = writer
        self._path = path
        self._busy_timeout = busy_timeout
        self._write_lock = threading.Lock()
        self._readers: dict[threading.Thread, sqlite3.Connection] = {}
        self._readers_lock = threading.Lock()

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Catalog:
        """Open the catalog at ``path``, creating the file (and its folder) if missing.

        Raises ``CatalogCorrupt`` for a file that is not a pos-app catalog or is damaged,
        ``CatalogTooNew`` for one written by a newer pos-app; the file is left untouched.
        """
        where = Path(path)
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CatalogError(_("the folder of catalog {path} cannot be created: {detail}").format(
                path=where, detail=exc)) from None
        return cls(connect(where, busy_timeout=busy_timeout), where, busy_timeout)

    @property
    def path(self) -> Path:
        return self._path

    @property
    def closed(self) -> bool:
        return self._writer is None

    def close(self) -> None:
        """Close every connection; later calls raise ``CatalogClosed``. Idempotent."""
        with self._write_lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                writer.close()
        with self._readers_lock:
            readers = list(self._readers.values())
            self._readers.clear()
        for conn in readers:
            conn.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Catalog({str(self._path)!r}{', closed' if self.closed else ''})"

    # ------------------------------------------------------------ reads

    def _reader(self) -> sqlite3.Connection:
        if self._writer is None:
            raise CatalogClosed(_("catalog {path} is closed").format(path=self._path))
        thread = threading.current_thread()
        with self._readers_lock:
            conn = self._readers.get(thread)
            if conn is None:
                for gone in [t for t in self._readers if not t.is_alive()]:
                    self._readers.pop(gone).close()
                conn = connect_reader(self._path, busy_timeout=self._busy_timeout)
                self._readers[thread] = conn
        return conn

    def _read[T](self, doing: str, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on this thread's reader, inside one read transaction (one snapshot)."""
        conn = self._reader()
        try:
            conn.execute("BEGIN")
            try:
                return work(conn)
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")
        except sqlite3.ProgrammingError:
            if self._writer is None:
                raise CatalogClosed(_("catalog {path} was closed while {doing}").format(
                    path=self._path, doing=_(doing))) from None
            raise
        except sqlite3.Error as exc:
            raise sqlite_error(exc, self._path, doing) from None

    def search(self, text: str, limit: int = 20) -> list[CatalogItem]:
        """Items for what the cashier typed so far, best first (see the module's tiers).

        Every typed word is a prefix ("gre app" finds "Green Apples"); case and accents
        are ignored; punctuation and FTS syntax only separate words, so no text raises.
        Empty or blank text gives ``[]``.
        """
        limit = _check_limit(limit)
        if not isinstance(text, str):
            raise TypeError(f"search text must be a str, got {type(text).__name__}")  # not for people
        typed = words(text)
        if not typed:
            return []
        code = text.strip()
        key = typed_key(text)
        terms = prefix_terms(typed)

        def run(conn: sqlite3.Connection) -> list[CatalogItem]:
            found: dict[int, _Row] = {}

            def add(sql: str, *params: Any) -> bool:
                for row in conn.execute(sql, (*params, limit + len(found))):
                    if len(found) >= limit:
                        break
                    found.setdefault(row[0], row)
                return len(found) >= limit

            if not any(c.isspace() for c in code):
                for variant in code_variants(code):
                    add(f"SELECT {_COLUMNS} FROM items WHERE sku = ? ORDER BY pos LIMIT ?", variant)
            if add(
                f"SELECT {_COLUMNS} FROM items WHERE name_key >= ? AND name_key < ? ORDER BY name_key, pos LIMIT ?",
                key, key_upper_bound(key),
            ):
                return [_item(r) for r in found.values()]
            try:
                for expression in (f"name : ({terms})", terms):
                    if add(
                        f"SELECT {_COLUMNS} FROM items WHERE pos IN "
                        "(SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid LIMIT ?) ORDER BY pos",
                        expression,
                    ):
                        break
            except sqlite3.OperationalError as exc:  # never expected: the terms are quoted words
                log.warning("catalog full-text query %r failed: %s", expression, exc)
            return [_item(r) for r in found.values()]

        return self._read(N_("searching"), run)

    def by_code(self, code: str) -> CatalogItem | None:
        """The item whose SKU is exactly ``code`` (surrounding whitespace ignored), or None.

        What a barcode scanner types; a UPC-A code also finds its EAN-13 form and the other
        way round (``code_variants``). Should two items share a SKU, the first by name wins.
        """
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")  # not for people
        code = code.strip()
        if not code:
            return None

        def run(conn: sqlite3.Connection) -> CatalogItem | None:
            for variant in code_variants(code):
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM items WHERE sku = ? ORDER BY pos LIMIT 1", (variant,)
                ).fetchone()
                if row is not None:
                    return _item(row)
            return None

        return self._read(N_("looking up a code"), run)

    def get(self, item_id: str) -> CatalogItem | None:
        """The item with the service's id ``item_id``, or None."""

        def run(conn: sqlite3.Connection) -> CatalogItem | None:
            row = conn.execute(f"SELECT {_COLUMNS} FROM items WHERE id = ?", (item_id,)).fetchone()
            return None if row is None else _item(row)

        return self._read(N_("reading an item"), run)

    def categories(self) -> list[str]:
        """Category names that have at least one item, in the service's order (for quick keys)."""

        def run(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute(
                "SELECT name FROM categories c WHERE EXISTS (SELECT 1 FROM items i WHERE i.category = c.name) "
                "ORDER BY pos"
            ).fetchall()
            return [name for (name,) in rows]

        return self._read(N_("reading categories"), run)

    def in_category(self, name: str, limit: int = 50) -> list[CatalogItem]:
        """Items whose (first) category is ``name``, in name order."""
        limit = _check_limit(limit)

        def run(conn: sqlite3.Connection) -> list[CatalogItem]:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM items WHERE category = ? ORDER BY pos LIMIT ?", (name, limit)
            ).fetchall()
            return [_item(r) for r in rows]

        return self._read(N_("reading a category"), run)

    def codes_containing(self, characters: str) -> frozenset[str]:
        """Which of ``characters`` occur in some item's SKU (a scan types them: the sale
        screen keeps ``+`` and ``-`` for the selected line unless a code holds them)."""

        def run(conn: sqlite3.Connection) -> frozenset[str]:
            return frozenset(char for char in characters
                             if conn.execute("SELECT 1 FROM items WHERE instr(sku, ?) > 0 LIMIT 1", (char,)).fetchone())

        return self._read(N_("reading the codes"), run)

    def tax_uses(self) -> list[tuple[tuple[str, ...], int]]:
        """Each set of taxes the items carry (an item's ``tax_ids``, as stored) and how many
        items carry it; discounts, which carry none, are not counted. What the misc key's
        default tax class is chosen by (``pos_app.cart.tax_choice``)."""

        def run(conn: sqlite3.Connection) -> list[tuple[tuple[str, ...], int]]:
            rows = conn.execute("SELECT tax_ids, COUNT(*) FROM items WHERE price_cents >= 0 GROUP BY tax_ids")
            return [(tuple(json.loads(tax_ids)), count) for tax_ids, count in rows]

        return self._read(N_("reading the items' taxes"), run)

    def taxes(self) -> dict[str, TaxRate]:
        """The merchant's taxes by id, in the service's order, as stored by the last sync.

        A rate out of ``TaxRate``'s bounds (stored by an older pos-app, which took 1E+30) is
        left out and logged, as the sync now does; a rate that is no number at all is damage
        (``CatalogCorrupt``)."""

        def run(conn: sqlite3.Connection) -> dict[str, TaxRate]:
            rates: dict[str, TaxRate] = {}
            for tax_id, name, rate in conn.execute("SELECT id, name, rate FROM taxes ORDER BY pos"):
                try:
                    exact = Decimal(rate)
                except (InvalidOperation, TypeError):
                    raise CatalogCorrupt(_("catalog {path}: tax {tax} has rate {rate}").format(
                        path=self._path, tax=repr(tax_id), rate=repr(rate))) from None
                try:
                    rates[tax_id] = TaxRate(tax_id, name, exact)
                except ValueError as error:
                    log.warning("catalog %s: a stored tax is left out until the next sync: %s", self._path, error)
            return rates

        return self._read(N_("reading taxes"), run)

    def synced_at(self) -> datetime | None:
        """When the last sync committed (UTC, aware), or None if the catalog was never synced."""

        def run(conn: sqlite3.Connection) -> datetime | None:
            row = conn.execute("SELECT synced_at FROM sync_state WHERE one = 1").fetchone()
            return None if row is None else datetime.fromisoformat(row[0]).astimezone(UTC)

        return self._read(N_("reading the sync time"), run)

    def count(self) -> int:
        """How many items the catalog holds."""

        def run(conn: sqlite3.Connection) -> int:
            row = conn.execute("SELECT item_count FROM sync_state WHERE one = 1").fetchone()
            return 0 if row is None else int(row[0])

        return self._read(N_("counting items"), run)

    # ------------------------------------------------------------ the one write

    def replace_all(
        self,
        items: Iterable[CatalogItem],
        *,
        taxes: Iterable[TaxRate],
        categories: Iterable[str],
        synced_at: datetime,
    ) -> int:
        """Replace the whole catalog in ONE transaction; returns the number of items stored.

        Blocking (SQLite work): call it from a worker thread (``sync_catalog`` does, with
        ``asyncio.to_thread``). Either everything is replaced or, on any error, nothing is:
        readers see the old catalog until the commit. ``categories`` is the service's order;
        categories of items missing from it are added after, in alphabetical order. Two items with one id raise
        ``ValueError`` before anything is written.
        """
        if synced_at.tzinfo is None or synced_at.utcoffset() is None:
            raise ValueError(f"synced_at must be timezone-aware, got {synced_at!r}")  # not for people
        rows: list[tuple[str, str, str, str | None, int, str | None, str, str]] = []
        seen: set[str] = set()
        tax_texts: dict[tuple[str, ...], str] = {}  # few distinct tax sets: encode each once
        for item in items:
            if not isinstance(item, CatalogItem):
                raise TypeError(f"expected CatalogItem, got {type(item).__name__}")  # not for people
            if item.id in seen:
                raise ValueError(f"item id {item.id!r} appears twice")  # not for people
            seen.add(item.id)
            rows.append((
                name_key(item.name), item.name, item.id, _clean_sku(item.sku), item.price_cents,
                item.category, tax_texts.get(item.tax_ids) or tax_texts.setdefault(
                    item.tax_ids, json.dumps(list(item.tax_ids))), item.description,
            ))
        rows = sorted_in_steps(rows)  # in a worker thread: short holds of the GIL, the event loop runs between them
        tax_rows = [(t.id, t.name, str(t.rate), index) for index, t in enumerate(taxes)]
        category_names = list(dict.fromkeys(categories))
        listed = set(category_names)
        category_names += sorted({r[5] for r in rows if r[5] is not None and r[5] not in listed})
        stamp = synced_at.astimezone(UTC).isoformat(timespec="microseconds")
        with self._write_lock:
            conn = self._writer
            if conn is None:
                raise CatalogClosed(_("catalog {path} is closed").format(path=self._path))
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute("DELETE FROM items")
                    conn.executemany(
                        _INSERT,
                        ((pos, r[2], r[1], r[0], r[3], r[4], r[5], r[6], r[7]) for pos, r in enumerate(rows, 1)),
                    )
                    conn.execute("INSERT INTO items_fts (items_fts) VALUES ('rebuild')")
                    conn.execute("DELETE FROM taxes")
                    conn.executemany("INSERT INTO taxes (id, name, rate, pos) VALUES (?, ?, ?, ?)", tax_rows)
                    conn.execute("DELETE FROM categories")
                    conn.executemany(
                        "INSERT INTO categories (pos, name) VALUES (?, ?)", list(enumerate(category_names, 1))
                    )
                    conn.execute(
                        "INSERT OR REPLACE INTO sync_state (one, synced_at, item_count) VALUES (1, ?, ?)",
                        (stamp, len(rows)),
                    )
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._path, N_("replacing the catalog")) from None
            try:  # a whole catalog went through the WAL: move it home and give the disk back
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error as exc:  # readers may hold it; the automatic checkpoints catch up
                log.info("catalog checkpoint after a sync deferred: %s", exc)
        count = len(rows)
        release_in_steps(rows)
        return count
