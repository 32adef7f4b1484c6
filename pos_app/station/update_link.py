"""Ctrl+U, the update link (issue 19), Qt-free: the customer attached to the sale gets a
secure link from the service to add a card to their vault or update the one on file,
sent to the email or the phone their vault holds, whichever the cashier picks (only that
one is sent: the service uses no other).

Always the *update request* (reference 4.4, "existing customer"), never the *invitation*:
an attached customer has a vault, and an invitation is for someone who has none (it would
make them a second one). The service's answer means the link is queued, not delivered;
the sentence says so. Bad input and refusals are ``ValueError`` with a sentence a cashier
can act on; nothing is sent then.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from pos_app.api.errors import ApiError, InvalidInput
from pos_app.api.vault_models import LinkContact, LinkExpiry, TimeUnit
from pos_app.cart import OrderCustomer
from pos_app.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from pos_app.api.client import PaymentsClient

log = logging.getLogger(__name__)

LINK_EXPIRY = LinkExpiry(expirationTime=24, unitOfTime=TimeUnit.HOURS)
"""How long the link stays valid (the command line's default too)."""
NO_CUSTOMER = N_("Attach a customer first (F6): the link goes to the customer of the sale.")
"""Said when Ctrl+U finds no customer attached (``_(NO_CUSTOMER)`` where shown)."""


class ContactKind(StrEnum):
    EMAIL = "email"
    PHONE = "phone"


@dataclass(frozen=True)
class Contact:
    """One way to reach the customer, as their vault holds it."""

    kind: ContactKind
    address: str

    @property
    def words(self) -> str:
        if self.kind is ContactKind.EMAIL:
            return _("Email  {address}").format(address=self.address)
        return _("Text message  {address}").format(address=self.address)


@dataclass(frozen=True)
class LinkTarget:
    """Who gets the link and where it may go (the vault's email first, then its phone)."""

    customer: OrderCustomer
    contacts: tuple[Contact, ...]
    has_card: bool
    """Whether the vault has a default payment method (the link then updates it)."""


async def link_target(client: PaymentsClient, customer: OrderCustomer) -> LinkTarget:
    """The attached customer's vault, read now: its email and phone, and whether it holds a
    payment method. ``ValueError`` when it cannot be read or has neither contact."""
    try:
        vault = await client.customers.get(customer.id)
    except ApiError as error:
        reason = "; ".join(error.messages) or error.text or str(error)
        raise ValueError(_("{customer}'s details could not be read: {reason}").format(
            customer=customer.name, reason=reason)) from error
    if vault.deleted_at:
        raise ValueError(_("{customer} was deleted from the customers: nothing was sent").format(
            customer=customer.name))
    contacts = tuple(Contact(kind, address.strip()) for kind, address in
                     ((ContactKind.EMAIL, vault.email), (ContactKind.PHONE, vault.phone_number))
                     if address and address.strip())
    if not contacts:
        raise ValueError(_("{customer} has no email or phone on file, so the link cannot be sent: "
                           "nothing was sent").format(customer=customer.name))
    return LinkTarget(customer, contacts, vault.default_method is not None)


async def send_update_link(client: PaymentsClient, target: LinkTarget, contact: Contact) -> str:
    """Have the service queue the update link to ``contact`` alone; the sentence for the
    status line ("Link queued for jane@example.com: …")."""
    if contact not in target.contacts:
        raise ValueError(_("{address} is not one of {customer}'s contacts: nothing was sent").format(
            address=contact.address, customer=target.customer.name))
    try:
        to = (LinkContact(email=contact.address) if contact.kind is ContactKind.EMAIL
              else LinkContact(phoneNumber=contact.address))
    except (InvalidInput, ValueError) as error:
        if contact.kind is ContactKind.EMAIL:
            said = _("the email on file cannot take a link ({error}): nothing was sent")
        else:
            said = _("the phone on file cannot take a link ({error}): nothing was sent")
        raise ValueError(said.format(error=error)) from error
    try:
        await client.customers.request_update(target.customer.id, to, LINK_EXPIRY)
    except ApiError as error:
        reason = "; ".join(error.messages) or error.text or str(error)
        raise ValueError(_("the service did not queue the link: {reason}").format(reason=reason)) from error
    log.info("update link queued for customer %s by %s", target.customer.id, contact.kind.value)
    hours = LINK_EXPIRY.time
    if target.has_card:
        said = ngettext("Link queued for {address}: {customer} can update the card on file with it for {count} hour "
                        "(the service sends it; delivery is not confirmed).",
                        "Link queued for {address}: {customer} can update the card on file with it for {count} hours "
                        "(the service sends it; delivery is not confirmed).", hours)
    else:
        said = ngettext("Link queued for {address}: {customer} can add a card with it for {count} hour "
                        "(the service sends it; delivery is not confirmed).",
                        "Link queued for {address}: {customer} can add a card with it for {count} hours "
                        "(the service sends it; delivery is not confirmed).", hours)
    return said.format(address=contact.address, customer=target.customer.name, count=hours)
