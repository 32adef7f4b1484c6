"""Counting the drawer in the app (F10), Qt-free: what the screen shows while a manager
types the count, and the app's Z close.

- ``expected_rows``: the expected cash and its parts (float, cash taken, change, in, out,
  refunds) as the screen lists them, each with the sign it adds with.
- ``check_count``: the count typed so far against the expected cash: over/short, and
  whether the difference is beyond ``cash_difference_limit`` (then the close needs a
  manager's PIN and a reason), with a sentence for the screen.
- ``close_z``: ``z_report.close_shift`` (count, card batch, Z numbered and saved), then
  its rows in the station's audit trail (``z_report.audit_rows``, as the CLI writes them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pos_app.i18n import _, ngettext
from pos_app.staff import StaffError
from pos_app.station.cash_shift import CashShift, CountState
from pos_app.station.counter import Counter
from pos_app.station.z_report import ZClose, audit_rows, close_shift

Money = Callable[[int], str]


def expected_rows(shift: CashShift, money: Money) -> tuple[list[tuple[str, str]], tuple[str, str]]:
    """The parts of the expected cash (label, amount), and the total row: ``("Expected
    cash", "$115.53")``. Each label starts with how it adds up (``+``, ``−``)."""
    figures = shift.figures
    opening = (_("Opening float (left by {label})").format(label=shift.last_z.label) if shift.last_z is not None
               else _("Opening float (store setting)"))
    taken = ngettext("+ Cash taken ({count} cash sale)", "+ Cash taken ({count} cash sales)",
                     figures.cash_sales).format(count=figures.cash_sales)
    rows = [
        (opening, money(figures.opening_float)),
        (taken, money(figures.cash_taken)),
        (_("− Change given"), money(figures.change_given)),
        (_("+ Cash in"), money(figures.cash_in)),
        (_("− Cash out"), money(figures.cash_out)),
        (_("− Cash refunds"), money(figures.cash_refunds)),
    ]
    return rows, (_("= Expected cash"), money(figures.expected_cash))


@dataclass(frozen=True)
class CountCheck:
    """The cash counted so far (None: nothing typed yet) against the expected cash."""

    expected: int
    counted: int | None
    limit: int
    """``cash_difference_limit``: the most the count may be over or short without a reason."""

    @property
    def over_short(self) -> int | None:
        return None if self.counted is None else self.counted - self.expected

    @property
    def state(self) -> CountState | None:
        difference = self.over_short
        if difference is None:
            return None
        if difference > 0:
            return CountState.OVER
        return CountState.SHORT if difference < 0 else CountState.BALANCED

    @property
    def beyond_limit(self) -> bool:
        """Over or short by more than the limit: the close needs a manager's PIN and a reason."""
        return self.over_short is not None and abs(self.over_short) > self.limit

    def difference(self, money: Money) -> str:
        """``over $1.50``, ``short $0.47``, ``balanced`` (nothing counted: empty)."""
        if self.over_short is None:
            return ""
        if self.over_short == 0:
            return _("balanced")
        said = _("over {amount}") if self.over_short > 0 else _("short {amount}")
        return said.format(amount=money(abs(self.over_short)))

    def sentence(self, money: Money) -> str:
        difference = self.over_short
        if difference is None:
            return _("Type the cash counted: the difference shows here.")
        if difference == 0:
            return _("Balanced: the count matches the expected cash.")
        over = difference > 0
        if self.beyond_limit:
            said = (_("Over {amount}: more than the {limit} allowed. Count again, or close with a manager's PIN and "
                      "the reason.") if over else
                    _("Short {amount}: more than the {limit} allowed. Count again, or close with a manager's PIN and "
                      "the reason."))
        else:
            said = (_("Over {amount}, within the {limit} allowed.") if over
                    else _("Short {amount}, within the {limit} allowed."))
        return said.format(amount=money(abs(difference)), limit=money(self.limit))


def check_count(shift: CashShift, counted: int | None, limit: int) -> CountCheck:
    return CountCheck(shift.figures.expected_cash, counted, limit)


def saved_sentence(done: ZClose) -> str:
    """Where a close's PDFs went, in one sentence: ``Saved in /…/reports: Z-0001.pdf (the
    Z) and shift-ts-1001-….pdf (the card batch).``, and what could not be saved."""
    end = done.end
    said = []
    if done.path is not None and end.path is not None:
        if done.path.parent == end.path.parent:
            said.append(_("Saved in {folder}: {z} (the Z) and {batch} (the card batch).").format(
                folder=done.path.parent, z=done.path.name, batch=end.path.name))
        else:
            said.append(_("Saved: {z} (the Z) and {batch} (the card batch).").format(z=done.path, batch=end.path))
    elif done.path is not None:
        said.append(_("Saved in {folder}: {z} (the Z).").format(folder=done.path.parent, z=done.path.name))
    elif end.path is not None:
        said.append(_("Saved in {folder}: {batch} (the card batch).").format(folder=end.path.parent,
                                                                              batch=end.path.name))
    if done.z is not None and done.path is None and done.problem:
        said.append(f"{done.problem[:1].upper()}{done.problem[1:]}.")
    if end.path is None:
        said.append(_("The end-of-shift report was not saved: {error}.").format(error=end.save_error))
    return " ".join(said)


async def close_z(counter: Counter, *, terminal_id: str, counted: int, left_in_drawer: int, by: str,
                  reason: str | None = None, approved_by: str | None = None) -> tuple[ZClose, str | None]:
    """The Z of this station's shift closed from the app (``z_report.close_shift``: the same
    refusals), then the close batch and the Z in the audit trail under ``by``, saying who
    accepted a difference beyond the limit (``approved_by``). Returns the close, and why
    the audit trail could not take it (the Z and the close stand, journaled)."""
    station = counter.station
    done = await close_shift(station, counted=counted, by=by, terminal_id=terminal_id,
                             left_in_drawer=left_in_drawer, reason=reason)
    said = (_("F10 on {station} (difference accepted by {manager})") if approved_by
            else _("F10 on {station}")).format(station=station.config.station_id, manager=approved_by)
    try:
        for action, detail, why in audit_rows(done, station.money, said):
            await counter.disk(counter.staff.record, by, action, detail, why)
    except (StaffError, OSError, ValueError) as error:
        return done, _("the audit trail could not record this close: {error}").format(error=error)
    return done, None
