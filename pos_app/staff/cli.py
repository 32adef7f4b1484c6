"""``pos-app staff …``: add, list and remove the station's staff, lift the sign-in lock, and read
the audit trail (no Qt).

Prints ONE JSON object on stdout: ``{"outcome": "ok", ...}`` and exit 0, or
``{"outcome": "invalid", "error": "..."}`` and exit 1 (a bad PIN or name, a duplicate name
or PIN, an unknown name, a data dir or staff file that cannot be used). No traceback for
any of those. A PIN is read from stdin (``--pin-from-stdin``: the first line; from a
terminal, without echo), never from the command line, where other users and the shell
history would see it. ``staff audit --csv FILE`` writes the audit trail as CSV (``-`` for
stdout, then without the JSON line). ``staff unlock`` lifts the sign-in lock (and clears
the count of wrong PINs), audited under the OS user who ran it. The staff file is the
station's (``<data dir>``, ``POS_DATA_DIR``); ``pos-app staff --training list|audit|…``
works on training mode's (``<data dir>/training``), whose demo staff are the only ones it
starts with (``add`` is refused).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from pathlib import Path
from typing import Any

from pos_app.i18n import N_, _
from pos_app.staff.audit import audit_csv
from pos_app.staff.errors import StaffError
from pos_app.staff.file import staff_path
from pos_app.staff.store import Role, Staff

EXIT_OK = 0
EXIT_INVALID = 1
TRAINING_ADD_REFUSED = N_("training mode signs in with its demo staff only (PIN 1111 Demo Cashier, 9999 Demo "
                          "Manager; it refuses to start with others in its staff file): add staff to a store's "
                          "station, without --training")


def add_staff_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    staff = commands.add_parser("staff", help=_("add, list and remove staff (JSON on stdout)"))
    staff.add_argument("--training", action="store_true",
                       help=_("training mode's staff file (`make run`, `pos-app --sandbox`): <data dir>/training; "
                              "its demo staff only (add is refused)"))
    ops = staff.add_subparsers(dest="staff_command", metavar="COMMAND", required=True)
    add = ops.add_parser("add", help=_("add a staff member; the PIN is read from stdin"))
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=[r.value for r in Role])
    add.add_argument("--pin-from-stdin", required=True, action="store_true",
                     help=_("read the 4-8 digit PIN from the first line of stdin (never from the command line)"))
    add.add_argument("--language", default=None,
                     help=_("the member's own language for the screens (en, es, fr); unset: the store's"))
    add.set_defaults(handler=run_staff_command)
    language = ops.add_parser("language", help=_("set a staff member's own language for the screens (- clears it)"))
    language.add_argument("name")
    language.add_argument("language", help=_("en, es, fr... or - for the store's language"))
    language.set_defaults(handler=run_staff_command)
    listing = ops.add_parser("list", help=_("list staff members and whether sign-in is locked"))
    listing.set_defaults(handler=run_staff_command)
    unlock = ops.add_parser("unlock", help=_("lift the sign-in lock set by wrong PINs (audited under your OS user)"))
    unlock.set_defaults(handler=run_staff_command)
    remove = ops.add_parser("remove", help=_("remove a staff member"))
    remove.add_argument("name")
    remove.set_defaults(handler=run_staff_command)
    audit = ops.add_parser("audit", help=_("the audit trail of manager actions and staff changes, newest first"))
    audit.add_argument("--limit", type=int, default=None, help=_("at most this many entries"))
    audit.add_argument("--csv", metavar="FILE", default=None,
                       help=_("write the trail as CSV to FILE (- for stdout) instead of JSON"))
    audit.set_defaults(handler=run_staff_command)


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, sort_keys=True) + "\n")
    sys.stdout.flush()


def read_pin() -> str:
    """The PIN from stdin: without echo from a terminal, else its first line."""
    if sys.stdin is None:
        raise StaffError(_("no stdin to read the PIN from"))
    if sys.stdin.isatty():
        return getpass.getpass(_("PIN: "))
    line = sys.stdin.readline()
    if not line:
        raise StaffError(_("no PIN on stdin: pipe it in, e.g. `printf '%s\\n' \"$PIN\" | pos-app staff add ...`"))
    return line.rstrip("\r\n")


def run_staff_command(args: argparse.Namespace) -> int:
    from pos_app.profile import data_dir, training_data_dir

    try:
        if args.training and args.staff_command == "add":
            raise StaffError(_(TRAINING_ADD_REFUSED))
        payload = _dispatch(args, training_data_dir() if args.training else data_dir())
        code = EXIT_OK
    except _Written:
        return EXIT_OK
    except (StaffError, ValueError) as error:
        payload, code = {"outcome": "invalid", "error": str(error)}, EXIT_INVALID
    emit(payload)
    return code


def _dispatch(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    pin = read_pin() if args.staff_command == "add" else None  # read before the slow work, fail early
    by = os_operator()
    with Staff.open(staff_path(directory)) as staff:
        if args.staff_command == "add":
            assert pin is not None
            member = staff.add(args.name, args.role, pin, by=by, language=args.language)
            return {"outcome": "ok", "added": member.to_json(), "file": str(staff.path)}
        if args.staff_command == "audit":
            return _audit(staff, args)
        if args.staff_command == "language":
            member = staff.set_language(args.name, None if args.language == "-" else args.language, by=by)
            return {"outcome": "ok", "member": member.to_json(), "file": str(staff.path)}
        if args.staff_command == "remove":
            member = staff.remove(args.name, by=by)
            return {"outcome": "ok", "removed": member.to_json(), "file": str(staff.path)}
        if args.staff_command == "unlock":
            was = staff.unlock(by=by)
            return {"outcome": "ok", "unlocked": was.until is not None, "was": was.to_json(), "by": by,
                    "file": str(staff.path)}
        state = staff.lock_state()
        return {"outcome": "ok", "staff": [m.to_json() for m in staff.list()], "file": str(staff.path),
                "locked_until": state.until.isoformat() if state.until else None, "wrong_pins": state.wrong}


def _audit(staff: Staff, args: argparse.Namespace) -> dict[str, Any]:
    if args.limit is not None and args.limit < 1:
        raise ValueError(_("--limit must be at least 1"))
    entries = staff.audit(args.limit)
    if args.csv is None:
        return {"outcome": "ok", "audit": [e.to_json() for e in entries], "file": str(staff.path)}
    text = audit_csv(entries)
    if args.csv == "-":
        sys.stdout.write(text)
        raise _Written()
    target = Path(args.csv)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8", newline="")
        partial.replace(target)
    except OSError as error:
        raise StaffError(_("cannot write the audit CSV to {file}: {error}").format(
            file=target, error=error.strerror or error)) from error
    return {"outcome": "ok", "csv": str(target), "entries": len(entries), "file": str(staff.path)}


class _Written(Exception):
    """The CSV went to stdout: no JSON line after it."""


def os_operator() -> str:
    """Who ran the command, for the audit: the OS user."""
    try:
        return f"os:{getpass.getuser()}"
    except (OSError, KeyError):
        return "os:unknown"
