"""The cart's values: lines and totals. Money is integer cents; tax rates are ``Decimal``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Protocol

from pos_app.cart.open_price import OPEN_PRICE_ITEM
from pos_app.catalog.models import TaxRate, check_price
from pos_app.i18n import _

MAX_QUANTITY = 9999
"""The most units one line may hold; more is refused as a slip of the finger."""


class Sellable(Protocol):
    """What ``Cart.add`` takes: a ``pos_app.catalog.CatalogItem``, or anything shaped like one."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def sku(self) -> str | None: ...

    @property
    def price_cents(self) -> int: ...

    @property
    def tax_ids(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class OrderCustomer:
    """The customer a cashier attached to the order (F6): the service's vault id, the name
    the sale screen, the customer display and the receipt show, and the contacts the vault
    had (a receipt or a link can go there)."""

    id: str
    name: str
    email: str | None = None
    phone: str | None = None

    def __post_init__(self) -> None:
        for required, what in ((self.id, "a customer's id"), (self.name, "a customer's name")):  # not for people
            if not isinstance(required, str) or not required.strip():
                raise ValueError(f"{what} must be a non-empty string, got {required!r}")  # not for people
        for contact, kind in ((self.email, "email"), (self.phone, "phone")):
            if contact is not None and not isinstance(contact, str):
                raise ValueError(f"a customer's {kind} must be a string, got {contact!r}")  # not for people


def check_quantity(quantity: object, *, allow_zero: bool = False) -> int:
    """``quantity`` as a whole number of units in range, or ``ValueError`` saying why not."""
    low = 0 if allow_zero else 1
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise ValueError(f"quantity must be a whole number, got {quantity!r}")  # not for people
    if not low <= quantity <= MAX_QUANTITY:
        if allow_zero:
            raise ValueError(_("quantity must be from 0 (to remove the line) to {most}, got {quantity}").format(
                most=MAX_QUANTITY, quantity=quantity))
        raise ValueError(_("quantity must be from 1 to {most}, got {quantity}").format(
            most=MAX_QUANTITY, quantity=quantity))
    return quantity


@dataclass(frozen=True, slots=True)
class CartLine:
    """One line of the sale. ``unit_cents`` is negative for a discount line (no taxes)."""

    line_id: int
    item_id: str
    name: str
    sku: str | None
    unit_cents: int
    quantity: int
    tax_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.line_id, bool) or not isinstance(self.line_id, int) or self.line_id < 1:
            raise ValueError(f"line_id must be a whole number from 1, got {self.line_id!r}")  # not for people
        check_price(self.unit_cents, self.name)  # within MAX_PRICE_CENTS: no total can overflow
        check_quantity(self.quantity)
        if self.unit_cents < 0 and self.tax_ids:
            raise ValueError(f"line {self.line_id} ({self.name}): a discount line carries no taxes")  # not for people

    @property
    def base_cents(self) -> int:
        """``unit_cents × quantity``: the line's amount before tax."""
        return self.unit_cents * self.quantity

    @property
    def is_discount(self) -> bool:
        return self.unit_cents < 0

    @property
    def is_open_price(self) -> bool:
        """Rung up with the misc key, at a price the cashier typed (``Cart.add_open_price``)."""
        return self.item_id == OPEN_PRICE_ITEM


def _frozen[K, V](mapping: dict[K, V]) -> Mapping[K, V]:
    return MappingProxyType(mapping)


class TaxFlag(Enum):
    """Why a tax of a line is flagged: the merchant's rates do not list it (deleted, or a
    sync that answered without it, or with a rate pos-app cannot use)."""

    RATE_KEPT = "rate kept"  # not for people
    """Charged at the rate the cart remembers: the last known, the one the customer was quoted."""
    NO_RATE = "no rate"  # not for people
    """No rate is known for it: it is not charged, and the cart cannot be paid."""


@dataclass(frozen=True, slots=True)
class FlaggedTax:
    """A tax a line names that the merchant's rates do not list; ``rate`` is the one charged
    (``RATE_KEPT``), None for ``NO_RATE``."""

    tax_id: str
    flag: TaxFlag
    rate: TaxRate | None = None

    @property
    def label(self) -> str:
        """A few words for the cart's line: ``"City tax 2.00 % kept: no longer listed"``."""
        if self.rate is None:
            return _("tax {tax} has no rate: cannot be paid").format(tax=self.tax_id)
        return _("{tax} {rate} % kept: no longer listed").format(tax=self.rate.name, rate=self.rate.rate)

    @property
    def sentence(self) -> str:
        """What the cashier (or the manager) should know about it."""
        if self.rate is None:
            return _("The merchant does not list tax {tax} and no rate is known for it: "
                     "remove this line to take payment.").format(tax=self.tax_id)
        return _("The merchant no longer lists {tax}; this line is charged the {rate} % "
                 "it was rung up with, as the customer was told.").format(tax=self.rate.name, rate=self.rate.rate)


@dataclass(frozen=True, slots=True)
class Totals:
    """What the cart comes to, in cents.

    ``tax`` is the sum of ``per_line`` (line id → that line's tax), each computed on the
    line's base with the SUM of its taxes' rates and rounded half-up once: this is the
    contract's rule and what ``total`` (= ``subtotal + tax``) uses.

    ``breakdown`` (tax name → cents, in the merchant's order) is for the receipt: each
    line's tax shared among its taxes by rate (``taxes.split_line_tax``), then summed per
    tax; it adds up to ``tax`` exactly (20 cents at 6.25 % + 2 % + 0.75 %: a line tax of 2
    cents, exact shares 1.25, 0.40 and 0.15 made 1 + 1 + 0). The total never uses the breakdown.

    ``flagged`` (line id → its ``FlaggedTax``es) names the lines with a tax the merchant's
    rates do not list: charged at the rate the cart remembers, or not at all when none is
    known (the cart is then not ``payable``).
    """

    subtotal: int
    tax: int
    per_line: Mapping[int, int] = field(default_factory=lambda: _frozen({}))
    breakdown: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    flagged: Mapping[int, tuple[FlaggedTax, ...]] = field(default_factory=lambda: _frozen({}))

    @property
    def total(self) -> int:
        return self.subtotal + self.tax

    @property
    def unrated_lines(self) -> tuple[int, ...]:
        """Lines with a tax no rate is known for: the cart cannot be paid while they are in it."""
        return tuple(line_id for line_id, taxes in self.flagged.items()
                     if any(tax.flag is TaxFlag.NO_RATE for tax in taxes))

    @property
    def payable(self) -> bool:
        """True when the total is above 0 (a card payment of 0 or less cannot be taken) and
        every tax of every line has a rate."""
        return self.total > 0 and not self.unrated_lines
