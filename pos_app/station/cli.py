"""``pos-app terminal …`` and ``pos-app receipt …``: automation, diagnostics, scripted close
batch (which also writes the end-of-shift report and names it under ``report``).

Imports no Qt. Every operation goes through the ``Station``. Prints ONE JSON object on
stdout, with its text under ``error`` (or ``note`` for an approval's remark), and a line on
stderr for each status change while it waits. Exit codes: 0 approved, 1 invalid input or
configuration (nothing sent), 2 declined, 3 unknown, 4 failed (nothing was charged), 5
partially approved (charged ``approved_amount``, less than asked). ``resume`` exits 0 when every
in-flight attempt reached a final outcome, 3 when any is still unknown. Ctrl-C while a
request is out leaves the attempt ``unknown`` and resumable, and exits 3 with its JSON.
No traceback for any expected condition; ``--verbose`` adds detail in the log. The
key-hash's value never appears on stdout or stderr, even when the service echoes it
(``pos_app.api.secrets.Redactor``); a key-hash that cannot be sent is refused (exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import getpass
import json
import sys
import traceback
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Any

from pos_app.api.errors import InvalidInput, PaymentsError, Unauthorized
from pos_app.api.money import TERMINAL_AMOUNT_MAX, parse_cents
from pos_app.api.secrets import RedactingFilter, Redactor
from pos_app.config import StoreConfig, key_hash, load_config
from pos_app.i18n import _
from pos_app.journal import JournalError, Outcome
from pos_app.logs import ProcessKind, configure_logging
from pos_app.profile import ConfigError
from pos_app.staff import AuditAction, Staff, StaffError
from pos_app.staff.cli import os_operator
from pos_app.station.events import PaymentProgress, StationEvent
from pos_app.station.station import Station
from pos_app.terminal.outcomes import OperationResult, Phase, Progress, Refusal

EXIT = {Outcome.APPROVED: 0, Outcome.DECLINED: 2, Outcome.UNKNOWN: 3, Outcome.FAILED: 4,
        Outcome.PARTIALLY_APPROVED: 5}
EXIT_INVALID = 1
CONFIG_REFUSALS = frozenset({
    Refusal.INVALID_INPUT, Refusal.BAD_CREDENTIALS, Refusal.JOURNAL_LOCKED, Refusal.JOURNAL_CORRUPT,
    Refusal.JOURNAL_UNAVAILABLE,
})
"""Refusals that mean "fix the input or the configuration" (exit 1), not "failed" (exit 4)."""
RESUME_WAIT = 5.0
"""Seconds ``resume`` keeps polling open messages by default before it looks them up."""

Payload = tuple[dict[str, Any], int]


class Refused(Exception):
    """Invalid input or configuration: nothing was sent (exit 1)."""


def add_terminal_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    terminal = commands.add_parser("terminal", help=_("run terminal operations (JSON on stdout)"))
    ops = terminal.add_subparsers(dest="operation", metavar="OPERATION", required=True)

    def op(name: str, help_text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = ops.add_parser(name, help=help_text)
        parser.add_argument("--verbose", action="store_true", help=_("more detail in the log"))
        parser.set_defaults(handler=run_terminal_command)
        return parser

    op("list", _("list the merchant's terminals"))
    for name, text in (("sale", _("charge an amount")), ("preauth", _("reserve an amount"))):
        parser = op(name, text)
        parser.add_argument("--terminal", required=True)
        parser.add_argument("--amount", required=True, help=_("integer cents (minor units), e.g. 1250 for 12.50"))
        parser.add_argument("--order-number")
        parser.add_argument("--email")
        parser.add_argument("--phone")
        parser.add_argument("--receipt", action="store_true", help=_("have the service send a receipt"))
    for name, text, amount in (("capture", _("capture a pre-auth"), True),
                               ("void", _("void an unsettled payment"), False),
                               ("refund", _("refund a settled payment"), True)):
        parser = op(name, text)
        parser.add_argument("--terminal", required=True)
        parser.add_argument("--ref", required=True, help=_("pnRefNum (transactionId) of the payment"))
        parser.add_argument("--payment-id", help=_("the payment's id, so that an unknown outcome can be verified "
                                                   "(found in the journal when this station made the sale)"))
        if amount:
            parser.add_argument("--amount", required=True,
                                help=_("integer cents, at most {maximum}").format(maximum=TERMINAL_AMOUNT_MAX))
        if name != "capture":
            parser.add_argument("--reason", default="", help=_("why (recorded in the audit trail)"))
    parser = op("close-batch", _("close the open batch (manager) and write the end-of-shift report PDF"))
    parser.add_argument("--terminal", required=True)
    parser.add_argument("--by-serial", action="store_true", help=_("--terminal is the serial number (type S)"))
    parser = op("resume", _("resolve every in-flight attempt of the journal"))
    parser.add_argument("--wait", type=float, default=RESUME_WAIT,
                        help=_("seconds to keep polling open messages (default {seconds:g})").format(
                            seconds=RESUME_WAIT))
    parser = op("report", _("the day's attempts per terminal and outcome, reconciled with the service"))
    parser.add_argument("--day", help=_("YYYY-MM-DD (default: today, local time)"))
    parser = op("resolve", _("a manager's decision on an unknown attempt, checked with the service first"))
    parser.add_argument("attempt")
    decision = parser.add_mutually_exclusive_group(required=True)
    decision.add_argument("--paid", action="store_true")
    decision.add_argument("--not-paid", action="store_true")
    parser.add_argument("--reason", required=True)
    parser.add_argument("--by", default=None, help=_("the manager's name (default: the OS user)"))
    parser.add_argument("--force", action="store_true",
                        help=_("decide \"not paid\" even when the service cannot be asked, shows a possible match or "
                               "may still be processing (recorded); never makes \"paid\" without the service's "
                               "evidence"))
    parser.add_argument("--reference", help=_("with --paid: the payment id, or the reference on the terminal's slip, "
                                              "of the charge (checked with the service)"))

    receipt = commands.add_parser("receipt", help=_("save a payment's receipt PDF"))
    receipt.add_argument("payment_id")
    receipt.add_argument("--out", required=True, type=Path)
    receipt.add_argument("--customer", action="store_true", help=_("the customer copy (default: merchant copy)"))
    receipt.add_argument("--verbose", action="store_true")
    receipt.set_defaults(handler=run_receipt_command)


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, sort_keys=True) + "\n")
    sys.stdout.flush()


def run_terminal_command(args: argparse.Namespace) -> int:
    return _run(args, _terminal_command)


def run_receipt_command(args: argparse.Namespace) -> int:
    return _run(args, _receipt_command)


Command = Callable[[Station, argparse.Namespace], Awaitable[Payload]]


def _run(args: argparse.Namespace, command: Command) -> int:
    redactor = Redactor()
    sys.excepthook = functools.partial(_print_redacted, redactor)
    try:
        config = load_config()
        secret = key_hash(config)
        redactor.add(secret)
        configure_logging(config.data_dir, ProcessKind.CLI, RedactingFilter(redactor), verbose=args.verbose)
        payload, code = asyncio.run(_with_station(config, secret, args, command))
    except (Refused, ConfigError, InvalidInput) as error:
        payload, code = {"outcome": "invalid", "error": str(error)}, EXIT_INVALID
    except JournalError as error:
        payload, code = {"outcome": "invalid", "error": _("journal: {error}").format(error=error)}, EXIT_INVALID
    except OSError as error:  # the data dir (logs, journal) cannot be created or written
        why = error.strerror or error
        text = (_("cannot write {file}: {error}; nothing was sent").format(file=error.filename, error=why)
                if error.filename else _("cannot write: {error}; nothing was sent").format(error=why))
        payload, code = {"outcome": "invalid", "error": text}, EXIT_INVALID
    emit(redactor.value(payload))  # whatever the service echoed, the key-hash is not printed
    return code


def command_group(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str, help_text: str, handler: Callable[[argparse.Namespace], int],
) -> tuple[argparse._SubParsersAction, Callable[[str, str], argparse.ArgumentParser]]:  # type: ignore[type-arg]
    """``pos-app NAME ACTION …``: the group's sub-parsers, and a function that adds one action
    (its help, ``--verbose``, run by ``handler``)."""
    group = commands.add_parser(name, help=help_text)
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(action_name: str, action_help: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(action_name, help=action_help)
        parser.add_argument("--verbose", action="store_true", help=_("more detail in the log"))
        parser.set_defaults(handler=handler)
        return parser

    return actions, action


def _print_redacted(redactor: Redactor, kind: type[BaseException], error: BaseException,
                    trace: TracebackType | None) -> None:
    """``sys.excepthook`` of a command: a bug's traceback on stderr, without the key-hash."""
    sys.stderr.write(redactor.text("".join(traceback.format_exception(kind, error, trace))))


async def _with_station(config: StoreConfig, secret: str, args: argparse.Namespace, command: Command) -> Payload:
    async with await Station.open(config, secret, threaded=False) as station:  # one command: no journal thread
        return await command(station, args)


class ProgressPrinter:
    """One stderr line per status change of the attempt being worked on; remembers the
    last attempt that was sent, for the JSON of an interrupted run."""

    def __init__(self) -> None:
        self.sent: str | None = None
        self._last: tuple[str, Phase] | None = None

    def __call__(self, event: StationEvent) -> None:
        if not isinstance(event, PaymentProgress):
            return
        progress: Progress = event.progress
        if progress.phase is Phase.SENDING:
            self.sent = progress.attempt_id
        key = (progress.attempt_id, progress.phase)
        if key == self._last:
            return
        self._last = key
        what = progress.outcome if progress.phase is Phase.FINISHED else progress.phase
        sys.stderr.write(f"{progress.attempt_id} {progress.terminal_id}: {what} ({progress.elapsed:.1f} s)\n")
        sys.stderr.flush()


async def _terminal_command(station: Station, args: argparse.Namespace) -> Payload:
    if args.operation == "list":
        try:
            listing = await station.client.list_terminals()
        except Unauthorized as error:
            raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
                error=error)) from None
        except PaymentsError as error:
            return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
        return {"outcome": "approved",
                "terminals": [t.model_dump(by_alias=True, exclude_none=True) for t in listing.data]}, 0
    printer = ProgressPrinter()
    station.events.subscribe(printer)
    try:
        payload, code = await _dispatch(station, args)
        if args.operation in AUDITED and (payload.get("attempt_id") or args.operation == "resolve"):
            await _audit(station, args, payload)  # what was journaled (or decided), not what was refused
        return payload, code
    except asyncio.CancelledError:  # Ctrl-C: the service journaled what was out as unknown
        if printer.sent is None:
            return {"outcome": "failed", "error": _("interrupted before anything was sent")}, EXIT[Outcome.FAILED]
        return {"outcome": "unknown", "attempt_id": printer.sent,
                "error": _("interrupted while the request was out: the customer may be charged; "
                           "`pos-app terminal resume` finds out (never charge again)")}, EXIT[Outcome.UNKNOWN]


AUDITED = {"void": AuditAction.VOID, "refund": AuditAction.REFUND, "resolve": AuditAction.RESOLVE,
           "close-batch": AuditAction.CLOSE_BATCH}
"""Manager actions: written to the staff file's audit trail with who ran them and the outcome."""


async def _audit(station: Station, args: argparse.Namespace, payload: dict[str, Any]) -> None:
    """The audit row of a manager action run from the command line (``audit_error`` in the
    JSON when the staff file cannot take it: the action itself stands, journaled)."""
    actor = getattr(args, "by", None) or os_operator()
    target = " ".join(f"{name} {value}" for name, value in (
        ("terminal", getattr(args, "terminal", None)), ("ref", getattr(args, "ref", None)),
        ("attempt", getattr(args, "attempt", None)), ("amount", getattr(args, "amount", None))) if value)
    # the audit's record, in English like the journal (a stored row, not a screen's text)
    detail = f"pos-app terminal {args.operation} {target}: {payload.get('outcome')}"  # not for people
    if payload.get("attempt_id"):
        detail += f" (attempt {payload['attempt_id']})"  # not for people

    def write() -> None:
        with Staff.open(station.config.staff_path) as staff:
            staff.record(actor, AUDITED[args.operation], detail, getattr(args, "reason", None) or "")

    try:
        await asyncio.to_thread(write)
    except (StaffError, OSError, ValueError) as error:
        payload["audit_error"] = _("the audit trail could not record this action: {error}").format(error=error)


async def _dispatch(station: Station, args: argparse.Namespace) -> Payload:
    if args.operation == "resume":
        results = await station.resume(wait_limit=args.wait)
        still_unknown = any(r.outcome is Outcome.UNKNOWN for r in results)
        payload = {"outcome": "unknown" if still_unknown else "approved",
                   "attempts": [r.to_json() for r in results]}
        return payload, 3 if still_unknown else 0
    if args.operation == "report":
        try:
            day = date.fromisoformat(args.day) if args.day else date.today()
        except ValueError:
            raise Refused(_("--day must be YYYY-MM-DD, got {day!r}").format(day=args.day)) from None
        try:
            return await station.report(day), 0
        except PaymentsError as error:
            return {"outcome": "failed",
                    "error": _("transaction list unavailable: {error}").format(error=error)}, EXIT[Outcome.FAILED]
    if args.operation == "resolve":
        if args.reference and not args.paid:
            raise Refused(_("--reference names the charge that paid the attempt: it goes with --paid"))
        try:
            result: OperationResult = await station.resolve(
                args.attempt, paid=args.paid, reason=args.reason, by=args.by or getpass.getuser(), force=args.force,
                reference=args.reference)
        except ValueError as error:
            raise Refused(str(error)) from None
        return result.to_json(), EXIT[Outcome.FAILED] if result.refusal else 0
    if args.operation == "close-batch":
        return await _close_batch(station, args)
    result = await _operation(station, args)
    if result.refusal in CONFIG_REFUSALS:
        return {**result.to_json(), "outcome": "invalid"}, EXIT_INVALID
    return result.to_json(), EXIT[result.outcome]


async def _operation(station: Station, args: argparse.Namespace) -> OperationResult:
    operation = args.operation
    if operation in ("sale", "preauth"):
        return await station.sale(_amount(station, args.amount), terminal_id=args.terminal,
                                  preauth=operation == "preauth", order_number=args.order_number, email=args.email,
                                  phone=args.phone, receipt=args.receipt)
    if operation == "capture":
        return await station.capture(args.terminal, args.ref, _amount(station, args.amount, TERMINAL_AMOUNT_MAX),
                                     payment_id=args.payment_id)
    if operation == "refund":
        return await station.refund(args.terminal, args.ref, _amount(station, args.amount, TERMINAL_AMOUNT_MAX),
                                    payment_id=args.payment_id)
    if operation == "void":
        return await station.void(args.terminal, args.ref, payment_id=args.payment_id)
    raise Refused(f"unknown terminal operation {operation!r}")  # not for people: argparse allows no other


def _amount(station: Station, text: str, maximum: int | None = None) -> int:
    """``--amount``: integer cents (minor units); refused with what 1250 is in this store's
    currency and locale (``12,50 €``, ``¥1,250``), for a person who typed the amount as
    written."""
    try:
        return parse_cents(text, field="--amount", maximum=maximum)
    except InvalidInput as error:
        raise Refused(_("{error}; in this store --amount 1250 is {amount}").format(
            error=error, amount=station.money(1250))) from None


async def _close_batch(station: Station, args: argparse.Namespace) -> Payload:
    """The close's JSON as for any operation, plus ``report``: the end-of-shift report PDF,
    written whatever the close gave (``report_error`` when it could not be saved)."""
    end = await station.shift_end(args.terminal, by=getpass.getuser(), by_serial=args.by_serial)
    result = end.report.close.result
    payload = result.to_json()
    if end.path is not None:
        payload["report"] = str(end.path)
    else:
        payload["report_error"] = end.save_error
    if result.refusal in CONFIG_REFUSALS:
        return {**payload, "outcome": "invalid"}, EXIT_INVALID
    return payload, EXIT[result.outcome]


async def _receipt_command(station: Station, args: argparse.Namespace) -> Payload:
    try:
        pdf = await station.client.receipt_pdf(args.payment_id, for_merchant=not args.customer)
    except InvalidInput:
        raise
    except Unauthorized as error:
        raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
            error=error)) from None
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    out: Path = args.out
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".part")
        partial.write_bytes(pdf)
        partial.replace(out)  # never a half-written receipt
    except OSError as error:
        raise Refused(_("cannot write {file}: {error}").format(file=out, error=error.strerror or error)) from None
    return {"outcome": "approved", "paymentId": args.payment_id, "file": str(out), "bytes": len(pdf),
            "copy": "customer" if args.customer else "merchant"}, 0

