"""``pos-app shift …``: the shift's X report, its Z (cash count and card batch close) and a
Z's reprint, from a script or a manager's shell.

Imports no Qt. Every step goes through the ``Station`` (``station.z_report``). Prints ONE
JSON object on stdout (amounts in integer cents; a sentence under ``error``), as
``pos-app terminal`` does, with the same settings (``POS_DATA_DIR``, the key-hash...).

Exit codes: 0 done (``report``: the X figures; ``close``: the batch closed and the Z
written; ``z``: the PDF saved); 1 invalid input or configuration, a count over or short
by more than ``cash_difference_limit`` without ``--reason``, no terminal, no such Z, or a
Z closed meanwhile by someone else (nothing of this count written); 2 the batch close was
declined, 3 its result is unknown, 4 it failed or was not sent (a payment on the terminal
has no known result: ``refusal`` ``terminal_has_unknown``, ``blocked_by``): for 2 to 4 no Z
is written and the shift goes on. The end-of-shift PDF of the card batch is written
whatever the close gave (``shift_report``); a Z whose PDF could not be saved is written all
the same (exit 0, ``report_error``; ``shift z --number N`` saves it again). ``z``: 4 when
the PDF could not be saved.

The operator is the OS user, as for every command; ``--by`` names who counted the cash
(the Z's ``by``). A Z and the close batch it made go to the staff file's audit trail under
that name (with the OS user and the reason, when one was given).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from pos_app.config import MAX_CASH_CENTS
from pos_app.i18n import _
from pos_app.journal import Outcome, ZReport
from pos_app.staff import Staff, StaffError
from pos_app.staff.cli import os_operator
from pos_app.station.cash_shift import DifferenceNeedsReason
from pos_app.station.cli import CONFIG_REFUSALS, EXIT, EXIT_INVALID, Payload, Refused, _run, command_group
from pos_app.station.station import Station
from pos_app.station.z_report import NoSuchZ, ZClose, ZState, audit_rows, close_shift, reprint_z, x_report


def add_shift_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    __, action = command_group(commands, "shift",
                               _("the shift's X report, its Z (cash count and batch close), reprints"),
                               run_shift_command)

    parser = action("report", _("the X report: the shift's cash and card figures so far (nothing closed)"))
    parser.add_argument("--terminal", help=_("the card terminal (default: the station's terminal_id)"))
    parser.add_argument("--json", action="store_true", help=_("JSON on stdout (the only form; accepted for scripts)"))
    parser = action("close", _("the Z: count the drawer, close the card batch, number the Z and save its PDF"))
    parser.add_argument("--counted", required=True, help=_("the cash counted in the drawer, integer cents"))
    parser.add_argument("--by", required=True, help=_("who counted the cash (on the Z)"))
    parser.add_argument("--terminal", help=_("the card terminal (default: the station's terminal_id)"))
    parser.add_argument("--left", help=_("cents left in the drawer for the next shift (default: the opening_float "
                                         "setting, at most what was counted)"))
    parser.add_argument("--reason", help=_("why the count differs from the expected cash (needed beyond "
                                           "cash_difference_limit; recorded on the Z and in the audit trail)"))
    parser = action("z", _("save a Z's PDF again from its journal row (or list the Zs)"))
    parser.add_argument("--number", type=int, help=_("the Z's number (1 for Z-0001); none: list every Z"))


def run_shift_command(args: argparse.Namespace) -> int:
    return _run(args, _shift_command)


async def _shift_command(station: Station, args: argparse.Namespace) -> Payload:
    if args.action == "report":
        return (await x_report(station, args.terminal or station.config.terminal_id)).to_json(), 0
    if args.action == "close":
        return await _close(station, args)
    if args.number is None:
        return {"outcome": "approved", "z_reports": [_listed(z) for z in await station.journal.z_reports()]}, 0
    try:
        z, path, problem = await reprint_z(station, args.number)
    except NoSuchZ as error:
        raise Refused(str(error)) from error
    payload: dict[str, Any] = {"outcome": "approved" if path else "failed", **_listed(z),
                               "report": str(path) if path else None}
    if problem:
        payload["error"] = problem
    return payload, 0 if path else EXIT[Outcome.FAILED]


def _listed(z: ZReport) -> dict[str, Any]:
    return {"z_number": z.number, "z_label": z.label, "closed_at": z.closed_at.isoformat(), "by": z.by,
            "terminal_id": z.terminal_id, "expected_cash": z.expected, "counted_cash": z.counted,
            "over_short": z.over_short, "left_in_drawer": z.left_in_drawer, "reason": z.reason}


def _cents(station: Station, text: str | None, option: str) -> int | None:
    """An option's cash: integer cents from 0 (an empty drawer counts 0) up to the most a
    cash setting may give; refused saying what 1250 is in this store (``12,50 €``)."""
    if text is None:
        return None
    cleaned = text.strip()
    if not cleaned.isascii() or not cleaned.isdigit() or int(cleaned) > MAX_CASH_CENTS:
        raise Refused(_("{option} must be a whole number of cents from 0 to {maximum}, got {text!r}; in this "
                        "store {option} 1250 is {amount}").format(option=option, maximum=MAX_CASH_CENTS, text=text,
                                                                   amount=station.money(1250)))
    return int(cleaned)


async def _close(station: Station, args: argparse.Namespace) -> Payload:
    terminal = args.terminal or station.config.terminal_id
    if not terminal:
        raise Refused(_("no card terminal to close: give --terminal, or set terminal_id (POS_TERMINAL_ID)"))
    counted = _cents(station, args.counted, "--counted")
    assert counted is not None
    left = _cents(station, args.left, "--left")
    try:
        done = await close_shift(station, counted=counted, by=args.by, terminal_id=terminal, left_in_drawer=left,
                                 reason=args.reason)
    except DifferenceNeedsReason as error:
        return {"outcome": "invalid", "error": str(error), "expected_cash": error.count.expected,
                "counted_cash": error.count.counted, "over_short": error.over_short, "limit": error.limit,
                "z_number": None}, EXIT_INVALID
    except ValueError as error:
        raise Refused(str(error)) from error
    payload = done.to_json()
    await _audit(station, args, done, payload)
    result = done.end.report.close.result
    if done.state is ZState.WRITTEN:
        return {"outcome": "approved", **payload}, 0
    if done.state is ZState.CLOSED_MEANWHILE or result.refusal in CONFIG_REFUSALS:
        return {"outcome": "invalid", **payload}, EXIT_INVALID
    return {"outcome": str(result.outcome), **payload}, EXIT[result.outcome]


async def _audit(station: Station, args: argparse.Namespace, done: ZClose, payload: dict[str, Any]) -> None:
    """The close batch (when it was sent) and the Z (when it was written) in the audit trail,
    under who counted, naming the OS user who ran the command (``audit_error`` in the JSON
    when the staff file cannot take them: the Z and the close stand, journaled)."""
    rows = audit_rows(done, station.money, f"pos-app shift close as {os_operator()}")  # not for people: the audit's

    def write() -> None:
        with Staff.open(station.config.staff_path) as staff:
            for action, detail, reason in rows:
                staff.record(args.by, action, detail, reason)

    if not rows:
        return
    try:
        await asyncio.to_thread(write)
    except (StaffError, OSError, ValueError) as error:
        payload["audit_error"] = _("the audit trail could not record this close: {error}").format(error=error)
