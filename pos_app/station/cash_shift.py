"""The drawer's shift, Qt-free: what the cash drawer should hold now, and a count of it.

A shift's cash is every movement of the journal's cash ledger after the last Z report
(``Journal.shift_cash``). It starts from an opening float: what the last Z left in the
drawer, or before the first Z the ``opening_float`` setting. Then

    expected cash = opening float + cash taken − change given + cash in − cash out
                    − cash refunds

where cash taken is what customers handed over for orders (``tendered``) and the change is
what went back to them, so that the two are shown apart as a cashier counts them; a
no-sale opened the drawer and moved nothing. Everything is integer cents.

A count compares the cash counted with the expected cash (``over_short`` = counted −
expected: positive over, negative short). A difference beyond ``cash_difference_limit``
needs a reason (and, in the app, a manager's PIN): ``DifferenceNeedsReason`` otherwise,
before anything is closed or written. The X report is this module's figures read at any
time; the Z report records them with the count (``station.z_report``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pos_app.i18n import N_, _
from pos_app.journal import CashEntry, CashKind, ZReport


class FloatSource(StrEnum):
    """Where a shift's opening float comes from."""

    LAST_Z = "last_z"
    """What the last Z report left in the drawer."""
    SETTING = "setting"
    """The ``opening_float`` setting: no Z report was closed yet."""


class CountState(StrEnum):
    BALANCED = "balanced"
    OVER = "over"
    """More cash counted than expected."""
    SHORT = "short"
    """Less cash counted than expected."""

    @property
    def label(self) -> str:
        """``balanced``, ``over``, ``short`` in the language in force (the value stays English)."""
        return _(_COUNT_STATE_LABELS[self])


_COUNT_STATE_LABELS = {CountState.BALANCED: N_("balanced"), CountState.OVER: N_("over"), CountState.SHORT: N_("short")}


class DifferenceNeedsReason(ValueError):
    """The count is over or short by more than the limit and no reason was given: nothing
    may be closed until someone says why (the count may also just be wrong: count again)."""

    def __init__(self, count: CashCount, limit: int, sentence: str) -> None:
        super().__init__(sentence)
        self.count = count
        self.limit = limit

    @property
    def over_short(self) -> int:
        return self.count.over_short


@dataclass(frozen=True)
class CashFigures:
    """A shift's cash, in cents, each figure ≥ 0 (which way it moved the drawer is its name's)."""

    opening_float: int = 0
    cash_taken: int = 0
    """What customers handed over for orders (``tendered`` of the cash sales)."""
    change_given: int = 0
    cash_in: int = 0
    cash_out: int = 0
    cash_refunds: int = 0
    """Cash given back from the drawer for orders (``return``)."""
    cash_sales: int = 0
    """How many cash lines were taken."""
    no_sales: int = 0
    """How many times the drawer was opened with no money moving."""

    @property
    def expected_cash(self) -> int:
        return (self.opening_float + self.cash_taken - self.change_given + self.cash_in - self.cash_out
                - self.cash_refunds)

    @classmethod
    def of(cls, opening_float: int, movements: Iterable[CashEntry]) -> CashFigures:
        taken = change = cash_in = cash_out = refunds = sales = no_sales = 0
        for entry in movements:
            if entry.kind is CashKind.SALE:
                sales += 1
                taken += entry.tendered if entry.tendered is not None else entry.amount
                change += entry.change or 0
            elif entry.kind is CashKind.CASH_IN:
                cash_in += entry.amount
            elif entry.kind is CashKind.CASH_OUT:
                cash_out += entry.amount
            elif entry.kind is CashKind.RETURN:
                refunds += entry.amount
            else:
                no_sales += 1
        return cls(opening_float, taken, change, cash_in, cash_out, refunds, sales, no_sales)

    def to_json(self) -> dict[str, int]:
        """The figures for scripts and for the Z row (integer cents, counts)."""
        return {"opening_float": self.opening_float, "cash_taken": self.cash_taken,
                "change_given": self.change_given, "cash_in": self.cash_in, "cash_out": self.cash_out,
                "cash_refunds": self.cash_refunds, "cash_sales": self.cash_sales, "no_sales": self.no_sales,
                "expected_cash": self.expected_cash}

    @classmethod
    def from_json(cls, data: Any) -> CashFigures:
        """Read back from a Z row (``to_json``'s keys; a key missing is 0)."""
        fields = ("opening_float", "cash_taken", "change_given", "cash_in", "cash_out", "cash_refunds",
                  "cash_sales", "no_sales")
        return cls(*(int(data.get(name, 0)) for name in fields))


@dataclass(frozen=True)
class CashShift:
    """The drawer's shift so far: the Z it follows, its movements and their figures."""

    last_z: ZReport | None
    movements: tuple[CashEntry, ...]
    figures: CashFigures
    float_source: FloatSource

    @property
    def z_next(self) -> int:
        """The number the Z closing this shift gets (unless another closes it first)."""
        return 1 if self.last_z is None else self.last_z.number + 1

    @property
    def after(self) -> int | None:
        """The number of the Z this shift follows (``Journal.close_z``'s race guard)."""
        return None if self.last_z is None else self.last_z.number

    @property
    def last_seq(self) -> int:
        """The last movement this shift counts: a movement journaled after it (while the
        drawer is being counted) belongs to the next shift."""
        if self.movements:
            return self.movements[-1].seq
        return 0 if self.last_z is None else self.last_z.last_seq

    def to_json(self) -> dict[str, Any]:
        last = self.last_z
        return {**self.figures.to_json(), "float_from": last.label if last is not None else str(self.float_source),
                "movements": len(self.movements), "z_next": self.z_next, "z_next_label": f"Z-{self.z_next:04d}",
                "last_z": None if last is None else {"number": last.number, "label": last.label,
                                                     "closed_at": last.closed_at.isoformat()}}


def cash_shift(last_z: ZReport | None, movements: Iterable[CashEntry], default_float: int) -> CashShift:
    """The shift from ``Journal.shift_cash()``'s answer; ``default_float``: the
    ``opening_float`` setting, used only before the first Z."""
    moves = tuple(movements)
    if last_z is None:
        return CashShift(None, moves, CashFigures.of(default_float, moves), FloatSource.SETTING)
    return CashShift(last_z, moves, CashFigures.of(last_z.left_in_drawer, moves), FloatSource.LAST_Z)


@dataclass(frozen=True)
class CashCount:
    """The cash counted at the end of a shift, against what was expected."""

    expected: int
    counted: int
    left_in_drawer: int
    """What stays in the drawer: the next shift's opening float."""
    reason: str | None = None

    @property
    def over_short(self) -> int:
        return self.counted - self.expected

    @property
    def state(self) -> CountState:
        if self.over_short > 0:
            return CountState.OVER
        return CountState.SHORT if self.over_short < 0 else CountState.BALANCED


def count_cash(shift: CashShift, counted: int, *, left_in_drawer: int, limit: int,
               reason: str | None = None, money: Callable[[int], str] = str) -> CashCount:
    """The count of the shift's drawer, checked: ``counted`` and ``left_in_drawer`` whole
    cents from 0 (at most what was counted: nothing can stay that is not there), and a
    difference beyond ``limit`` with a reason. ``money`` writes the amounts of the
    sentences (the store's format). Raises ``ValueError`` (``DifferenceNeedsReason``)."""
    for value, wrong in ((counted, N_("the counted cash must be a whole number of cents from 0, got {value}")),
                         (left_in_drawer,
                          N_("the cash left in the drawer must be a whole number of cents from 0, got {value}"))):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(_(wrong).format(value=repr(value)))
    if left_in_drawer > counted:
        raise ValueError(_("{left} cannot be left in the drawer: only {counted} was counted").format(
            left=money(left_in_drawer), counted=money(counted)))
    said = (reason or "").strip() or None
    count = CashCount(shift.figures.expected_cash, counted, left_in_drawer, said)
    if abs(count.over_short) > limit and said is None:
        said_state = (_("the count is {amount} over (expected {expected}, counted {counted}), more than the {limit} "
                        "allowed without a reason: count again, or give the reason (--reason); nothing was closed")
                      if count.state is CountState.OVER else
                      _("the count is {amount} short (expected {expected}, counted {counted}), more than the {limit} "
                        "allowed without a reason: count again, or give the reason (--reason); nothing was closed"))
        raise DifferenceNeedsReason(count, limit, said_state.format(
            amount=money(abs(count.over_short)), expected=money(count.expected), counted=money(counted),
            limit=money(limit)))
    return count
