"""Small builders shared by the journal tests (a sale, a raw connection, a file digest)."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pos_app.journal import Attempt, Journal, Operation


def sale(
    journal: Journal,
    terminal: str = "T1",
    order: str | None = "o-1",
    amount: int = 1250,
    *,
    operation: Operation = Operation.SALE,
    gateway: str = "S",
) -> Attempt:
    return journal.begin_attempt(
        operation=operation,
        terminal_id=terminal,
        gateway=gateway,
        amount=amount,
        order_key=order,
        request={"terminalId": terminal, "amount": amount, "receipt": True},
    )


def raw(path: Path) -> sqlite3.Connection:
    """A second, independent connection to the journal file (autocommit)."""
    return sqlite3.connect(path, isolation_level=None)


def count(path: Path, table: str) -> int:
    conn = raw(path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Clock:
    """A settable clock for ``Journal.open(clock=...)``."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 7, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
