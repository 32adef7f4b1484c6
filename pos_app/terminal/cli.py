"""``pos-app terminal …`` and ``pos-app receipt …``: automation, diagnostics, scripted close batch.

Imports no Qt. Prints ONE JSON object on stdout. Exit codes: 0 approved, 1 invalid input
or configuration (nothing sent), 2 declined, 3 unknown, 4 failed. ``resume`` exits 0 when
every in-flight attempt reached a final outcome, 3 when any is still unknown.
No traceback for any expected condition; ``--verbose`` adds detail on stderr and in the log.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity
from pos_app.api.errors import InvalidInput, PaymentsError
from pos_app.api.money import TERMINAL_AMOUNT_MAX, parse_cents
from pos_app.config import ConfigError, StoreConfig, key_hash, load_config, setup_logging
from pos_app.journal import Journal, JournalError, Outcome

EXIT = {Outcome.APPROVED: 0, Outcome.DECLINED: 2, Outcome.UNKNOWN: 3, Outcome.FAILED: 4}
EXIT_INVALID = 1


class Refused(Exception):
    """Invalid input or configuration: nothing was sent (exit 1)."""


def add_terminal_commands(commands: argparse._SubParsersAction) -> None:
    terminal = commands.add_parser("terminal", help="run terminal operations (JSON on stdout)")
    ops = terminal.add_subparsers(dest="operation", metavar="OPERATION", required=True)

    def op(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = ops.add_parser(name, help=help_text)
        parser.add_argument("--verbose", action="store_true", help="more detail on stderr and in the log")
        parser.set_defaults(handler=run_terminal_command)
        return parser

    op("list", "list the merchant's terminals")
    for name, text in (("sale", "charge an amount"), ("preauth", "reserve an amount")):
        parser = op(name, text)
        parser.add_argument("--terminal", required=True)
        parser.add_argument("--amount", required=True, help="integer cents, e.g. 1250 for $12.50")
        parser.add_argument("--order-number")
        parser.add_argument("--email")
        parser.add_argument("--phone")
        parser.add_argument("--receipt", action="store_true", help="have the service send a receipt")
    for name, text, amount in (("capture", "capture a pre-auth", True), ("void", "void an unsettled payment", False),
                               ("refund", "refund a settled payment", True)):
        parser = op(name, text)
        parser.add_argument("--terminal", required=True)
        parser.add_argument("--ref", required=True, help="pnRefNum (transactionId) of the payment")
        if amount:
            parser.add_argument("--amount", required=True, help=f"integer cents, at most {TERMINAL_AMOUNT_MAX}")
    parser = op("close-batch", "close the open batch (manager)")
    parser.add_argument("--terminal", required=True)
    parser.add_argument("--by-serial", action="store_true", help="--terminal is the serial number (type S)")
    parser = op("resume", "resolve every in-flight attempt of the journal")
    parser.add_argument("--wait", type=float, default=None, help="seconds to keep polling open messages")
    parser = op("report", "the day's attempts per terminal and outcome, reconciled with the service")
    parser.add_argument("--day", help="YYYY-MM-DD (default: today, local time)")
    parser = op("resolve", "a manager's decision on an unknown attempt")
    parser.add_argument("attempt")
    decision = parser.add_mutually_exclusive_group(required=True)
    decision.add_argument("--paid", action="store_true")
    decision.add_argument("--not-paid", action="store_true")
    parser.add_argument("--reason", required=True)
    parser.add_argument("--by", default=None, help="the manager's name (default: the OS user)")

    receipt = commands.add_parser("receipt", help="save a payment's receipt PDF")
    receipt.add_argument("payment_id")
    receipt.add_argument("--out", required=True, type=Path)
    receipt.add_argument("--customer", action="store_true", help="the customer copy (default: merchant copy)")
    receipt.add_argument("--verbose", action="store_true")
    receipt.set_defaults(handler=run_receipt_command)


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, sort_keys=True) + "\n")
    sys.stdout.flush()


def run_terminal_command(args: argparse.Namespace) -> int:
    return _run(args, _terminal_command)


def run_receipt_command(args: argparse.Namespace) -> int:
    return _run(args, _receipt_command)


def _run(args: argparse.Namespace, command) -> int:
    try:
        config = load_config()
        secret = key_hash(config)
        setup_logging(config, secret, verbose=args.verbose)
        payload, code = asyncio.run(_with_client(config, secret, args, command))
    except (Refused, ConfigError, InvalidInput) as error:
        payload, code = {"outcome": "invalid", "error": str(error)}, EXIT_INVALID
    except JournalError as error:
        payload, code = {"outcome": "invalid", "error": f"journal: {error}"}, EXIT_INVALID
    emit(payload)
    return code


async def _with_client(config: StoreConfig, secret: str, args: argparse.Namespace, command):
    identity = Identity(store=config.store_id, station=config.station_id,
                        cashier=os.environ.get("POS_CASHIER", config.cashier_id))
    async with PaymentsClient(config.base_url, secret, identity=identity, routes=config.route_table(),
                              connect_timeout=config.connect_timeout, read_timeout=config.read_timeout) as client:
        return await command(config, client, args)


async def _terminal_command(config: StoreConfig, client: PaymentsClient, args: argparse.Namespace):
    from pos_app.terminal.service import TerminalService

    if args.operation == "list":
        try:
            listing = await client.list_terminals()
        except PaymentsError as error:
            return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
        return {"outcome": "approved", "terminals": [t.model_dump(by_alias=True, exclude_none=True) for t in listing.data]}, 0
    with Journal.open(config.journal_path) as journal:
        service = TerminalService(client, journal, gateway=config.gateway, wait_limit=config.poll_wait_limit)
        if args.operation == "resume":
            results = await service.resume(wait_limit=args.wait)
            still_unknown = any(r.outcome is Outcome.UNKNOWN for r in results)
            payload = {"outcome": "unknown" if still_unknown else "approved",
                       "attempts": [r.to_json() for r in results]}
            return payload, 3 if still_unknown else 0
        if args.operation == "report":
            return await _report(config, client, journal, args.day)
        if args.operation == "resolve":
            by = args.by or getpass.getuser()
            result = service.resolve(args.attempt, paid=args.paid, reason=args.reason, by=by)
            return result.to_json(), 0
        recovered = await service.recover_interrupted()  # a killed earlier run must not block us
        result = await _operation(service, args)
        payload = result.to_json()
        if recovered:
            payload["recovered"] = [r.to_json() for r in recovered]
        return payload, EXIT[result.outcome]


async def _report(config: StoreConfig, client: PaymentsClient, journal: Journal, day_text: str | None):
    """Summary of ``day`` and its reconciliation with this station's service transactions."""
    from pos_app.terminal.lookup import CLOCK_SLACK, transactions_since

    try:
        day = date.fromisoformat(day_text) if day_text else date.today()
    except ValueError:
        raise Refused(f"--day must be YYYY-MM-DD, got {day_text!r}") from None
    day_start = datetime.combine(day, datetime.min.time()).astimezone()
    entries = []
    try:
        async for entry in transactions_since(client, day_start - CLOCK_SLACK):
            if _ours(entry.user_agent, Identity(station=config.station_id)):
                entries.append(entry.model_dump(by_alias=True, exclude_none=True))
    except PaymentsError as error:
        return {"outcome": "failed", "error": f"transaction list unavailable: {error}"}, EXIT[Outcome.FAILED]
    summary = journal.summary(day)
    reconciliation = journal.reconcile(entries, day=day)
    return {
        "outcome": "approved",
        "day": day.isoformat(),
        "summary": [{"terminal": line.terminal_id, "operation": str(line.operation),
                     "outcome": str(line.outcome) if line.outcome else "in_flight",
                     "count": line.count, "total_cents": line.total} for line in summary.lines],
        "reconciliation": {
            "clean": reconciliation.clean,
            "matched": len(reconciliation.matched),
            "problems": [{"attempt_id": m.attempt.id, "problem": m.problem} for m in reconciliation.problems],
            "service_only": [{k: e.get(k) for k in ("paymentId", "transactionId", "baseAmount", "amount", "createdAt", "userAgent")}
                             for e in reconciliation.service_only],
            "journal_only": [{"attempt_id": a.id, "amount": a.amount, "terminal": a.terminal_id}
                             for a in reconciliation.journal_only],
        },
    }, 0


def _ours(user_agent: str | None, station: Identity) -> bool:
    """Entries of this station, or not made by pos-app at all; other stations reconcile their own."""
    if not user_agent or not user_agent.startswith("pos-app/"):
        return True
    return station.made(user_agent)


async def _operation(service, args: argparse.Namespace):
    operation = args.operation
    if operation in ("sale", "preauth"):
        amount = parse_cents(args.amount)
        run = service.sale if operation == "sale" else service.preauth
        return await run(args.terminal, amount, order_number=args.order_number, email=args.email,
                         phone=args.phone, receipt=args.receipt)
    if operation == "capture":
        return await service.capture(args.terminal, args.ref, parse_cents(args.amount, maximum=TERMINAL_AMOUNT_MAX))
    if operation == "refund":
        return await service.refund(args.terminal, args.ref, parse_cents(args.amount, maximum=TERMINAL_AMOUNT_MAX))
    if operation == "void":
        return await service.void(args.terminal, args.ref)
    if operation == "close-batch":
        return await service.close_batch(args.terminal, by_serial=args.by_serial)
    raise Refused(f"unknown terminal operation {operation!r}")


async def _receipt_command(config: StoreConfig, client: PaymentsClient, args: argparse.Namespace):
    try:
        pdf = await client.receipt_pdf(args.payment_id, for_merchant=not args.customer)
    except InvalidInput:
        raise
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    out: Path = args.out
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".part")
        partial.write_bytes(pdf)
        partial.replace(out)  # never a half-written receipt
    except OSError as error:
        raise Refused(f"cannot write {out}: {error.strerror or error}") from None
    return {"outcome": "approved", "paymentId": args.payment_id, "file": str(out), "bytes": len(pdf),
            "copy": "customer" if args.customer else "merchant"}, 0
