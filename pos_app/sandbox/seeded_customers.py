"""The customers every sandbox merchant starts with, so that training mode and a first
run have someone to attach (F6) and a card on file to charge (F4).

Made at every start and every ``POST /_sandbox/reset``, after the catalogs, with the
sandbox's own ids: the same seed gives the same customers and ids again. Their cards are
sandbox test cards (``merchants.CARDS``), so a charge's surcharge follows the card's BIN
as a terminal sale's does. The phone is written as the reference's pattern accepts it (a
dash right after the area code without parentheses is refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pos_app.sandbox.merchants import CARDS, Card
from pos_app.sandbox.vaults import Method, Vault, Vaults

CARD_EXP = "1230"
"""Every seeded card expires in December 2030."""


@dataclass(frozen=True)
class SeededCustomer:
    first_name: str
    last_name: str
    email: str
    phone: str | None
    cards: tuple[Card, ...]
    """Their stored cards, the default first (none: a customer without a card on file)."""


def _card(last4: str, card_type: str) -> Card:
    return next(card for card in CARDS if card.last4 == last4 and card.type == card_type)


SEEDED_CUSTOMERS: tuple[SeededCustomer, ...] = (
    SeededCustomer("Jane", "Roe", "jane@example.com", "(555) 123-4567", (_card("4242", "credit"),)),
    SeededCustomer("Sam", "Rivera", "sam.rivera@example.com", "(555) 234-5678",
                   (_card("0005", "credit"), _card("5556", "debit"))),
    SeededCustomer("Pat", "Quinn", "pat.quinn@example.com", None, ()),
)
"""Jane Roe (one Visa credit •••• 4242), Sam Rivera (American Express credit •••• 0005
by default, Visa debit •••• 5556), Pat Quinn (no card)."""


def seed_customers(vaults: Vaults, new_id: Callable[[], str], now: float) -> None:
    """Store ``SEEDED_CUSTOMERS`` in a merchant's ``vaults``, with ids from ``new_id``,
    created at ``now`` (the service's clock, epoch seconds)."""
    for seeded in SEEDED_CUSTOMERS:
        fields = {"firstName": seeded.first_name, "lastName": seeded.last_name, "email": seeded.email}
        if seeded.phone is not None:
            fields["phoneNumber"] = seeded.phone
        vault = Vault(id=new_id(), fields=fields, created_at=now, updated_at=now)
        for card in seeded.cards:  # the first becomes the default
            vault.add(Method(id=new_id(), type=card.type, last4=card.last4, network=card.network,
                             brand=card.brand, number=card.masked, exp=CARD_EXP,
                             name=f"{seeded.first_name} {seeded.last_name}".upper()))
        vaults.by_id[vault.id] = vault
