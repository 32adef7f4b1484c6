"""Catalog items and categories of one merchant (reference 4.7; the item routes are in
``pos_app.sandbox.catalog_routes``).

Prices are integer cents inside. The wire speaks dollars (exact ``Decimal``) at list,
create, update and get, and cents at delete and duplicate, as the money table says.
The service's quirks are kept on purpose: PATCH answers the item as it was before the
update, deletes are soft (a deleted item is still readable by id), and the bulk routes
are not atomic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from pos_app.api.money import cents_to_dollars, dollars_to_cents
from pos_app.sandbox.catalog_data import category_names, seed_items
from pos_app.sandbox.merchants import Merchant
from pos_app.sandbox.protocol import invalid, iso_time, not_found
from pos_app.sandbox.validation import Fields

OBJECT_ID = re.compile(r"^[0-9a-f]{24}$")
SEED_EPOCH = 1704067200.0  # 2024-01-01T00:00:00Z: generated items are dated from here
MAX_DOLLARS = Decimal(10_000_000)


@dataclass
class Category:
    id: str
    name: str
    created_at: float
    updated_at: float


@dataclass
class Item:
    id: str
    name: str
    type: str
    description: str
    cents: int
    sku: str
    categories: list[Category]
    taxes: list[str]
    created_by: str
    created_at: float
    updated_at: float
    deleted_at: float | None = None
    wire_fields: dict = field(default_factory=dict)
    """Fields its answers carry as given, over its own: values the item routes refuse but the
    real service may send (``POST /_sandbox/item-fields``: a price of 1E+17 dollars, "NaN")."""

    def as_json(self, client_id: str, *, dollars: bool) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "description": self.description,
            "salesPrice": cents_to_dollars(self.cents) if dollars else self.cents,
            "sku": self.sku,
            "categories": [{"id": c.id, "name": c.name} for c in self.categories],
            "taxes": list(self.taxes),
            "clientId": client_id,
            "createdBy": self.created_by,
            "createdAt": iso_time(self.created_at),
            "updatedAt": iso_time(self.updated_at),
            "deletedAt": None if self.deleted_at is None else iso_time(self.deleted_at),
            **self.wire_fields,
        }


@dataclass
class _Changes:
    """A validated create or update body; ``None`` means the field was not sent."""

    categories: list[dict]
    taxes: list[str]
    name: str | None = None
    type: str | None = None
    description: str | None = None
    cents: int | None = None
    sku: str | None = None


class Catalog:
    """One merchant's items and categories; ``clock`` (the service's) stamps every change."""

    def __init__(
        self, merchant: Merchant, seed: int, new_id: Callable[[], str], clock: Callable[[], float]
    ) -> None:
        self.merchant = merchant
        self._new_id = new_id
        self._clock = clock
        self.categories: dict[str, Category] = {}
        for index, name in enumerate(category_names(merchant.code)):
            self._add_category(name, SEED_EPOCH + index)
        by_name = {c.name: c for c in self.categories.values()}
        self.items: dict[str, Item] = {}
        for index, seeded in enumerate(seed_items(merchant.code, merchant.name, seed)):
            at = SEED_EPOCH + 3600 * (index + 1)
            item = Item(
                id=new_id(),
                name=seeded.name,
                type=seeded.type,
                description=seeded.description,
                cents=seeded.cents,
                sku=seeded.sku,
                categories=[by_name[seeded.category]],
                taxes=[merchant.taxes[i].id for i in seeded.taxes],
                created_by="sandbox",
                created_at=at,
                updated_at=at,
            )
            self.items[item.id] = item

    def _add_category(self, name: str, at: float) -> Category:
        category = Category(self._new_id(), name, at, at)
        self.categories[category.id] = category
        return category

    def json(self, item: Item, *, dollars: bool) -> dict:
        return item.as_json(self.merchant.client_id, dollars=dollars)

    def live(self) -> list[Item]:
        return [item for item in self.items.values() if item.deleted_at is None]

    def find(self, item_id: str, *, deleted_ok: bool = False) -> Item:
        if not OBJECT_ID.fullmatch(item_id):
            raise invalid(["id must be a mongodb id"])
        item = self.items.get(item_id)
        if item is None or (item.deleted_at is not None and not deleted_ok):
            raise not_found(f"item {item_id} not found")
        return item

    def read_changes(self, body: dict, *, current: Item | None = None) -> _Changes:
        """Check a create body, or an update body of ``current`` (partial: only ``categories``
        and ``taxes`` are required); 400 code 900 with one message per bad field."""
        f = Fields(body)

        def required(name: str) -> bool:
            return current is None or name in body

        name = f.text("name", required=required("name"))
        kind = f.text("type", required=required("type"))
        description = f.text("description", required=False)
        sku = f.text("sku", required=False)
        price = f.dollars("salesPrice", required=required("salesPrice"))
        taxes = f.ids("taxes", self.merchant.tax_ids(), what="tax")
        categories = self._read_categories(f)
        if price is not None and price == 0:
            f.fail("salesPrice must not be 0")
        elif price is not None and price.copy_abs() >= MAX_DOLLARS:
            f.fail(f"salesPrice must be less than {MAX_DOLLARS} dollars")
        else:
            resulting = price if price is not None else (cents_to_dollars(current.cents) if current else None)
            if taxes and resulting is not None and resulting < 0:
                f.fail("salesPrice may be negative only when taxes is empty (discount lines)")
        f.check()
        return _Changes(
            categories=categories,
            taxes=taxes,
            name=name,
            type=kind,
            description=description,
            cents=None if price is None else dollars_to_cents(price),
            sku=sku,
        )

    def _read_categories(self, f: Fields) -> list[dict]:
        entries = f.array("categories")
        if entries is None:
            return []
        for index, entry in enumerate(entries):
            where = f"categories.{index}"
            if not isinstance(entry, dict):
                f.fail(f"{where} must be an object {{id, name}}")
            elif entry.get("id") is None:
                if not isinstance(entry.get("name"), str) or not entry["name"].strip():
                    f.fail(f"{where}.name should not be empty when id is null")
            elif entry["id"] not in self.categories:
                f.fail(f"{where}.id is not a category of this merchant")
        return entries

    def _resolve_categories(self, entries: list[dict], at: float) -> list[Category]:
        """Existing categories by id; ``id: null`` entries create new ones."""
        resolved = []
        for entry in entries:
            if entry.get("id") is None:
                resolved.append(self._add_category(entry["name"].strip(), at))
            else:
                resolved.append(self.categories[entry["id"]])
        return resolved

    def create(self, changes: _Changes) -> Item:
        at = self._clock()
        assert changes.name is not None and changes.type is not None and changes.cents is not None
        item = Item(
            id=self._new_id(),
            name=changes.name,
            type=changes.type,
            description=changes.description or "",
            cents=changes.cents,
            sku=changes.sku or "",
            categories=self._resolve_categories(changes.categories, at),
            taxes=changes.taxes,
            created_by="api",
            created_at=at,
            updated_at=at,
        )
        self.items[item.id] = item
        return item

    def update(self, item: Item, changes: _Changes) -> None:
        at = self._clock()
        for attr in ("name", "type", "description", "cents", "sku"):
            value = getattr(changes, attr)
            if value is not None:
                setattr(item, attr, value)
        item.categories = self._resolve_categories(changes.categories, at)
        item.taxes = changes.taxes
        item.updated_at = at

    def duplicate(self, item: Item, created_by: str) -> Item:
        at = self._clock()
        copy = replace(
            item,
            id=self._new_id(),
            name=f"{item.name} (copy)",
            categories=list(item.categories),
            taxes=list(item.taxes),
            wire_fields=dict(item.wire_fields),
            created_by=created_by,
            created_at=at,
            updated_at=at,
        )
        self.items[copy.id] = copy
        return copy

    def delete(self, item: Item) -> None:
        item.deleted_at = item.updated_at = self._clock()
