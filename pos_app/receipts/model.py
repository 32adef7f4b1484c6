"""What a receipt says: ``ReceiptData``, checked when it is made so a receipt never prints
numbers that do not add up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from pos_app.i18n import N_, _
from pos_app.money import format_money, money_format


class Copy(StrEnum):
    CUSTOMER = "customer"
    MERCHANT = "merchant"


def _cents(value: object, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} is an integer number of cents, not {type(value).__name__}")  # not for people
    return value


@dataclass(frozen=True)
class ReceiptLine:
    """One cart line: ``qty`` of ``name`` at ``unit_cents`` each, ``line_cents`` in all (negative
    for a discount line). ``qty`` is an int, or a ``Decimal`` for weighed goods."""

    name: str
    qty: int | Decimal
    unit_cents: int
    line_cents: int

    def __post_init__(self) -> None:
        _cents(self.unit_cents, "unit_cents")
        _cents(self.line_cents, "line_cents")
        if isinstance(self.qty, bool) or not isinstance(self.qty, int | Decimal):
            raise TypeError(f"qty is an int or a Decimal, not {type(self.qty).__name__}")  # not for people


@dataclass(frozen=True)
class TaxLine:
    name: str
    cents: int

    def __post_init__(self) -> None:
        _cents(self.cents, f"tax {self.name!r}")  # not for people


class TenderKind(StrEnum):
    CARD = "card"
    CASH = "cash"
    LINK = "link"
    """A payment link its customer paid on the service's page (a phone order)."""


@dataclass(frozen=True)
class ReceiptTender:
    """One way the customer paid: a card charge (its brand, last 4 digits, the gateway's
    transaction id ``auth_ref`` and the service's ``payment_id``: what a customer or the
    service's support can look up) or cash (``cents`` handed over, change included)."""

    kind: TenderKind
    cents: int
    card_brand: str = ""
    card_last4: str = ""
    auth_ref: str = ""
    payment_id: str = ""
    on_file: bool = False
    """A charge of the customer's card on file (F4), not of a card on the terminal."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TenderKind(self.kind))
        _cents(self.cents, "a tender's cents")  # not for people
        if self.card_last4 and not (len(self.card_last4) == 4 and self.card_last4.isascii()
                                    and self.card_last4.isdigit()):
            raise ValueError("card_last4 is the card's last 4 digits (or empty)")  # not for people

    @property
    def label(self) -> str:
        """"Cash", "Card Visa **** 4242", "Visa **** 4242 (card on file)" (the receipt font
        may lack a bullet)."""
        if self.kind is TenderKind.CASH:
            return _("Cash")
        if self.kind is TenderKind.LINK:
            return _("Payment link")
        card = " ".join(part for part in (self.card_brand, f"**** {self.card_last4}" if self.card_last4 else "")
                        if part)
        if self.on_file:
            return _("{card} (card on file)").format(card=card or _("Card"))
        return _("Card {card}").format(card=card).rstrip()


@dataclass(frozen=True)
class ReceiptData:
    """Everything an itemized receipt shows.

    Checked on creation (``ValueError``): ``subtotal_cents`` is the sum of the lines;
    ``total_cents`` is subtotal + taxes + surcharge; the tenders less the change (and less
    what was charged beyond the total, ``owed_cents``, which the customer gets back) come to
    the total; ``when`` is an aware datetime (shown in its own time zone: give it the
    store's). The journal's attempt ids are the station's own, never printed.
    """

    store_name: str
    store_id: str
    station: str
    cashier: str
    lines: Sequence[ReceiptLine]
    subtotal_cents: int
    taxes: Sequence[TaxLine]
    surcharge_cents: int
    total_cents: int
    tenders: Sequence[ReceiptTender]
    when: datetime
    currency: str = "USD"
    training: bool = False
    copy: Copy = Copy.CUSTOMER
    transaction_type: str = "SALE"
    locale: str | None = None
    footer: Sequence[str] = field(default=(N_("Thank you!"),))
    """Lines under the receipt, each shown through ``_()`` (the default thanks in the store's language)."""
    change_cents: int = 0
    owed_cents: int = 0
    customer: str = ""
    """The customer's name when one was attached to the order (F6); "" for none."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(self.lines))
        object.__setattr__(self, "taxes", tuple(self.taxes))
        object.__setattr__(self, "tenders", tuple(self.tenders))
        object.__setattr__(self, "footer", tuple(self.footer))
        object.__setattr__(self, "copy", Copy(self.copy))
        for label in ("subtotal_cents", "surcharge_cents", "total_cents", "change_cents", "owed_cents"):
            _cents(getattr(self, label), label)
        money_format(self.currency, self.locale)  # a currency and a locale Babel knows
        if self.when.tzinfo is None or self.when.utcoffset() is None:
            raise ValueError("a receipt's time must be an aware datetime (with its time zone)")  # not for people
        lines_sum = sum(line.line_cents for line in self.lines)
        if lines_sum != self.subtotal_cents:
            raise ValueError(_("the lines add up to {lines} cents, not the subtotal {subtotal}").format(
                lines=lines_sum, subtotal=self.subtotal_cents))
        expected = self.subtotal_cents + sum(tax.cents for tax in self.taxes) + self.surcharge_cents
        if expected != self.total_cents:
            raise ValueError(_("subtotal + taxes + surcharge is {expected} cents, not the total {total}").format(
                expected=expected, total=self.total_cents))
        if not self.tenders:
            raise ValueError(_("a receipt names how it was paid (at least one tender)"))
        paid = sum(tender.cents for tender in self.tenders) - self.change_cents - self.owed_cents
        if paid != self.total_cents:
            raise ValueError(_("the tenders less the change come to {paid} cents, not the total {total}").format(
                paid=paid, total=self.total_cents))

    def money(self, cents: int) -> str:
        return format_money(cents, self.currency, self.locale)


@dataclass(frozen=True)
class ReportSection:
    heading: str
    rows: Sequence[tuple[str, str]]
    """(label, value) pairs; the value is right-aligned."""


@dataclass(frozen=True)
class ReportData:
    """A plain report page set (end of shift, day report): a title, who and when, sections of
    label/value rows. Amounts are formatted by the caller (``pos_app.money``)."""

    title: str
    store_name: str
    store_id: str
    station: str
    generated_at: datetime
    sections: Sequence[ReportSection]
    training: bool = False
    notes: Sequence[str] = ()
