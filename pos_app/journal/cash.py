"""The cash ledger and the numbered Z reports, in the journal's file.

Cash moves at the counter without the service knowing: an order paid (in part) in cash,
change handed back, cash given back when an order is cancelled, cash put in or taken out
of the drawer, the drawer opened for no sale. Each movement is one append-only row,
written and committed before the drawer opens, so a kill -9 at any moment leaves the
ledger saying what the drawer should hold. It lives in the journal's file so that a card
charge and a cash line of the same order are judged in one transaction: the order guard
(``Journal.begin_attempt``) and ``Journal.record_cash_sale`` both read the order's balance
(its latest recorded total, less its card charges and its cash) under the write lock.

A shift's cash is every movement after the last Z report's mark (``last_seq``): a Z
records what was expected, counted and left in the drawer, is numbered (Z-0001...) and
never rewritten.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pos_app.journal.codec import dump_json, load_json, parse_time


class CashKind(StrEnum):
    SALE = "sale"
    """Cash taken for an order: ``tendered`` received, ``change`` handed back, ``amount`` kept
    (tendered − change) toward the order's balance."""
    RETURN = "return"
    """Cash given back from the drawer for an order (cancelled, or goods returned)."""
    CASH_IN = "cash_in"
    """Cash put into the drawer (a manager, with a reason)."""
    CASH_OUT = "cash_out"
    """Cash taken out of the drawer (a manager, with a reason)."""
    NO_SALE = "no_sale"
    """The drawer opened with no money moving (a manager, with a reason)."""


INTO_DRAWER = frozenset({CashKind.SALE, CashKind.CASH_IN})
OUT_OF_DRAWER = frozenset({CashKind.RETURN, CashKind.CASH_OUT})


@dataclass(frozen=True)
class CashEntry:
    """One movement of the drawer's cash, in cents (``amount`` ≥ 0; its kind says which way)."""

    seq: int
    id: str
    kind: CashKind
    amount: int
    at: datetime
    order_key: str | None = None
    tendered: int | None = None
    change: int | None = None
    station_id: str | None = None
    cashier: str | None = None
    reason: str | None = None

    @property
    def drawer_change(self) -> int:
        """What the movement did to the drawer's cash (negative: cash left it)."""
        if self.kind in INTO_DRAWER:
            return self.amount
        if self.kind in OUT_OF_DRAWER:
            return -self.amount
        return 0


@dataclass(frozen=True)
class ZReport:
    """A closed shift's cash count, numbered and never rewritten."""

    number: int
    closed_at: datetime
    station_id: str
    terminal_id: str | None
    opening_float: int
    expected: int
    counted: int
    left_in_drawer: int
    """What stays in the drawer for the next shift (its opening float)."""
    by: str
    last_seq: int
    """The last cash movement this Z counted: the next shift's movements come after it."""
    reason: str | None = None
    """Why the count differs from the expected cash, when a manager signed for it."""
    figures: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def over_short(self) -> int:
        return self.counted - self.expected

    @property
    def label(self) -> str:
        return f"Z-{self.number:04d}"


CASH_COLUMNS = (
    "seq, id, kind, amount, created_at, order_key, tendered, change, station_id, cashier, reason"  # not for people
)
Z_COLUMNS = ("number, closed_at, station_id, terminal_id, opening_float, expected, counted, left_in_drawer, by, "
             "last_seq, reason, figures")  # not for people
ORDER_CASH_SQL = f"SELECT {CASH_COLUMNS} FROM cash WHERE order_key = ? ORDER BY seq"
SINCE_SQL = f"SELECT {CASH_COLUMNS} FROM cash WHERE seq > ? ORDER BY seq"
LAST_Z_SQL = f"SELECT {Z_COLUMNS} FROM z_reports ORDER BY number DESC LIMIT 1"
ALL_Z_SQL = f"SELECT {Z_COLUMNS} FROM z_reports ORDER BY number"
ONE_Z_SQL = f"SELECT {Z_COLUMNS} FROM z_reports WHERE number = ?"
LAST_SEQ_SQL = "SELECT coalesce(max(seq), 0) FROM cash"
LATEST_TOTAL_SQL = "SELECT total FROM orders WHERE order_key = ? ORDER BY seq DESC LIMIT 1"
ORDER_CASH_NET_SQL = (
    "SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount WHEN 'return' THEN -amount ELSE 0 END), 0) "
    "FROM cash WHERE order_key = ?"
)


def check_cents(value: object, what: str, *, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number of cents, got {value!r}")  # not for people
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{what} must be {'above' if positive else 'at least'} zero, got {value}")  # not for people
    return value


def insert(conn: sqlite3.Connection, entry_id: str, kind: CashKind, amount: int, at: str, *,
           order_key: str | None = None, tendered: int | None = None, change: int | None = None,
           station_id: str | None = None, cashier: str | None = None, reason: str | None = None) -> int:
    cursor = conn.execute(
        f"INSERT INTO cash ({CASH_COLUMNS.removeprefix('seq, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (entry_id, kind.value, amount, at, order_key, tendered, change, station_id, cashier, reason),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def entries(conn: sqlite3.Connection, sql: str, args: Iterable[Any]) -> list[CashEntry]:
    return [_entry(row) for row in conn.execute(sql, tuple(args))]


def _entry(row: Any) -> CashEntry:
    seq, entry_id, kind, amount, at, order_key, tendered, change, station_id, cashier, reason = row
    return CashEntry(seq, entry_id, CashKind(kind), amount, parse_time(at), order_key, tendered, change,
                     station_id, cashier, reason)


def z_report(row: Any) -> ZReport:
    (number, closed_at, station_id, terminal_id, opening_float, expected, counted, left, by, last_seq, reason,
     figures) = row
    return ZReport(number, parse_time(closed_at), station_id, terminal_id, opening_float, expected, counted, left,
                   by, last_seq, reason, MappingProxyType(dict(load_json(figures))))


def insert_z(conn: sqlite3.Connection, at: str, *, station_id: str, terminal_id: str | None, opening_float: int,
             expected: int, counted: int, left_in_drawer: int, by: str, last_seq: int, reason: str | None,
             figures: Mapping[str, Any]) -> int:
    number = int(conn.execute("SELECT coalesce(max(number), 0) + 1 FROM z_reports").fetchone()[0])
    conn.execute(
        f"INSERT INTO z_reports ({Z_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (number, at, station_id, terminal_id, opening_float, expected, counted, left_in_drawer, by, last_seq,
         reason, dump_json(dict(figures), what="Z figures")),
    )
    return number
