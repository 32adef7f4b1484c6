"""The X and Z reports of a station's shift, Qt-free: the flows ``pos-app shift`` runs (and
the app can run) on a ``Station``.

- **X** (``x_report``): the shift so far, nothing closed: the drawer's cash figures
  (``cash_shift``) and, for a terminal, the card figures of its batch as the end-of-shift
  report works them out (``Station.shift_check``: read from the journal, reconciled with
  the service's list when it can be read).
- **Z** (``close_shift``): the count is checked first (a difference beyond
  ``cash_difference_limit`` needs a reason: refused before anything is sent or written);
  then the card batch is closed through ``Station.shift_end`` (refused while a payment on
  the terminal has no known result; its end-of-shift PDF is written whatever it gave);
  only a batch that closed lets the Z be written: numbered by the journal, never
  rewritten, its figures kept in the row, and its PDF saved as ``<data dir>/reports/
  Z-0001.pdf``. A batch that did not close writes no Z: the shift goes on, counted again
  at the next close.
- **Reprint** (``reprint_z``): a Z's PDF made again from its row alone
  (``Z-0001-reprint.pdf``), the row untouched.

The cash read at the start of a close is the shift the count was made against: a cash
movement journaled while the batch closes is after the Z's ``last_seq``, in the next shift.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pos_app.i18n import _
from pos_app.journal import InvalidTransition, ZReport
from pos_app.receipts.tables import render_tables, save_pdf
from pos_app.staff import AuditAction
from pos_app.station.cash_shift import CashCount, CashShift, count_cash
from pos_app.station.figures import GROSS, Figures
from pos_app.station.shift import CLOSE_STATE_NAMES, CloseState, ShiftCheck, ShiftEnd
from pos_app.station.station import Station
from pos_app.station.z_document import signed, x_document, z_document, z_stem

log = logging.getLogger(__name__)


class ZState(StrEnum):
    WRITTEN = "written"
    """The batch closed and the Z is numbered and kept."""
    BATCH_NOT_CLOSED = "batch_not_closed"
    """The card batch did not close (refused, failed, unknown): no Z; the shift goes on."""
    CLOSED_MEANWHILE = "closed_meanwhile"
    """Another Z closed this shift while the batch closed: this count is not kept."""


def card_figures(figures: Figures, check: ShiftCheck | None = None) -> dict[str, Any]:
    """A batch's card figures in integer cents, as the X report's JSON and the Z row keep
    them: ``taken`` is the card gross (approved sales and captures, base amounts: the
    terminal's and cards on file, ``on_file`` of it), ``net`` the gross less voids and
    refunds; ``ach`` the bank-account money of the shift, neither card nor cash; ``link`` the
    orders paid by payment link (card paid online: not the drawer's, not in the terminal's card total)."""
    ach, link = figures.ach, figures.link
    figures = figures.card
    gross, voids, refunds, net = figures.gross, figures.voids, figures.refunds, figures.net
    found: dict[str, Any] = {
        "taken": gross.amount, "taken_count": gross.count, "voids": voids.amount, "voids_count": voids.count,
        "refunds": refunds.amount, "refunds_count": refunds.count, "net": net.amount, "surcharge": net.surcharge,
        "tax": figures.tax, "held": figures.held.amount,
        "by_brand": {name: group.gross.amount for name, group in figures.by_brand() if group.gross.count},
        "on_file": sum(line.amount for line in figures.lines if line.on_file and line.category in GROSS),
        "ach": {"taken": ach.gross.amount, "taken_count": ach.gross.count, "voids": ach.voids.amount,
                "refunds": ach.refunds.amount, "net": ach.net.amount},
        "link": {"taken": link.gross.amount, "taken_count": link.gross.count, "voids": link.voids.amount,
                 "refunds": link.refunds.amount, "net": link.net.amount, "surcharge": link.net.surcharge,
                 "tax": link.tax},
    }
    if check is not None:
        found.update(terminal=check.terminal_id, since=check.start.isoformat(), list_error=check.list_error,
                     differences=len(check.differences))
    return found


@dataclass(frozen=True)
class XReport:
    """The shift so far: the drawer's cash and (with a terminal) its batch's card figures."""

    cash: CashShift
    card: ShiftCheck | None

    def to_json(self) -> dict[str, Any]:
        card = None if self.card is None else card_figures(self.card.figures, self.card)
        return {"outcome": "approved", "kind": "X", **self.cash.to_json(),
                "card_taken": None if card is None else card["taken"], "card": card}


async def x_report(station: Station, terminal_id: str | None) -> XReport:
    """The X report: read-only (nothing closed, nothing written)."""
    cash = await station.cash_shift()
    card = await station.shift_check(terminal_id) if terminal_id else None
    return XReport(cash, card)


async def x_pdf(station: Station, x: XReport) -> bytes:
    """The X report as a PDF to preview or print (never saved: an X writes nothing)."""
    config = station.config
    store = {"name": config.store_name, "id": config.store_id, "currency": config.currency,
             "locale": station.money.locale, "training": station.training}
    card = None if x.card is None else card_figures(x.card.figures, x.card)
    now = datetime.now(UTC)
    return await asyncio.to_thread(lambda: render_tables(x_document(
        x.cash, card, store=store, station_id=config.station_id, now=now)))


@dataclass(frozen=True)
class ZClose:
    """A Z close's result: the shift and count it was made against, the card close (and its
    end-of-shift report), and the Z with its PDF when it was written."""

    state: ZState
    shift: CashShift
    count: CashCount
    end: ShiftEnd
    z: ZReport | None = None
    path: Path | None = None
    problem: str | None = None
    """Why no Z was written, or why its PDF was not saved (the Z stands)."""

    def to_json(self) -> dict[str, Any]:
        close = self.end.report.close
        found: dict[str, Any] = {
            "z_state": str(self.state), "expected_cash": self.count.expected, "counted_cash": self.count.counted,
            "over_short": self.count.over_short, "count_state": str(self.count.state),
            "opening_float": self.shift.figures.opening_float,
            "left_in_drawer": self.count.left_in_drawer, "reason": self.count.reason,
            "cash": self.shift.to_json(), "card": card_figures(self.end.report.figures, self.end.report.check),
            "batch": {**close.result.to_json(), "state": str(close.state), "sentence": close.sentence},
            "shift_report": str(self.end.path) if self.end.path is not None else None,
            "z_number": None, "z_label": None, "report": None,
        }
        if self.z is not None:
            found.update(z_number=self.z.number, z_label=self.z.label, closed_at=self.z.closed_at.isoformat(),
                         report=str(self.path) if self.path is not None else None)
        if self.problem is not None:
            found["error" if self.z is None else "report_error"] = self.problem
        return found


def z_figures(station: Station, shift: CashShift, end: ShiftEnd) -> dict[str, Any]:
    """What the Z's row keeps beside its columns: enough for its PDF to be made again from
    the row alone (``z_document``), whatever the settings say later."""
    config, close = station.config, end.report.close
    return {
        "cash": shift.figures.to_json(),
        "float_from": shift.last_z.label if shift.last_z is not None else str(shift.float_source),
        "movements": len(shift.movements),
        "card": card_figures(end.report.figures, end.report.check),
        "batch": {"state": str(close.state), "sentence": close.sentence, "attempt_id": close.result.attempt_id},
        "shift_report": str(end.path) if end.path is not None else None,
        "store": {"name": config.store_name, "id": config.store_id, "currency": config.currency,
                  "locale": station.money.locale, "training": station.training},
    }


async def close_shift(station: Station, *, counted: int, by: str, terminal_id: str,
                      left_in_drawer: int | None = None, reason: str | None = None) -> ZClose:
    """Count, close the card batch, then number the Z and save its PDF (see the module).

    ``left_in_drawer``: what stays for the next shift (default: the ``opening_float``
    setting, at most what was counted). Raises ``ValueError`` (``DifferenceNeedsReason``)
    for a count that cannot be taken as given, before anything is sent or written."""
    shift = await station.cash_shift()
    left = min(station.config.opening_float, counted) if left_in_drawer is None else left_in_drawer
    count = count_cash(shift, counted, left_in_drawer=left, limit=station.config.cash_difference_limit,
                       reason=reason, money=station.money)
    end = await station.shift_end(terminal_id, by=by)
    if end.report.close.state is not CloseState.CLOSED:
        return ZClose(ZState.BATCH_NOT_CLOSED, shift, count, end, problem=_(
            "{sentence} No Z was written: the shift goes on; close it again once the batch can close.").format(
            sentence=end.report.close.sentence))
    try:
        z = await station.close_cash(shift, count, terminal_id=terminal_id, by=by,
                                     figures=z_figures(station, shift, end))
    except InvalidTransition as error:
        return ZClose(ZState.CLOSED_MEANWHILE, shift, count, end, problem=_(
            "the batch is closed, but this count was not kept: {error}").format(error=error))
    path, problem = await save_z(station, z)
    return ZClose(ZState.WRITTEN, shift, count, end, z, path, problem)


async def save_z(station: Station, z: ZReport, *, reprint: bool = False) -> tuple[Path | None, str | None]:
    """The Z's PDF under ``<data dir>/reports/`` (atomically; a name taken gets ``-2``...),
    or None and why it could not be saved (the Z itself stands in the journal)."""
    folder = station.config.data_dir / "reports"
    now = datetime.now(UTC)
    pdf = await asyncio.to_thread(lambda: render_tables(z_document(z, reprint=reprint, now=now)))
    try:
        return await asyncio.to_thread(save_pdf, pdf, folder, z_stem(z, reprint=reprint)), None
    except OSError as error:
        log.error("the PDF of %s could not be saved: %s", z.label, error)
        return None, _("the PDF of {label} could not be saved under {folder}: {error}").format(
            label=z.label, folder=folder, error=error.strerror or error)


async def z_pdf(z: ZReport) -> bytes:
    """The Z's PDF made from its row, as ``save_z`` saved it (to preview or print)."""
    return await asyncio.to_thread(lambda: render_tables(z_document(z)))


def z_sentence(done: ZClose, money: Callable[[int], str]) -> str:
    """What a close did with the count, in one sentence: ``Z-0001 closed: expected $112.00,
    counted $111.50, over/short -$0.50 (short); $100.00 left in the drawer.``, or why no Z
    was written (the batch's result in it)."""
    count = done.count
    if done.z is None:  # the count is still on the screen, to close again
        why = done.problem or _("No Z was written.")
        return f"{why[:1].upper()}{why[1:]}"
    return _("{label} closed: expected {expected}, counted {counted}, over/short {over_short} ({state}); {left} left "
             "in the drawer.").format(label=done.z.label, expected=money(count.expected), counted=money(count.counted),
                                      over_short=signed(money, count.over_short), state=count.state.label,
                                      left=money(count.left_in_drawer))


def audit_rows(done: ZClose, money: Callable[[int], str], said: str) -> list[tuple[AuditAction, str, str]]:
    """The audit trail's rows of a close (action, detail, reason): the close batch when it
    was sent, the Z when it was written; ``said`` opens each detail (who ran it, where)."""
    close = done.end.report.close
    rows: list[tuple[AuditAction, str, str]] = []
    if close.result.attempt_id:
        rows.append((AuditAction.CLOSE_BATCH, _("{said}: terminal {terminal}: {state} (attempt {attempt})").format(
            said=said, terminal=close.result.terminal_id, state=_(CLOSE_STATE_NAMES[close.state]),
            attempt=close.result.attempt_id), ""))
    if done.z is not None:
        count = done.count
        rows.append((AuditAction.Z_REPORT, _(
            "{said}: {label}: expected {expected}, counted {counted}, {state} {difference}, left {left}").format(
            said=said, label=done.z.label, expected=money(count.expected), counted=money(count.counted),
            state=count.state.label, difference=money(abs(count.over_short)), left=money(count.left_in_drawer)),
            count.reason or ""))
    return rows


class NoSuchZ(LookupError):
    """No Z report has that number."""


async def find_z(station: Station, number: int) -> ZReport:
    reports = await station.journal.z_reports()
    found = next((z for z in reports if z.number == number), None)
    if found is None:
        if reports:
            raise NoSuchZ(_("there is no Z report number {number} (the last is {label})").format(
                number=number, label=reports[-1].label))
        raise NoSuchZ(_("there is no Z report number {number} (none was closed yet)").format(number=number))
    return found


async def reprint_z(station: Station, number: int) -> tuple[ZReport, Path | None, str | None]:
    """Z ``number``'s PDF made again from its row (never changing it). ``NoSuchZ``."""
    z = await find_z(station, number)
    path, problem = await save_z(station, z, reprint=True)
    return z, path, problem
