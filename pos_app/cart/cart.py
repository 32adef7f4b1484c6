"""``Cart``: the sale in progress, as ordered lines of integer cents.

The cart knows nothing of files or threads: give it ``on_change`` (``CartStore.save``) and
it calls it after every change, with the change already made. Use it from one thread (the
UI's); its lines are frozen values, safe to hand to any thread.

The order key (``order_key``, ``"cart-<32 hex>"``) names the sale for the terminal layer's
order guard: it stays the same through every change, through a declined or unknown
payment and through a restart (it is saved), so ringing the same cart again is seen as
the same order (an approved order is never charged twice; an unknown one must be resolved
first). Only ``clear()`` starts a new order: call it after an approved sale, or when the
cashier deliberately abandons the sale.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping

from pos_app.cart.errors import LineNotFound
from pos_app.cart.models import MAX_QUANTITY, CartLine, Sellable, Totals, check_quantity
from pos_app.cart.taxes import compute_totals
from pos_app.catalog.models import TaxRate


def new_order_key() -> str:
    return f"cart-{uuid.uuid4().hex}"


class Cart:
    """Ordered lines, an order key, and the totals they come to."""

    def __init__(
        self,
        *,
        order_key: str | None = None,
        lines: Iterable[CartLine] = (),
        next_line_id: int | None = None,
        on_change: Callable[[Cart], None] | None = None,
    ) -> None:
        """A new empty cart, or (with ``order_key``, ``lines``, ``next_line_id``) a restored one."""
        if order_key is not None and (not isinstance(order_key, str) or not order_key.strip()):
            raise ValueError(f"order_key must be a non-empty string, got {order_key!r}")
        self._order_key = order_key or new_order_key()
        self._lines: list[CartLine] = []
        for line in lines:
            if any(other.line_id == line.line_id for other in self._lines):
                raise ValueError(f"line id {line.line_id} appears twice")
            self._lines.append(line)
        highest = max((line.line_id for line in self._lines), default=0)
        if next_line_id is None:
            next_line_id = highest + 1
        if isinstance(next_line_id, bool) or not isinstance(next_line_id, int) or next_line_id <= highest:
            raise ValueError(f"next_line_id must be above every line id ({highest}), got {next_line_id!r}")
        self._next_line_id = next_line_id
        self.on_change = on_change
        """Called with the cart after every change (``add``, ``set_quantity``, ``remove``,
        ``clear``); an exception it raises reaches the caller, the change being made already."""

    # ------------------------------------------------------------ reading

    @property
    def order_key(self) -> str:
        return self._order_key

    @property
    def lines(self) -> tuple[CartLine, ...]:
        return tuple(self._lines)

    @property
    def next_line_id(self) -> int:
        """The id the next new line gets; ids are never reused within one order."""
        return self._next_line_id

    @property
    def is_empty(self) -> bool:
        return not self._lines

    @property
    def units(self) -> int:
        """Units of all lines together (what "3 items" on screen counts)."""
        return sum(line.quantity for line in self._lines)

    def line(self, line_id: int) -> CartLine:
        return self._lines[self._index(line_id)]

    def totals(self, rates: Mapping[str, TaxRate]) -> Totals:
        """Subtotal, tax and total with the merchant's ``rates`` (``Catalog.taxes()``); see ``Totals``.

        ``UnknownTax`` when a line names a tax missing from ``rates``.
        """
        return compute_totals(self._lines, rates)

    def __len__(self) -> int:
        return len(self._lines)

    def __repr__(self) -> str:
        return f"Cart({self._order_key!r}, {len(self._lines)} lines)"

    # ------------------------------------------------------------ changing

    def add(self, item: Sellable, quantity: int = 1) -> CartLine:
        """Add ``quantity`` of ``item``; returns its line.

        Merges into the line of the same item at the same unit price (a price changed by a
        sync since starts a new line), else appends a line. A discount item (negative
        price) gets no taxes whatever it names. ``ValueError`` for a quantity below 1, or a
        line that would go above ``MAX_QUANTITY``; the cart is then unchanged.
        """
        check_quantity(quantity)
        price = item.price_cents
        if isinstance(price, bool) or not isinstance(price, int):
            raise ValueError(f"item {item.id!r}: price_cents must be an int of cents, got {price!r}")
        for index, line in enumerate(self._lines):
            if line.item_id == item.id and line.unit_cents == price:
                total = line.quantity + quantity
                if total > MAX_QUANTITY:
                    raise ValueError(
                        f"line {line.line_id} ({line.name}) would hold {total} units; at most {MAX_QUANTITY}"
                    )
                merged = CartLine(
                    line.line_id, line.item_id, line.name, line.sku, line.unit_cents, total, line.tax_ids
                )
                self._lines[index] = merged
                self._changed()
                return merged
        added = CartLine(
            line_id=self._next_line_id,
            item_id=item.id,
            name=item.name,
            sku=item.sku,
            unit_cents=price,
            quantity=quantity,
            tax_ids=() if price < 0 else tuple(dict.fromkeys(item.tax_ids)),  # a tax named twice counts once
        )
        self._lines.append(added)
        self._next_line_id += 1
        self._changed()
        return added

    def set_quantity(self, line_id: int, quantity: int) -> CartLine | None:
        """Set a line's quantity; 0 removes the line (returns None). ``ValueError`` below 0
        or above ``MAX_QUANTITY``, ``LineNotFound`` for an unknown line."""
        check_quantity(quantity, allow_zero=True)
        index = self._index(line_id)
        if quantity == 0:
            del self._lines[index]
            self._changed()
            return None
        line = self._lines[index]
        changed = CartLine(line.line_id, line.item_id, line.name, line.sku, line.unit_cents, quantity, line.tax_ids)
        self._lines[index] = changed
        self._changed()
        return changed

    def remove(self, line_id: int) -> CartLine:
        """Remove a line; returns it. ``LineNotFound`` for an unknown line."""
        removed = self._lines.pop(self._index(line_id))
        self._changed()
        return removed

    def clear(self) -> None:
        """Empty the cart and start a new order (a new ``order_key``): after an approved sale,
        or when the sale is abandoned. Never to retry a payment: that keeps the cart."""
        self._lines.clear()
        self._order_key = new_order_key()
        self._next_line_id = 1
        self._changed()

    def _index(self, line_id: int) -> int:
        for index, line in enumerate(self._lines):
            if line.line_id == line_id:
                return index
        raise LineNotFound(line_id)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
