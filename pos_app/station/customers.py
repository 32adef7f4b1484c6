"""Finding and adding the customer a cashier attaches to the order (F6), Qt-free: the
service's vaults searched by ``keyword`` (name, email, phone, company, card last four) and
a new vault created from what the cashier typed, each as an ``OrderCustomer`` with its
default card said in words ("Visa •••• 4242"). Bad input and the service's refusals are
``ValueError`` with a sentence a cashier can act on; nothing is sent on bad input."""

from __future__ import annotations

from dataclasses import dataclass

from pos_app.api.client import PaymentsClient
from pos_app.api.customer_models import Customer, CustomerDraft
from pos_app.api.errors import ApiError, InvalidInput
from pos_app.cart import OrderCustomer
from pos_app.i18n import _

MAX_FOUND = 50
"""The most customers a search lists (the service's list is paged; a cashier types more)."""


@dataclass(frozen=True)
class CustomerFound:
    """A vault as the customer dialog lists it."""

    customer: OrderCustomer
    card: str
    """The default card in words ("Visa •••• 4242"), "" without one."""


def found(vault: Customer) -> CustomerFound:
    card = vault.default_card
    said = ""
    if card is not None:
        said = " ".join(part for part in (card.brand or card.network or _("Card"),
                                          f"•••• {card.last4}" if card.last4 else "") if part)
    name = vault.name or vault.email or vault.id
    return CustomerFound(OrderCustomer(vault.id, name, vault.email, vault.phone_number), said)


async def find_customers(client: PaymentsClient, keyword: str) -> list[CustomerFound]:
    """The vaults ``keyword`` matches (deleted ones left out), at most ``MAX_FOUND``."""
    keyword = " ".join(keyword.split())
    if not keyword:
        raise ValueError(_("type part of a name, an email, a phone number, a company or a card's last four digits"))
    page = await client.customers.list(keyword=keyword, limit=MAX_FOUND)
    return [found(vault) for vault in page.data if not vault.deleted_at]


async def add_customer(client: PaymentsClient, first_name: str, last_name: str, email: str,
                       phone: str = "") -> CustomerFound:
    """A new vault (first and last name and email required; the phone as the reference's
    pattern allows), created on the service."""
    try:
        draft = CustomerDraft(firstName=first_name.strip(), lastName=last_name.strip(), email=email.strip(),
                              phoneNumber=phone.strip() or None)
    except InvalidInput as error:
        raise ValueError(str(error)) from error
    try:
        return found(await client.customers.create(draft))
    except ApiError as error:
        reason = "; ".join(error.messages) or error.text or str(error)
        raise ValueError(_("the service refused the new customer: {reason}").format(reason=reason)) from error
