"""F4, the attached customer's card on file, Qt-free: which stored cards can pay, what the
service adds to the one picked, and the part of the balance the cashier typed.

The cards are read fresh from the customer's vault at each F4 (a card added or removed
meanwhile counts), the default first. The surcharge is quoted by the card's BIN (the first
six digits of the stored masked number) for the base amount, as the service will add it.
A card whose BIN is not stored, or a merchant whose rate route wants a single-use token
(type S: a stored card has none), gets no quote: the notice then says that at most the
merchant's credit card surcharge (the acknowledgment's rate) is added, never a guessed
figure. The charge itself is ``Till.pay_on_file``. Bad input and unreadable cards are
``ValueError`` with a sentence a cashier can act on; nothing is sent then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from pos_app.api.client import PaymentsClient
from pos_app.api.customer_models import Customer, PaymentMethod
from pos_app.api.errors import ApiError, PaymentsError
from pos_app.cart import OrderCustomer
from pos_app.i18n import N_, _
from pos_app.money import AmountError, MoneyFormat

BIN = re.compile(r"^([0-9]{6})[0-9]*[*.]")
"""The first six digits of a stored card's masked number (``424242******4242``)."""
CARD_TYPES = {"credit": N_("credit"), "debit": N_("debit")}
"""The service's card types in words (``_(CARD_TYPES[type])`` where shown)."""


@dataclass(frozen=True)
class StoredCard:
    """A card in the customer's vault that F4 can charge."""

    customer_id: str
    method_id: str
    """Its ``customerVaultId``: what the charge names (``overrideDefaultPaymentMethod``)."""
    brand: str
    last4: str
    card_type: str | None
    """credit or debit (as the service says: a debit card carries no surcharge)."""
    bin: str | None
    default: bool
    exp: str | None = None
    """MMYY, as stored."""

    @property
    def label(self) -> str:
        """"Visa •••• 4242"."""
        return f"{self.brand} •••• {self.last4}" if self.last4 else self.brand

    @property
    def said(self) -> str:
        """The picker's line: "Visa credit •••• 4242 · expires 12/30 · default"."""
        card_type = _(CARD_TYPES[self.card_type]) if self.card_type in CARD_TYPES else self.card_type
        kind = f"{self.brand} {card_type}" if card_type else self.brand
        parts = [f"{kind} •••• {self.last4}" if self.last4 else kind]
        if self.exp and len(self.exp) == 4:
            parts.append(_("expires {date}").format(date=f"{self.exp[:2]}/{self.exp[2:]}"))
        if self.default:
            parts.append(_("default"))
        return " · ".join(parts)


def stored_card(customer_id: str, method: PaymentMethod, *, default: bool) -> StoredCard:
    found = BIN.match(method.number or "")
    return StoredCard(customer_id, method.customer_vault_id, method.brand or method.network or _("Card"),
                      method.last4 or "", method.type, found.group(1) if found else None, default, method.exp)


def cards_of(vault: Customer) -> list[StoredCard]:
    """The vault's cards (ACH accounts left out), the default first, then as stored."""
    default = vault.default_method
    default_id = default.customer_vault_id if default is not None else None
    cards = [stored_card(vault.id, m, default=m.customer_vault_id == default_id)
             for m in vault.payment_methods if m.is_card]
    return sorted(cards, key=lambda card: not card.default)


async def stored_cards(client: PaymentsClient, customer: OrderCustomer | None) -> list[StoredCard]:
    """The attached customer's cards, read from the service now; ``ValueError`` with a
    sentence when there is no customer, no card, or the vault cannot be read."""
    if customer is None:
        raise ValueError(_("Attach a customer first (F6), then F4 charges their card on file."))
    try:
        vault = await client.customers.get(customer.id)
    except PaymentsError as error:
        raise ValueError(_("The cards of {customer} could not be read ({error}): nothing was charged. "
                           "Try F4 again.").format(customer=customer.name, error=error)) from error
    if vault.deleted_at:
        raise ValueError(_("{customer} was deleted from the customers: attach another customer (F6).").format(
            customer=customer.name))
    cards = cards_of(vault)
    if not cards:
        raise ValueError(_("{customer} has no card on file. Ctrl+U sends them a link to add one; or take "
                           "another payment (F12 card, F8 cash).").format(customer=customer.name))
    return cards


@dataclass(frozen=True)
class OnFileQuote:
    """What the service adds to ``amount`` base cents on ``card``: ``surcharge`` cents at
    ``rate`` percent, or None when it could not be quoted (``why_not``)."""

    card: StoredCard
    amount: int
    surcharge: int | None
    rate: Decimal | None = None
    why_not: str = ""

    def sentence(self, money: MoneyFormat) -> str:
        """The line above the surcharge notice."""
        card = _("{card} (card on file)").format(card=self.card.label)
        if self.surcharge is None:  # why (``why_not``) is for the log: the customer reads this
            return _("{card}: the surcharge for this card cannot be quoted before the charge. At most the credit "
                     "card surcharge below (none on a debit card) is added to {amount}.").format(
                card=card, amount=money(self.amount))
        if self.surcharge == 0:
            return _("{card}: no surcharge on this card. {amount} is charged.").format(
                card=card, amount=money(self.amount))
        if self.rate is not None:
            return _("{card}: surcharge ({rate}) {surcharge}. {total} is charged in all.").format(
                card=card, rate=money.percent(self.rate), surcharge=money(self.surcharge),
                total=money(self.amount + self.surcharge))
        return _("{card}: surcharge {surcharge}. {total} is charged in all.").format(
            card=card, surcharge=money(self.surcharge), total=money(self.amount + self.surcharge))


async def quote(client: PaymentsClient, card: StoredCard, amount: int) -> OnFileQuote:
    """The service's surcharge quote for ``amount`` base cents on ``card`` (see the module
    docstring for when there is none)."""
    if card.bin is None:
        return OnFileQuote(card, amount, None,
                           why_not="the service does not show this card's first digits")  # not for people: logged
    try:
        answer = await client.surcharge_rate(amount, bin_card=card.bin)
    except ApiError as error:
        said = "; ".join(error.messages) or error.text or str(error)
        return OnFileQuote(card, amount, None, why_not=f"the service answered: {said}")  # not for people: logged
    except PaymentsError as error:
        return OnFileQuote(card, amount, None, why_not=str(error))
    return OnFileQuote(card, amount, answer.surcharge, answer.rate)


def read_part(money: MoneyFormat, text: str, due: int) -> int | None:
    """The part of the balance typed before F4 (``text``, in the store's format), in cents;
    None when nothing was typed (the whole balance). ``ValueError`` with a sentence for text
    that is no amount, 0, or more than ``due``."""
    try:
        cents = money.parse(text)
    except AmountError as error:
        raise ValueError(_("{error}. Type the part to charge, like {example}, then F4; or F4 alone for the "
                           "whole balance.").format(error=error, example=money.example)) from error
    if cents is None:
        return None
    if cents <= 0 or cents > due:
        raise ValueError(_("The card on file pays between {least} and the balance, {due}: "
                           "{typed} was typed.").format(least=money(1), due=money(due), typed=money(cents)))
    return cents
