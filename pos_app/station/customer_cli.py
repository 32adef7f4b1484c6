"""``pos-app customer …``: the store's customer vaults from a script or a back-office shell.

Imports no Qt. Runs through the ``Station`` (its settings, key-hash and client) and prints
ONE JSON object on stdout, as ``pos-app terminal`` does. Exit codes: 0 done; 1 refused or
invalid (bad input refused before anything was sent, or the service refused the request:
the sentence is under ``error``); 4 failed (no answer from the service, or a server error:
nothing is known to have changed). None of these commands moves money, except ``customer
charge`` (``pos_app.station.charge_cli``: journaled, the exit codes of ``terminal sale``).

- ``customer list [--keyword K]`` → ``{"customers": [{"id", "name", "email", "phone",
  "default_card": {"id", "brand", "last4"} | null}], "count"}`` (every vault, ``limit=0``)
- ``customer add --first-name F --last-name L --email E [--phone P]`` → ``{"customer": {…}}``
- ``customer delete ID...`` → ``{"deleted": [ids]}`` (soft; several ids: one bulk delete,
  which is not atomic: a failure lists ``deleted`` and ``failed`` {id: why}, exit 1)
- ``customer update-link ID (--email E | --phone P) [--expires 24h]`` and ``customer invite
  (--email E | --phone P) [--expires 24h]`` → ``{"outcome": "queued", "to": {…}, …}``: the
  link is queued by the service, not delivered; only the contact given is sent (never the
  vault's own); without one the command is refused and nothing is sent
- ``customer export FILE.csv`` → ``{"file", "rows"}``: the service's CSV written as it
  came, through a temporary file renamed over FILE (never half a file)
- ``customer import FILE.csv`` → ``{"outcome": "imported", "file", "rows"}``; all or
  nothing: a refused file exits 1 with the failing line numbers under ``lines``
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import tempfile
from pathlib import Path
from typing import Any

from pos_app.api.customer_models import Customer, CustomerDraft
from pos_app.api.errors import ApiError, InvalidInput, PaymentsError, ServerError, Unauthorized
from pos_app.api.vault_models import BulkDeleteFailed, ImportRejected, LinkContact, LinkExpiry, LinkQueued
from pos_app.i18n import _
from pos_app.journal import Outcome
from pos_app.station.charge_cli import add_customer_charge
from pos_app.station.cli import EXIT, EXIT_INVALID, Payload, Refused, _run, command_group
from pos_app.station.station import Station


def add_customer_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    actions, action = command_group(commands, "customer", _("the store's customer vaults (JSON on stdout)"),
                                    run_customer_command)

    parser = action("list", _("list the customers (with their default card)"))
    parser.add_argument("--keyword",
                        help=_("partial match on name, email, phone, company, external id or card last 4"))
    parser = action("add", _("add a customer (no card: the card is added with the customer's token)"))
    parser.add_argument("--first-name", required=True)
    parser.add_argument("--last-name", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--phone", help=_("US format: 5551234567, (555) 123-4567 or 555 123-4567"))
    parser = action("delete", _("delete customers (soft: still readable by id); several ids: one bulk delete"))
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser = action("update-link", _("queue a link for a customer to update their payment details"))
    parser.add_argument("id", metavar="ID")
    _link_arguments(parser)
    parser = action("invite", _("queue a link for a new customer to enter their payment details"))
    _link_arguments(parser)
    parser = action("export", _("save every customer as CSV"))
    parser.add_argument("file", type=Path, metavar="FILE.csv")
    parser = action("import", _("create or update customers from a CSV (all or nothing)"))
    parser.add_argument("file", type=Path, metavar="FILE.csv")

    add_customer_charge(actions)


def _link_arguments(parser: argparse.ArgumentParser) -> None:
    contact = parser.add_mutually_exclusive_group()
    contact.add_argument("--email", help=_("send the link to this email only"))
    contact.add_argument("--phone", help=_("send the link to this phone only (US format)"))
    parser.add_argument("--expires", default="24h",
                        help=_("how long the link works: 30m, 24h, 7d, 2w (default 24h)"))


def run_customer_command(args: argparse.Namespace) -> int:
    return _run(args, _customer_command)


def listed(customer: Customer) -> dict[str, Any]:
    """A customer as the commands print it."""
    card = customer.default_card
    return {"id": customer.id, "name": customer.name, "email": customer.email, "phone": customer.phone_number,
            "default_card": None if card is None else
            {"id": card.customer_vault_id, "brand": card.brand, "last4": card.last4}}


async def _customer_command(station: Station, args: argparse.Namespace) -> Payload:
    vaults = station.client.customers
    try:
        if args.action == "list":
            page = await vaults.list(keyword=args.keyword, limit=0)
            payload: dict[str, Any] = {"customers": [listed(c) for c in page.data], "count": len(page.data)}
            if page.skipped:
                payload["skipped"] = page.skipped
            return payload, 0
        if args.action == "add":
            draft = CustomerDraft(firstName=args.first_name, lastName=args.last_name, email=args.email,
                                  phoneNumber=args.phone)
            return {"customer": listed(await vaults.create(draft))}, 0
        if args.action == "delete":
            if len(args.ids) == 1:
                await vaults.delete(args.ids[0])
                return {"deleted": args.ids}, 0
            return {"deleted": (await vaults.bulk_delete(args.ids)).deleted}, 0
        if args.action in ("update-link", "invite"):
            contact, expiry = _link_request(args)
            if args.action == "invite":
                return _queued(await vaults.invite(contact, expiry), contact, expiry), 0
            return {"customer": args.id, **_queued(await vaults.request_update(args.id, contact, expiry), contact,
                                                   expiry)}, 0
        if args.action == "export":
            return await _export(station, args.file)
        return await _import(station, args.file)
    except BulkDeleteFailed as error:
        return {"outcome": "refused", "error": _("the service refused it: {reason}").format(reason=error.text),
                "deleted": error.deleted, "failed": error.failed}, EXIT_INVALID
    except ImportRejected as error:
        text = (_("nothing was imported: the service refused lines {lines}").format(
                    lines=", ".join(map(str, error.lines))) if error.lines
                else _("nothing was imported: the service refused lines not named"))
        return {"outcome": "refused", "error": text, "lines": error.lines, "problems": error.messages}, EXIT_INVALID
    except InvalidInput as error:
        raise Refused(str(error)) from None
    except Unauthorized as error:
        raise Refused(_("the service refused the key-hash ({error}): check the configured key").format(
            error=error)) from None
    except ServerError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    except ApiError as error:
        reason = "; ".join(error.messages) or error.text or str(error)
        return {"outcome": "refused", "error": _("the service refused it: {reason}").format(reason=reason)}, \
            EXIT_INVALID
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]


def _link_request(args: argparse.Namespace) -> tuple[LinkContact, LinkExpiry]:
    """The contact and expiry of a link, or ``Refused`` (nothing sent) without a contact."""
    if args.email is None and args.phone is None:
        raise Refused(_("give --email or --phone: the link goes only to the contact given (the service sends "
                        "nothing without one); nothing was sent"))
    expiry = LinkExpiry.parse(args.expires)
    return LinkContact(email=args.email, phoneNumber=args.phone), expiry


def _queued(answer: LinkQueued, contact: LinkContact, expiry: LinkExpiry) -> dict[str, Any]:
    to = {"email": contact.email} if contact.email is not None else {"phone": contact.phone_number}
    return {"outcome": "queued", "to": to, "expires": f"{expiry.time} {expiry.unit.value}",
            "message": answer.message}


def _csv_rows(content: bytes) -> int:
    """The data rows of a CSV (the header and blank rows not counted)."""
    text = content.decode("utf-8-sig", errors="replace")
    return max(0, sum(1 for row in csv.reader(io.StringIO(text, newline="")) if any(c.strip() for c in row)) - 1)


async def _export(station: Station, target: Path) -> Payload:
    folder = target.parent.resolve()
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise Refused(_("cannot write {file}: {folder} is not a folder this user can write to; nothing was sent")
                      .format(file=target, folder=folder))
    content = await station.client.customers.export_csv()
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        return {"outcome": "failed", "error": _("cannot write {file}: {error}; the file was left as it was").format(
            file=target, error=error.strerror or error)}, EXIT[Outcome.FAILED]
    return {"file": str(target.resolve()), "rows": _csv_rows(content)}, 0


async def _import(station: Station, source: Path) -> Payload:
    try:
        content = source.read_bytes()
    except OSError as error:
        raise Refused(_("cannot read {file}: {error}; nothing was sent").format(
            file=source, error=error.strerror or error)) from None
    await station.client.customers.import_csv(content, file_name=source.name)
    return {"outcome": "imported", "file": str(source.resolve()), "rows": _csv_rows(content)}, 0
