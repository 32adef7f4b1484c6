"""The catalog's values: items, tax rates and the result of a sync. Money is integer cents.

The bounds a value from the service must keep to be used (``MAX_PRICE_CENTS``, a tax rate
from 0 to ``MAX_RATE`` % with at most ``RATE_PLACES`` decimals) are stated here, once: the
sync leaves out what breaks them, and the cart refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from pos_app.i18n import _, ngettext

MAX_PRICE_CENTS = 1_000_000_000
"""The largest price, either way (a discount is negative), an item may have: $10,000,000.00,
the bound of the service's own item routes. Beyond it a price is a data error."""

MAX_RATE = Decimal(100)
"""The highest tax rate, in percent."""

RATE_PLACES = 4
"""The most decimals a tax rate may have (8.875 % has 3)."""

_RATE_STEP = Decimal(1).scaleb(-RATE_PLACES)


def check_price(cents: object, item: str) -> int:
    """``cents`` as a price in range, or ``ValueError`` naming ``item`` (its name) and the bound."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise ValueError(f"item {item!r}: price_cents must be an int of cents, got {cents!r}")  # not for people
    if abs(cents) > MAX_PRICE_CENTS:
        raise ValueError(_("item {item}: a price of {cents} cents is beyond the {most} cents "
                           "any item may cost").format(item=repr(item), cents=cents, most=MAX_PRICE_CENTS))
    return cents


@dataclass(frozen=True, slots=True)
class CatalogItem:
    """One sellable item as the cashier sees it.

    ``price_cents`` is negative for discount lines (category "Deals" in the sandbox), which
    carry no taxes. ``category`` is the item's first category, or None. ``tax_ids`` name
    entries of ``Catalog.taxes()``.
    """

    id: str
    name: str
    sku: str | None
    price_cents: int
    category: str | None
    tax_ids: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.price_cents, bool) or not isinstance(self.price_cents, int):
            raise ValueError(  # the sync logs why it left an item out
                f"item {self.id!r}: price_cents must be an int of cents, got {self.price_cents!r}")  # not for people
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"item id must be a non-empty string, got {self.id!r}")  # not for people

    @property
    def is_discount(self) -> bool:
        return self.price_cents < 0


@dataclass(frozen=True, slots=True)
class TaxRate:
    """A merchant tax: ``rate`` is a percentage as an exact ``Decimal`` (8.25 means 8.25 %),
    from 0 to ``MAX_RATE`` with at most ``RATE_PLACES`` decimals (else ``ValueError``)."""

    id: str
    name: str
    rate: Decimal

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"a tax id must be a non-empty string, got {self.id!r}")  # not for people
        # the service's data: the sync logs why it left a tax out
        rate = self.rate
        if not isinstance(rate, Decimal) or not rate.is_finite():
            raise ValueError(f"tax {self.name!r}: rate must be a number, got {rate!r}")  # not for people
        if not 0 <= rate <= MAX_RATE:
            raise ValueError(f"tax {self.name!r}: a rate of {rate} % is not from 0 to {MAX_RATE} %")  # not for people
        if rate.quantize(_RATE_STEP) != rate:
            raise ValueError(
                f"tax {self.name!r}: a rate of {rate} % has more than {RATE_PLACES} decimals")  # not for people


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync stored.

    ``count`` items are in the catalog now; ``seconds`` is the wall time of the whole sync;
    ``synced_at`` (UTC) is when it committed. ``pages`` list pages read, ``skipped_deleted``
    items dropped for their ``deletedAt``, ``refetched`` items read one by one because the
    list shifted while it was paged, ``verified`` False when the id list could not be read
    to check completeness (see ``sync_catalog``). ``skipped_items`` and ``skipped_taxes``
    are the entries left out because a value could not be used (a price or a rate out of
    bounds, no number at all): the rest was stored.
    """

    count: int
    seconds: float
    synced_at: datetime
    pages: int = 0
    skipped_deleted: int = 0
    refetched: int = 0
    verified: bool = True
    skipped_items: tuple[Skipped, ...] = ()
    skipped_taxes: tuple[Skipped, ...] = ()

    @property
    def left_out(self) -> str | None:
        """A sentence for the manager when entries were left out (the log names them); else None."""
        items, taxes = len(self.skipped_items), len(self.skipped_taxes)
        counted = [
            *([ngettext("{count} item", "{count} items", items).format(count=items)] if items else []),
            *([ngettext("{count} tax", "{count} taxes", taxes).format(count=taxes)] if taxes else []),
        ]
        if not counted:
            return None
        what = counted[0] if len(counted) == 1 else _("{items} and {taxes}").format(items=counted[0], taxes=counted[1])
        return _("The catalog was refreshed, but {what} with values pos-app cannot use "
                 "were left out (the log names them): have them fixed in the merchant's catalog.").format(what=what)


@dataclass(frozen=True, slots=True)
class Skipped:
    """An entry of the service's answer a sync left out: its ``id`` (None when it had none) and why."""

    id: str | None
    reason: str

    def __str__(self) -> str:
        return f"{self.id or '(no id)'}: {self.reason}"
