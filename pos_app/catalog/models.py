"""The catalog's values: items, tax rates and the result of a sync. Money is integer cents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal


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
            raise ValueError(f"item {self.id!r}: price_cents must be an int of cents, got {self.price_cents!r}")
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"item id must be a non-empty string, got {self.id!r}")

    @property
    def is_discount(self) -> bool:
        return self.price_cents < 0


@dataclass(frozen=True, slots=True)
class TaxRate:
    """A merchant tax: ``rate`` is a percentage as an exact ``Decimal`` (8.25 means 8.25 %)."""

    id: str
    name: str
    rate: Decimal

    def __post_init__(self) -> None:
        if not isinstance(self.rate, Decimal) or not self.rate.is_finite() or self.rate < 0:
            raise ValueError(f"tax {self.id!r}: rate must be a finite, non-negative Decimal, got {self.rate!r}")


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync stored.

    ``count`` items are in the catalog now; ``seconds`` is the wall time of the whole sync;
    ``synced_at`` (UTC) is when it committed. ``pages`` list pages read, ``skipped_deleted``
    items dropped for their ``deletedAt``, ``refetched`` items read one by one because the
    list shifted while it was paged, ``verified`` False when the id list could not be read
    to check completeness (see ``sync_catalog``).
    """

    count: int
    seconds: float
    synced_at: datetime
    pages: int = 0
    skipped_deleted: int = 0
    refetched: int = 0
    verified: bool = True
