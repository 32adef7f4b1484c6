"""``pos-app subscription …``: the store's subscriptions from a script or a back-office shell.

Imports no Qt. Runs through the ``Station`` (its settings, key-hash and client) and prints
ONE JSON object on stdout, as ``pos-app customer`` does. Amounts are whole cents, like
every amount of the command line. Exit codes: 0 done; 1 refused or invalid (bad input
refused before anything was sent, or the service refused: a transition its state does not
allow, with the service's sentence under ``error``); 4 failed (no answer from the
service, or a server error: nothing is known to have changed). None of these commands
moves money but ``retry``, which goes through the journal (``ChargeService``) and answers
with the exit codes of ``pos-app terminal sale`` (0 approved, 1 invalid: nothing sent, 2
declined, 3 unknown, 4 failed, 5 partially approved).

- ``subscription create --customer ID --amount CENTS (--every-days N | --every-months N
  --day D) [--payments N] [--start YYYY-MM-DD]`` → ``{"subscription": {…}}``
- ``subscription list [--status S[,S…]]`` → ``{"subscriptions": [{…}], "count"}`` (every
  page; inactive ones only when ``--status`` names them, as the service lists)
- ``subscription get|pause|resume|cancel ID`` → ``{"subscription": {…}}`` with its
  ``status``; ``get`` adds the ``schedule``
- ``subscription retry SCHEDULE_ID [--subscription ID]`` charges an unpaid schedule entry
  now → the attempt's result (``operation`` ``subscription_retry``, ``order_key``
  ``schedule:<id>``); never sent for a paid entry, nor while an earlier retry of it is
  unknown (``pos-app terminal resume`` settles that one from the entry)
"""

from __future__ import annotations

import argparse
from datetime import date
from typing import Any

from pos_app.api.errors import ApiError, InvalidInput, PaymentsError, ServerError, Unauthorized
from pos_app.api.models import Page
from pos_app.api.money import parse_cents
from pos_app.api.subscription_models import CustomSchedule, Subscription, SubscriptionDraft, SubscriptionStatus
from pos_app.api.subscriptions import Subscriptions
from pos_app.i18n import _
from pos_app.journal import Outcome
from pos_app.station.charge_cli import money_payload
from pos_app.station.cli import EXIT, EXIT_INVALID, Payload, Refused, _run, command_group
from pos_app.station.station import Station

LIST_PAGE = 100
"""Subscriptions read per request by ``list``."""


def add_subscription_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    __, action = command_group(commands, "subscription", _("the store's subscriptions (JSON on stdout)"),
                               run_subscription_command)

    parser = action("create", _("subscribe a customer: their default payment method is charged on a schedule"))
    parser.add_argument("--customer", required=True, help=_("the customer vault id (24 hexadecimal characters)"))
    parser.add_argument("--amount", required=True, help=_("each payment, in cents (1250 for 12.50)"))
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--every-days", type=int, metavar="N", help=_("a payment every N days"))
    mode.add_argument("--every-months", type=int, metavar="N", help=_("a payment every N months (1-24), with --day"))
    parser.add_argument("--day", type=int, metavar="D", help=_("the day of the month (1-31) with --every-months"))
    parser.add_argument("--payments", type=int, default=0, metavar="N",
                        help=_("how many payments, 0 to 52 (default 0: until cancelled)"))
    parser.add_argument("--start", metavar="YYYY-MM-DD", help=_("the first payment's date, after today (default "
                                                                 "tomorrow)"))
    parser = action("list", _("list the subscriptions"))
    parser.add_argument("--status", help=_("only these states, comma-separated: {states}").format(
        states=", ".join(SubscriptionStatus)))
    for name, help_text in (("get", _("one subscription with its schedule")),
                            ("pause", _("pause a running subscription (its future payments are removed)")),
                            ("resume", _("resume a paused subscription (the schedule restarts tomorrow)")),
                            ("cancel", _("cancel a subscription (it becomes inactive)"))):
        action(name, help_text).add_argument("id", help=_("the subscription id"))
    parser = action("retry", _("charge an unpaid schedule entry now (journaled; never twice)"))
    parser.add_argument("schedule_id", metavar="SCHEDULE_ID", help=_("the entry's id (subscription get lists them)"))
    parser.add_argument("--subscription", metavar="ID", help=_("the subscription holding it (found when omitted)"))


def run_subscription_command(args: argparse.Namespace) -> int:
    return _run(args, _subscription_command)


def shown(subscription: Subscription, *, with_schedule: bool = False) -> dict[str, Any]:
    """A subscription as the commands print it (amounts in cents)."""
    schedule = subscription.custom_schedule
    body: dict[str, Any] = {
        "id": subscription.id,
        "status": None if subscription.status is None else subscription.status.value,
        "customer": subscription.customer_vault_id,
        "amount": subscription.amount,
        "plan": subscription.plan_id,
        "every_days": schedule.day_frequency if schedule else None,
        "every_months": schedule.month_frequency if schedule else None,
        "day": schedule.day_of_month if schedule else None,
        "payments": schedule.payments if schedule else None,
        "next_payment": subscription.next_payment,
    }
    if with_schedule:
        body["schedule"] = [{"id": e.id, "date": e.date, "amount": e.amount,
                             "status": None if e.status is None else e.status.value}
                            for e in subscription.schedule]
    return body


async def _subscription_command(station: Station, args: argparse.Namespace) -> Payload:
    subscriptions = station.client.subscriptions
    if args.action == "retry":
        return money_payload(await station.service.subscription_retry(args.schedule_id,
                                                                      subscription_id=args.subscription))
    try:
        if args.action == "list":
            return await _list(subscriptions, _statuses(args.status))
        if args.action == "create":
            return {"subscription": shown(await subscriptions.create(_draft(args)), with_schedule=True)}, 0
        if args.action == "get":
            return {"subscription": shown(await subscriptions.get(args.id), with_schedule=True)}, 0
        moves = {"pause": subscriptions.pause, "resume": subscriptions.resume, "cancel": subscriptions.cancel}
        return {"subscription": shown(await moves[args.action](args.id))}, 0
    except InvalidInput as error:
        raise Refused(str(error)) from None
    except Unauthorized as error:
        raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
            error=error)) from None
    except ServerError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    except ApiError as error:  # TransitionRefused included: the service's sentence
        reason = "; ".join(error.messages) or error.text or str(error)
        return {"outcome": "refused", "error": _("the service refused it: {reason}").format(reason=reason)}, \
            EXIT_INVALID
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]


async def _list(subscriptions: Subscriptions, statuses: tuple[SubscriptionStatus, ...]) -> Payload:
    found: list[Subscription] = []
    skipped = 0
    page_number = 1
    while True:
        page: Page[Subscription] = await subscriptions.list(statuses=statuses, page=page_number, limit=LIST_PAGE)
        found += page.data
        skipped += page.skipped
        if not page.data or page_number >= (page.meta.total_pages or 1):
            break
        page_number += 1
    payload: dict[str, Any] = {"subscriptions": [shown(s) for s in found], "count": len(found)}
    if skipped:
        payload["skipped"] = skipped
    return payload, 0


def _statuses(text: str | None) -> tuple[SubscriptionStatus, ...]:
    if text is None:
        return ()
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SubscriptionStatus._value2member_map_]
    if unknown or not names:
        raise Refused(_("--status takes {states} (comma-separated), got {text!r}").format(
            states=", ".join(SubscriptionStatus), text=text))
    return tuple(SubscriptionStatus(name) for name in names)


def _draft(args: argparse.Namespace) -> SubscriptionDraft:
    start = None
    if args.start is not None:
        try:
            start = date.fromisoformat(args.start)
        except ValueError:
            raise Refused(_("--start must be a date as YYYY-MM-DD, got {start!r}").format(start=args.start)) from None
    schedule = CustomSchedule(amount=parse_cents(args.amount), payments=args.payments,
                              dayFrequency=args.every_days, monthFrequency=args.every_months, dayOfMonth=args.day)
    return SubscriptionDraft(customerVaultId=args.customer, customSchedule=schedule, startDate=start)
