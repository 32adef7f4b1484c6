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
"""

from __future__ import annotations

import argparse
from typing import Any

from pos_app.api.customer_models import Customer, CustomerDraft
from pos_app.api.errors import ApiError, InvalidInput, PaymentsError, ServerError, Unauthorized
from pos_app.journal import Outcome
from pos_app.station.charge_cli import add_customer_charge
from pos_app.station.cli import EXIT, EXIT_INVALID, Payload, Refused, _run
from pos_app.station.station import Station


def add_customer_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    customer = commands.add_parser("customer", help="the store's customer vaults (JSON on stdout)")
    actions = customer.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
        parser.add_argument("--verbose", action="store_true", help="more detail in the log")
        parser.set_defaults(handler=run_customer_command)
        return parser

    parser = action("list", "list the customers (with their default card)")
    parser.add_argument("--keyword", help="partial match on name, email, phone, company, external id or card last 4")
    parser = action("add", "add a customer (no card: the card is added with the customer's token)")
    parser.add_argument("--first-name", required=True)
    parser.add_argument("--last-name", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--phone", help="US format: 5551234567, (555) 123-4567 or 555 123-4567")
    add_customer_charge(actions)


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
        draft = CustomerDraft(firstName=args.first_name, lastName=args.last_name, email=args.email,
                              phoneNumber=args.phone)
        return {"customer": listed(await vaults.create(draft))}, 0
    except InvalidInput as error:
        raise Refused(str(error)) from None
    except Unauthorized as error:
        raise Refused(f"the service refused the key-hash ({error}): check the configured key") from None
    except ServerError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
    except ApiError as error:
        reason = "; ".join(error.messages) or error.text or str(error)
        return {"outcome": "refused", "error": f"the service refused it: {reason}"}, EXIT_INVALID
    except PaymentsError as error:
        return {"outcome": "failed", "error": str(error)}, EXIT[Outcome.FAILED]
