"""``pos-app link …``: payment links from a script or a back-office shell, on the dated
(202104) routes.

Imports no Qt. Runs through the ``Station`` (its settings, key-hash and client) and prints
ONE JSON object on stdout, as ``pos-app terminal`` does. Amounts are in cents, as every
amount of the commands, whatever unit the service speaks on a route (its view answers
dollars). Exit codes: 0 done; 1 refused or invalid (bad input refused before anything
was sent, or the service refused the request: the sentence is under ``error``); 4 failed
(no answer from the service, or a server error). None of these commands moves money: a
link is paid by its customer.

- ``link create --amount CENTS [--tax ID ...] (--email E | --phone P)`` creates the link
  (``taxes: []`` when none) and sends it → ``{"id", "url", "total"}``. When the link was
  created but could not be sent, the error comes with its ``id``, ``url`` and ``total``
  (send it again with ``link send``).
- ``link status ID`` → ``{"paid", "paid_amount", "total", "payment_id"}`` in cents.
- ``link list`` → ``{"links": [{"id", "url", "total", "paid_amount", "paid", "payment_id"}],
  "count"}`` (every link not deleted).
- ``link delete ID`` → ``{"id", "active", "deleted_at"}``.
- ``link send ID (--email E | --phone P)`` → ``{"id", "sent_to", "message"}``.
"""

from __future__ import annotations

import argparse
from typing import Any

from pos_app.api.errors import ApiError, InvalidInput, PaymentsError, ServerError, Unauthorized
from pos_app.api.link_models import (
    LinkDraft,
    LinkSent,
    PaymentLink,
    require_email,
    require_link_id,
    require_phone_number,
)
from pos_app.api.links import PaymentLinks
from pos_app.api.money import parse_cents
from pos_app.i18n import _
from pos_app.journal import Outcome
from pos_app.station.cli import EXIT, EXIT_INVALID, Payload, Refused, _run, command_group
from pos_app.station.station import Station

LIST_PAGE = 100
"""Links asked per page of ``link list`` (the largest page the service serves)."""


def add_link_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    __, action = command_group(commands, "link", _("the store's payment links (JSON on stdout)"), run_link_command)

    def recipient(parser: argparse.ArgumentParser) -> None:
        to = parser.add_mutually_exclusive_group(required=True)
        to.add_argument("--email", help=_("send the link to this email address"))
        to.add_argument("--phone", help=_("send the link by SMS (US format: 5551234567, (555) 123-4567)"))

    parser = action("create", _("create a payment link and send it to the customer"))
    parser.add_argument("--amount", required=True, help=_("in cents: 1250 for 12.50"))
    parser.add_argument("--tax", action="append", default=[], metavar="ID", help=_("a merchant tax id (repeatable)"))
    recipient(parser)
    action("status", _("is the link paid? (amounts in cents)")).add_argument("id")
    action("list", _("list the payment links"))
    action("delete", _("delete a payment link")).add_argument("id")
    parser = action("send", _("send a payment link again"))
    parser.add_argument("id")
    recipient(parser)


def run_link_command(args: argparse.Namespace) -> int:
    return _run(args, _link_command)


def _recipient(args: argparse.Namespace) -> dict[str, str]:
    """``{"email": …}`` or ``{"phone": …}``, checked (nothing sent when it is bad)."""
    if args.email is not None:
        return {"email": require_email(args.email)}
    return {"phone": require_phone_number(args.phone)}


def listed(link: PaymentLink) -> dict[str, Any]:
    return {"id": link.id, "url": link.url, "total": link.total_amount, "paid_amount": link.paid_amount,
            "paid": link.is_paid, "payment_id": link.payment_id}


async def _link_command(station: Station, args: argparse.Namespace) -> Payload:
    links = station.client.links
    try:
        if args.action == "create":
            return await _create(links, args)
        if args.action == "status":
            link = await links.get(require_link_id(args.id))
            return {"paid": link.is_paid, "paid_amount": link.paid_amount, "total": link.total_amount,
                    "payment_id": link.payment_id}, 0
        if args.action == "list":
            return await _list(links)
        if args.action == "delete":
            deleted = await links.delete(require_link_id(args.id))
            return {"id": deleted.id, "active": deleted.active, "deleted_at": deleted.deleted_at}, 0
        link_id, to = require_link_id(args.id), _recipient(args)
        return _sent(link_id, to, await links.send(link_id, **to))
    except InvalidInput as error:
        raise Refused(str(error)) from None
    except Unauthorized as error:
        raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
            error=error)) from None
    except PaymentsError as error:
        return failure(error)


async def _create(links: PaymentLinks, args: argparse.Namespace) -> Payload:
    draft = LinkDraft(amount=parse_cents(args.amount), taxes=args.tax)
    to = _recipient(args)
    link = await links.create(draft)
    made = {"id": link.id, "url": link.url, "total": link.total_amount}
    try:
        sent = await links.send(link.id, **to)
    except PaymentsError as error:
        payload, code = failure(error)
        payload["error"] = _("the link was created but not sent: {why}").format(why=payload["error"])
        return {**payload, **made}, code
    if sent.success is False:
        why = sent.message or _("no reason given")
        return {"outcome": "refused", "error": _("the link was created but not sent: {why}").format(why=why),
                **made}, EXIT_INVALID
    return made, 0


async def _list(links: PaymentLinks) -> Payload:
    page_number, found, skipped = 1, [], 0
    while True:
        page = await links.list(page=page_number, limit=LIST_PAGE)
        found += [listed(link) for link in page.data]
        skipped += page.skipped
        if not page.data or page_number >= (page.meta.total_pages or 1):
            break
        page_number += 1
    payload: dict[str, Any] = {"links": found, "count": len(found)}
    if skipped:
        payload["skipped"] = skipped
    return payload, 0


def _sent(link_id: str, to: dict[str, str], sent: LinkSent) -> Payload:
    if sent.success is False:
        return {"outcome": "refused", "error": _("the service did not send it: {why}").format(
            why=sent.message or _("no reason given"))}, EXIT_INVALID
    return {"id": link_id, "sent_to": next(iter(to.values())), "message": sent.message}, 0


def failure(error: PaymentsError) -> Payload:
    """An error of the service as the commands print it: refused (1) when it said no,
    failed (4) when it did not answer or failed itself."""
    if isinstance(error, ApiError) and not isinstance(error, ServerError):
        reason = "; ".join(error.messages) or error.text or str(error)
        return {"outcome": "refused", "error": _("the service refused it: {reason}").format(reason=reason)}, \
            EXIT_INVALID
    return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
