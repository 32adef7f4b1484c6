"""``pos-app customer charge``, ``pos-app ach …`` and ``pos-app bulk-charge``: money moved
through the service's own payment routes (no terminal), from a script or a back-office shell.

Imports no Qt. Each runs through the ``Station``'s service (``ChargeService``): journaled
before anything leaves, never resent, a lost answer left ``unknown`` for ``pos-app terminal
resume``. ONE JSON object on stdout; amounts are integer cents like every CLI amount. Exit
codes as ``pos-app terminal sale``: 0 approved, 1 invalid input or configuration (nothing
sent), 2 declined, 3 unknown, 4 failed (nothing charged: refused by the journal, e.g. the
order is already paid or has an unknown charge, or by the service), 5 partially approved.

- ``customer charge ID --amount CENTS [--method CUSTOMER_VAULT_ID] [--order-number N]``:
  the customer's default card (or ``--method``); ``--order-number`` is the order: never
  charged twice (refused after an approval, and while an earlier charge is unknown).
- ``ach charge (--customer ID | --routing R --account A --account-type T) --amount CENTS
  [--order-number N]``, ``ach refund PAYMENT_ID --amount CENTS --reason TEXT``, ``ach void
  PAYMENT_ID [--reason R]``, ``ach list [--last4 NNNN] [--page P] [--limit L]``.
- ``bulk-charge FILE.csv``: one row per charge, ``customer id,cents[,order number]`` (a
  header line is allowed); the whole file is checked before anything is sent (a customer
  twice is refused: charge the sum, or run another file). A row without an order number
  pays the order ``bulk:<file digest>:<line>``, so the same file run again charges nobody
  twice. → ``{"outcome", "rows": [{"line", …result}], "counts"}``; exit 0 every row
  approved, 3 any unknown, else 2 any declined, else 4 any failed, else 5 any partial.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
from collections import Counter
from pathlib import Path
from typing import Any

from pos_app.api.charge_models import AchCharge, AchData, CardCharge, ChargeOrder, VoidReason
from pos_app.api.customer_models import require_vault_id
from pos_app.api.errors import ApiError, InvalidInput, PaymentsError, ServerError, Unauthorized
from pos_app.api.money import parse_cents
from pos_app.i18n import _, ngettext
from pos_app.journal import Outcome
from pos_app.station.cli import CONFIG_REFUSALS, EXIT, EXIT_INVALID, Payload, Refused, _run, command_group
from pos_app.station.station import Station
from pos_app.terminal.charges import BulkRow
from pos_app.terminal.outcomes import OperationResult

MAX_BULK_ROWS = 1000


def add_customer_charge(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``customer charge``: added to ``pos-app customer``'s actions."""
    parser = actions.add_parser("charge", help=_("charge a customer's card on file (journaled; JSON on stdout)"))
    parser.add_argument("customer", metavar="ID", help=_("the customer's 24-hex id"))
    parser.add_argument("--amount", required=True, help=_("integer cents (minor units), e.g. 1250 for 12.50"))
    parser.add_argument("--method", metavar="CUSTOMER_VAULT_ID", help=_("charge this stored card, not the default"))
    parser.add_argument("--order-number", help=_("the order: never charged twice"))
    parser.add_argument("--verbose", action="store_true", help=_("more detail in the log"))
    parser.set_defaults(handler=lambda args: _run(args, _customer_charge))


def add_charge_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    __, action = command_group(commands, "ach", _("ACH payments (journaled; JSON on stdout)"),
                               lambda args: _run(args, _ach_command))

    parser = action("charge", _("charge a bank account: a customer's, or one given"))
    parser.add_argument("--customer", help=_("the customer's 24-hex id (its default ACH account)"))
    parser.add_argument("--routing", help=_("routing number (with --account and --account-type)"))
    parser.add_argument("--account", help=_("account number"))
    parser.add_argument("--account-type", choices=["businessChecking", "businessSavings", "personalChecking",
                                                   "personalSavings"])
    parser.add_argument("--amount", required=True, help=_("integer cents"))
    parser.add_argument("--order-number", help=_("the order: never charged twice"))
    parser = action("refund", _("refund a settled ACH payment (6 minutes after the charge at the earliest)"))
    parser.add_argument("payment_id")
    parser.add_argument("--amount", required=True, help=_("integer cents"))
    parser.add_argument("--reason", required=True)
    parser = action("void", _("void an unsettled ACH payment"))
    parser.add_argument("payment_id")
    parser.add_argument("--reason", default=VoidReason.USER_CANCEL.value, choices=[r.value for r in VoidReason])
    parser = action("list", _("list the ACH payments"))
    parser.add_argument("--last4")
    parser.add_argument("--page", type=int)
    parser.add_argument("--limit", type=int)

    bulk = commands.add_parser("bulk-charge", help=_("charge many customers' cards on file from a CSV (journaled)"))
    bulk.add_argument("file", type=Path, metavar="FILE.csv", help=_("rows of: customer id,cents[,order number]"))
    bulk.add_argument("--wait", type=float, default=None, help=_("seconds to wait for the queued payments"))
    bulk.add_argument("--verbose", action="store_true", help=_("more detail in the log"))
    bulk.set_defaults(handler=lambda args: _run(args, _bulk_command))


def _cents(text: str) -> int:
    try:
        return parse_cents(text, field="--amount")
    except InvalidInput as error:
        raise Refused(str(error)) from None


def money_payload(result: OperationResult) -> Payload:
    """A money-moving command's JSON and exit code, as ``pos-app terminal sale`` gives them."""
    if result.refusal in CONFIG_REFUSALS:
        return {**result.to_json(), "outcome": "invalid"}, EXIT_INVALID
    return result.to_json(), EXIT[result.outcome]


async def _customer_charge(station: Station, args: argparse.Namespace) -> Payload:
    try:
        request = CardCharge(amount=_cents(args.amount), customerId=args.customer,
                             overrideDefaultPaymentMethod=args.method,
                             order=ChargeOrder(orderId=args.order_number) if args.order_number else None)
    except InvalidInput as error:
        raise Refused(str(error)) from None
    return money_payload(await station.service.card_charge(request, order_key=args.order_number))


async def _ach_command(station: Station, args: argparse.Namespace) -> Payload:
    service = station.service
    try:
        if args.action == "charge":
            return money_payload(await service.ach_charge(_ach_request(args), order_key=args.order_number))
        if args.action == "refund":
            return money_payload(await service.ach_refund(args.payment_id, _cents(args.amount), args.reason))
        if args.action == "void":
            return money_payload(await service.ach_void(args.payment_id, args.reason))
        listing = await station.client.ach.list(page=args.page, limit=args.limit, last4=args.last4)
    except InvalidInput as error:
        raise Refused(str(error)) from None
    except Unauthorized as error:
        raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
            error=error)) from None
    except ServerError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    except ApiError as error:
        return {"outcome": "refused",
                "error": _("the service refused it: {reason}").format(reason=error.text or error)}, EXIT_INVALID
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    payments = [{"id": p.id, "amount": p.amount, "net_amount": p.net_amount, "paid": p.paid, "settled": p.settled,
                 "last4": p.ach.last4 if p.ach else None, "created_at": p.created_at} for p in listing.data]
    return {"outcome": "approved", "payments": payments, "count": listing.meta.count}, 0


def _ach_request(args: argparse.Namespace) -> AchCharge:
    order = ChargeOrder(orderId=args.order_number) if args.order_number else None
    if args.customer:
        if args.routing or args.account:
            raise Refused(_("give --customer, or the account (--routing, --account, --account-type): not both"))
        return AchCharge(amount=_cents(args.amount), customerId=args.customer, order=order)
    if not (args.routing and args.account and args.account_type):
        raise Refused(_("an ACH charge needs --customer, or --routing, --account and --account-type"))
    data = AchData(routingNumber=args.routing, accountNumber=args.account, accountType=args.account_type,
                   last4=args.account[-4:] if len(args.account) >= 4 else None)
    return AchCharge(amount=_cents(args.amount), achData=data, order=order)


def read_bulk_file(path: Path) -> list[tuple[int, BulkRow]]:
    """The rows of a bulk charge file (line number, row), every line checked first: a
    ``Refused`` listing each bad line, nothing sent."""
    try:
        content = path.read_bytes()
    except OSError as error:
        raise Refused(_("cannot read {file}: {error}").format(file=path, error=error.strerror or error)) from None
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Refused(_("{file} is not UTF-8 text").format(file=path)) from None
    digest = hashlib.sha256(content).hexdigest()[:16]
    rows: list[tuple[int, BulkRow]] = []
    problems: list[str] = []
    for line, fields in enumerate(csv.reader(io.StringIO(text)), start=1):
        cells = [cell.strip() for cell in fields]
        if not any(cells):
            continue
        if line == 1 and len(cells) >= 2 and not cells[1].lstrip("+-").isdigit():
            continue  # a header line (its second field is no amount)
        if len(cells) not in (2, 3):
            problems.append(ngettext("line {line}: expected customer id,cents[,order number], got {count} fields",
                                     "line {line}: expected customer id,cents[,order number], got {count} fields",
                                     len(cells)).format(line=line, count=len(cells)))
            continue
        try:
            customer = require_vault_id(cells[0], field=_("customer id"))
            amount = parse_cents(cells[1], field=_("cents"))
        except InvalidInput as error:
            problems.append(_("line {line}: {error}").format(line=line, error=error))
            continue
        order = cells[2] if len(cells) == 3 and cells[2] else f"bulk:{digest}:{line}"
        rows.append((line, BulkRow(customer, amount, order)))
    seen = Counter(row.customer_id for __, row in rows)
    for customer, times in sorted(seen.items()):
        if times > 1:
            lines = ", ".join(str(line) for line, row in rows if row.customer_id == customer)
            problems.append(_("customer {customer} is charged {times} times (lines {lines}): one row per customer")
                            .format(customer=customer, times=times, lines=lines))
    orders = Counter(row.order_key for __, row in rows)
    problems += [_("order {order} appears {times} times: one charge per order").format(order=order, times=times)
                 for order, times in orders.items() if times > 1]
    if problems:
        raise Refused(_("{file}: nothing was sent; {problems}").format(file=path, problems="; ".join(problems)))
    if not rows:
        raise Refused(_("{file} has no rows to charge").format(file=path))
    if len(rows) > MAX_BULK_ROWS:
        raise Refused(_("{file} has {count} rows: at most {maximum} per bulk charge").format(
            file=path, count=len(rows), maximum=MAX_BULK_ROWS))
    return rows


async def _bulk_command(station: Station, args: argparse.Namespace) -> Payload:
    rows = read_bulk_file(args.file)
    results = await station.service.bulk_charge([row for __, row in rows], wait_limit=args.wait)
    counts = Counter(str(result.outcome) for result in results)
    printed: list[dict[str, Any]] = [{"line": line, "customer_id": row.customer_id, **result.to_json()}
                                     for (line, row), result in zip(rows, results, strict=True)]
    outcome = next((o for o in BULK_PRECEDENCE if counts[o]), Outcome.APPROVED)
    return {"outcome": str(outcome), "rows": printed, "counts": dict(counts)}, EXIT[outcome]


BULK_PRECEDENCE = (Outcome.UNKNOWN, Outcome.DECLINED, Outcome.FAILED, Outcome.PARTIALLY_APPROVED)
"""A bulk charge's outcome: the first of these any row has (else every row was approved)."""
