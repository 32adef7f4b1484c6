"""Returns of an order's lines, in the journal's file (``ReturnBook``, a part of ``Journal``).

A return is written ``begun`` (its lines: line id → quantity, the amount to give back, the
manager and the reason) and committed before any of its money moves, then ``done`` or
``stopped`` (with what was given back and why it stopped). Append-only. The lines of every
begun return count as returned, whether it ended or not: a return stopped half-way (a void
declined, a refund unknown) is finished by a manager from the back office, never by
returning the same items twice.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pos_app.i18n import _
from pos_app.journal.cash import check_cents
from pos_app.journal.codec import dump_json, load_json, parse_time
from pos_app.journal.orders import read_lines


class ReturnStage(StrEnum):
    BEGUN = "begun"
    DONE = "done"
    STOPPED = "stopped"


@dataclass(frozen=True)
class ReturnRecord:
    """One row of a return: its stage, the lines it takes back (line id → quantity) and,
    ``begun``, the amount it gives back; ``done``/``stopped``, what was given back."""

    seq: int
    return_id: str
    order_key: str
    stage: ReturnStage
    at: datetime
    lines: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    amount: int = 0
    by: str | None = None
    reason: str | None = None
    detail: str | None = None


COLUMNS = "seq, return_id, order_key, kind, recorded_at, lines, amount, by, reason, detail"  # not for people
ORDER_SQL = f"SELECT {COLUMNS} FROM order_returns WHERE order_key = ? ORDER BY seq"


def new_return_id() -> str:
    """``r-`` and 16 URL-safe characters: a return's id."""
    return "r-" + secrets.token_urlsafe(12)


def _record(row: Any) -> ReturnRecord:
    seq, return_id, order_key, kind, at, lines, amount, by, reason, detail = row
    picked = {int(key): int(value) for key, value in load_json(lines).items()}
    return ReturnRecord(seq, return_id, order_key, ReturnStage(kind), parse_time(at), MappingProxyType(picked),
                        amount, by, reason, detail)


def _check_not_returned(conn: sqlite3.Connection, order_key: str, picked: Mapping[int, int],
                        returns_before: int | None) -> None:
    """``ValueError`` when a picked line, with what earlier returns (begun ones included) took
    of it, comes to more than the order sold, or when a return began since the plan was
    read: a return planned from a stale read of the order (two windows, an old dialog)
    gives nothing back twice."""
    sold = {line.line_id: line for line in read_lines(conn, order_key) or ()}
    taken: dict[int, int] = {}
    begun = 0
    for row in conn.execute(ORDER_SQL, (order_key,)).fetchall():
        record = _record(row)
        if record.stage is ReturnStage.BEGUN:
            begun += 1
            for line_id, quantity in record.lines.items():
                taken[line_id] = taken.get(line_id, 0) + quantity
    if returns_before is not None and begun != returns_before:
        raise ValueError(_("order {order} had another return since it was read: read it again before this one").format(
            order=order_key))
    for line_id, quantity in picked.items():
        line = sold.get(line_id)
        if line is None:
            raise ValueError(_("order {order} sold no line {line}").format(order=order_key, line=line_id))
        if taken.get(line_id, 0) + quantity > line.quantity:
            raise ValueError(_("{item}: {returned} of {sold} returned already, {more} more cannot be (read the order "
                               "again)").format(item=line.name, returned=taken.get(line_id, 0), sold=line.quantity,
                                                more=quantity))


def check_picked(lines: Mapping[int, int]) -> dict[str, int]:
    """The picked lines as stored (``ValueError`` unless line ids map to quantities from 1)."""
    if not isinstance(lines, Mapping) or not lines:
        raise ValueError(_("a return takes back at least one line"))
    for line_id, quantity in lines.items():
        for value in (line_id, quantity):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"a return maps line ids to quantities from 1, got {line_id!r}: {quantity!r}")  # not for people
    return {str(line_id): quantity for line_id, quantity in sorted(lines.items())}


class ReturnBook:
    """The returns' part of ``Journal`` (its transactions, its clock)."""

    def _write(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _read(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _now(self) -> str:
        raise NotImplementedError

    def begin_return(self, order_key: str, lines: Mapping[int, int], amount: int, *, by: str,
                     reason: str, returns_before: int | None = None) -> ReturnRecord:
        """A return of ``lines`` (line id → quantity) of the order giving back ``amount``
        cents, durably, before any money moves; its ``return_id`` names it later.
        ``ValueError`` when a line would be returned beyond what was sold, or (with
        ``returns_before``, how many returns the order had when the plan was read) when
        another return began since: the plan is stale."""
        stored = check_picked(lines)
        check_cents(amount, "a return's amount", positive=True)  # not for people
        if not order_key.strip() or not by.strip() or not reason.strip():
            raise ValueError(_("a return names its order, the manager and a reason"))
        return self._insert(new_return_id(), order_key, ReturnStage.BEGUN, stored, amount, by, reason, None,
                            check=lambda conn: _check_not_returned(conn, order_key, lines, returns_before))

    def end_return(self, begun: ReturnRecord, *, given_back: int, problem: str = "") -> ReturnRecord:
        """How the return ended: ``done``, or ``stopped`` with ``problem``; ``given_back`` cents."""
        check_cents(given_back, "the cents given back")  # not for people
        stage = ReturnStage.STOPPED if problem else ReturnStage.DONE
        return self._insert(begun.return_id, begun.order_key, stage, {}, given_back, begun.by, begun.reason,
                            problem or None)

    def _insert(self, return_id: str, order_key: str, stage: ReturnStage, lines: dict[str, int], amount: int,
                by: str | None, reason: str | None, detail: str | None,
                check: Callable[[sqlite3.Connection], None] | None = None) -> ReturnRecord:
        with self._write(_("recording a return of order {order}").format(order=order_key)) as conn:
            if check is not None:
                check(conn)  # in the same transaction as the row: no second return slips in between
            cursor = conn.execute(
                f"INSERT INTO order_returns ({COLUMNS.removeprefix('seq, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (return_id, order_key, stage.value, self._now(), dump_json(lines, what="returned lines"), amount,
                 by, reason, detail),
            )
            return _record(conn.execute(f"SELECT {COLUMNS} FROM order_returns WHERE seq = ?",
                                        (cursor.lastrowid,)).fetchone())

    def order_returns(self, order_key: str) -> list[ReturnRecord]:
        """Every row of the order's returns, oldest first."""
        with self._read(_("reading the returns of order {order}").format(order=order_key)) as conn:
            return [_record(row) for row in conn.execute(ORDER_SQL, (order_key,))]
