"""The totals of each order sent to be paid: what the cart came to (subtotal, tax, total,
and the tax by name), kept so that the reports can say how much tax was collected; the
service knows the amount charged, never the tax in it.

A row is written (``Journal.record_order``) each time a cart is sent to be paid, before the
payment's attempt is begun, and never changed: a cart paid again after a decline, with a
line added, gets a second row. The totals an attempt paid are those of the latest row of
its order recorded at or before the attempt was begun (``OrderTotals.of``).

Since schema version 9 a row also keeps the cart's lines (``OrderLine``: what the order
sold, for a return of some of them); ``order_lines`` reads the latest row that has them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from pos_app.journal.codec import dump_json, load_json, parse_time

COLUMNS = "order_key, recorded_at, subtotal, tax, total, taxes"  # not for people
LINES_SQL = "SELECT lines FROM orders WHERE order_key = ? AND lines IS NOT NULL ORDER BY seq DESC LIMIT 1"
ROWS_SQL = (f"SELECT {COLUMNS} FROM orders WHERE order_key IN (SELECT value FROM json_each(?)) "
            "ORDER BY order_key, seq")


@dataclass(frozen=True)
class OrderTotals:
    """One order's totals as sent to be paid, in cents."""

    order_key: str
    recorded_at: datetime
    subtotal: int
    tax: int
    total: int
    taxes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """Tax name → cents (by name), each tax rounded on its own: the sum may differ from ``tax`` by a cent."""

    @staticmethod
    def of(rows: Iterable[OrderTotals], begun: datetime) -> OrderTotals | None:
        """Of one order's rows (oldest first), the latest recorded at or before ``begun``."""
        found = None
        for row in rows:
            if row.recorded_at > begun:
                break
            found = row
        return found


@dataclass(frozen=True)
class OrderLine:
    """One line of an order as it was sent to be paid, in cents: ``tax_cents`` is the
    line's whole tax (the cart's ``Totals.per_line``), for all ``quantity``."""

    line_id: int
    name: str
    sku: str | None
    unit_cents: int
    quantity: int
    tax_cents: int = 0

    def __post_init__(self) -> None:
        for what, value in (("line_id", self.line_id), ("unit_cents", self.unit_cents),
                            ("quantity", self.quantity), ("tax_cents", self.tax_cents)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"an order line's {what} must be a whole number, got {value!r}")  # not for people
        if self.line_id < 1 or self.quantity < 1 or self.tax_cents < 0:
            raise ValueError(
                f"an order line needs an id and a quantity from 1 and no negative tax: {self!r}")  # not for people
        if not isinstance(self.name, str) or (self.sku is not None and not isinstance(self.sku, str)):
            raise ValueError(f"an order line's name and sku are text: {self!r}")  # not for people

    @property
    def base_cents(self) -> int:
        return self.unit_cents * self.quantity

    def to_json(self) -> dict[str, Any]:
        return {"line_id": self.line_id, "name": self.name, "sku": self.sku, "unit_cents": self.unit_cents,
                "quantity": self.quantity, "tax_cents": self.tax_cents}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OrderLine:
        return cls(data["line_id"], data["name"], data.get("sku"), data["unit_cents"], data["quantity"],
                   data.get("tax_cents", 0))


def check_lines(lines: object) -> list[OrderLine] | None:
    """``ValueError`` for lines that are not ``OrderLine``s with distinct ids; None stays None."""
    if lines is None:
        return None
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise ValueError(f"an order's lines are a list of OrderLine, got {type(lines).__name__}")  # not for people
    found = list(lines)
    if not all(isinstance(line, OrderLine) for line in found):
        raise ValueError("an order's lines are a list of OrderLine")  # not for people
    if len({line.line_id for line in found}) != len(found):
        raise ValueError("an order's lines each have their own line id")  # not for people
    return found


def check_totals(order_key: object, subtotal: object, tax: object, taxes: object) -> dict[str, int]:
    """``ValueError`` saying what is wrong with totals that make no sense; the taxes as a dict."""
    if not isinstance(order_key, str) or not order_key.strip():
        raise ValueError(f"an order's totals need its order key, got {order_key!r}")  # not for people
    for name, value in (("subtotal", subtotal), ("tax", tax)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"an order's {name} must be a whole number of cents, got {value!r}")  # not for people
    assert isinstance(tax, int)
    if tax < 0:
        raise ValueError(f"an order's tax cannot be negative, got {tax}")  # not for people
    if not isinstance(taxes, Mapping):
        raise ValueError(
            f"an order's taxes must map each tax name to cents, got {type(taxes).__name__}")  # not for people
    checked: dict[str, int] = {}
    for name, cents in taxes.items():
        if not isinstance(name, str) or not name.strip() or isinstance(cents, bool) or not isinstance(cents, int):
            raise ValueError(
                f"an order's taxes must map each tax name to cents, got {name!r}: {cents!r}")  # not for people
        checked[name] = cents
    return checked


def insert(conn: sqlite3.Connection, order_key: str, at: str, subtotal: int, tax: int, taxes: dict[str, int],
           lines: list[OrderLine] | None = None) -> None:
    kept = None if lines is None else dump_json({"lines": [line.to_json() for line in lines]},
                                                what="order lines")  # not for people
    conn.execute(
        "INSERT INTO orders (order_key, recorded_at, subtotal, tax, total, taxes, lines) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (order_key, at, subtotal, tax, subtotal + tax, dump_json(taxes, what="order taxes"), kept),
    )


def read_lines(conn: sqlite3.Connection, order_key: str) -> list[OrderLine] | None:
    """The lines of the order's latest row that kept them; None when none did (an order
    recorded before schema version 9, or by the command line)."""
    row = conn.execute(LINES_SQL, (order_key,)).fetchone()
    if row is None:
        return None
    return [OrderLine.from_json(data) for data in load_json(row[0]).get("lines", [])]


def read(conn: sqlite3.Connection, order_keys: Iterable[str]) -> dict[str, tuple[OrderTotals, ...]]:
    """Every row of each of ``order_keys`` that has one, oldest first."""
    found: dict[str, list[OrderTotals]] = {}
    for row in conn.execute(ROWS_SQL, (json.dumps(sorted(set(order_keys))),)):
        found.setdefault(row[0], []).append(_totals(row))
    return {key: tuple(rows) for key, rows in found.items()}


def _totals(row: Any) -> OrderTotals:
    order_key, recorded_at, subtotal, tax, total, taxes = row
    return OrderTotals(order_key, parse_time(recorded_at), subtotal, tax, total,
                       MappingProxyType(dict(load_json(taxes))))
