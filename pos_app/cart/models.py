"""The cart's values: lines and totals. Money is integer cents; tax rates are ``Decimal``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

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


def check_quantity(quantity: object, *, allow_zero: bool = False) -> int:
    """``quantity`` as a whole number of units in range, or ``ValueError`` saying why not."""
    low = 0 if allow_zero else 1
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise ValueError(f"quantity must be a whole number, got {quantity!r}")
    if not low <= quantity <= MAX_QUANTITY:
        what = "0 (to remove the line)" if allow_zero else "1"
        raise ValueError(f"quantity must be from {what} to {MAX_QUANTITY}, got {quantity}")
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
            raise ValueError(f"line_id must be a whole number from 1, got {self.line_id!r}")
        if isinstance(self.unit_cents, bool) or not isinstance(self.unit_cents, int):
            raise ValueError(f"unit_cents must be an int of cents, got {self.unit_cents!r}")
        check_quantity(self.quantity)
        if self.unit_cents < 0 and self.tax_ids:
            raise ValueError(f"line {self.line_id} ({self.name}): a discount line carries no taxes")

    @property
    def base_cents(self) -> int:
        """``unit_cents × quantity``: the line's amount before tax."""
        return self.unit_cents * self.quantity

    @property
    def is_discount(self) -> bool:
        return self.unit_cents < 0


def _frozen[K, V](mapping: dict[K, V]) -> Mapping[K, V]:
    return MappingProxyType(mapping)


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
    """

    subtotal: int
    tax: int
    per_line: Mapping[int, int] = field(default_factory=lambda: _frozen({}))
    breakdown: Mapping[str, int] = field(default_factory=lambda: _frozen({}))

    @property
    def total(self) -> int:
        return self.subtotal + self.tax

    @property
    def payable(self) -> bool:
        """True when the total is above 0: a card payment of 0 or less cannot be taken."""
        return self.total > 0
