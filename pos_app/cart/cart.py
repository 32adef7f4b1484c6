"""``Cart``: the sale in progress, as ordered lines of integer cents.

The cart knows nothing of files: give it ``on_change`` (``CartStore.save``) and it calls
it after every change, with the change already made. Change it from one thread (the UI's
or the event loop's). Its whole state is one frozen ``CartSnapshot`` swapped in a single
assignment per change, so another thread (a save on a disk thread) reading it through
``snapshot()`` always sees a whole cart: never the lines of one change with the order key
or line counter of another.

The order key (``order_key``, ``"cart-<32 hex>"``) names the sale for the terminal layer's
order guard: it stays the same through every change, through a declined or unknown
payment and through a restart (it is saved), so ringing the same cart again is seen as
the same order (an approved order is never charged twice; an unknown one must be resolved
first). Only ``clear()`` starts a new order: call it after an approved sale, or when the
cashier deliberately abandons the sale.

The cart remembers the rate of every tax its lines name (``known_rates``: the rate each
line was rung up with, brought up to date by ``refresh_rates`` after a sync). When the
merchant stops listing a tax (deleted, or a sync that answered without it), the totals
keep charging that rate and flag the line: the customer was quoted it, and the sale can
still be paid. An item naming a tax no rate is known for is refused (``UnknownTax``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from pos_app.cart.errors import LineNotFound, UnknownTax
from pos_app.cart.models import MAX_QUANTITY, CartLine, OrderCustomer, Sellable, Totals, _frozen, check_quantity
from pos_app.cart.open_price import MAX_DESCRIPTION, OPEN_PRICE_ITEM, OPEN_PRICE_MAX_CENTS, OPEN_PRICE_NAME
from pos_app.cart.taxes import compute_totals
from pos_app.catalog.models import TaxRate
from pos_app.i18n import _


def new_order_key() -> str:
    return f"cart-{uuid.uuid4().hex}"


@dataclass(frozen=True, slots=True)
class CartSnapshot:
    """The cart's whole state at one moment (what ``CartStore`` saves)."""

    order_key: str
    lines: tuple[CartLine, ...]
    next_line_id: int
    known_rates: Mapping[str, TaxRate] = field(default_factory=lambda: _frozen({}))
    """The last known rate of each tax the lines name (tax id → rate)."""
    customer: OrderCustomer | None = None
    """The customer attached to the order (F6), if any."""


class Cart:
    """Ordered lines, an order key, and the totals they come to."""

    def __init__(
        self,
        *,
        order_key: str | None = None,
        lines: Iterable[CartLine] = (),
        next_line_id: int | None = None,
        known_rates: Iterable[TaxRate] = (),
        customer: OrderCustomer | None = None,
        on_change: Callable[[Cart], None] | None = None,
    ) -> None:
        """A new empty cart, or (with ``order_key``, ``lines``, ``next_line_id``, ``known_rates``,
        ``customer``) a restored one."""
        if customer is not None and not isinstance(customer, OrderCustomer):
            raise ValueError(f"expected an OrderCustomer, got {type(customer).__name__}")  # not for people
        if order_key is not None and (not isinstance(order_key, str) or not order_key.strip()):
            raise ValueError(f"order_key must be a non-empty string, got {order_key!r}")  # not for people
        kept: list[CartLine] = []
        for line in lines:
            if not isinstance(line, CartLine):
                raise ValueError(f"expected a CartLine, got {type(line).__name__}")  # not for people
            if any(other.line_id == line.line_id for other in kept):
                raise ValueError(f"line id {line.line_id} appears twice")  # not for people
            kept.append(line)
        highest = max((line.line_id for line in kept), default=0)
        if next_line_id is None:
            next_line_id = highest + 1
        if isinstance(next_line_id, bool) or not isinstance(next_line_id, int) or next_line_id <= highest:
            raise ValueError(
                f"next_line_id must be above every line id ({highest}), got {next_line_id!r}")  # not for people
        known: dict[str, TaxRate] = {}
        for rate in known_rates:
            if not isinstance(rate, TaxRate):
                raise ValueError(f"expected a TaxRate, got {type(rate).__name__}")  # not for people
            known[rate.id] = rate
        self._state = CartSnapshot(order_key or new_order_key(), tuple(kept), next_line_id, _named(known, kept),
                                   customer)
        self.on_change = on_change
        """Called with the cart after every change (``add``, ``add_open_price``, ``set_quantity``,
        ``remove``, ``clear``); an exception it raises reaches the caller, the change being made already."""

    # ------------------------------------------------------------ reading

    def snapshot(self) -> CartSnapshot:
        """The whole state at this moment, consistent even while another thread changes the cart."""
        return self._state

    @property
    def order_key(self) -> str:
        return self._state.order_key

    @property
    def lines(self) -> tuple[CartLine, ...]:
        return self._state.lines

    @property
    def next_line_id(self) -> int:
        """The id the next new line gets; ids are never reused within one order."""
        return self._state.next_line_id

    @property
    def known_rates(self) -> Mapping[str, TaxRate]:
        """The last known rate of each tax the lines name: what they were rung up with, or
        the merchant's rate at the last ``refresh_rates``."""
        return self._state.known_rates

    @property
    def customer(self) -> OrderCustomer | None:
        """The customer attached to the order (F6), if any."""
        return self._state.customer

    @property
    def is_empty(self) -> bool:
        return not self._state.lines

    @property
    def units(self) -> int:
        """Units of all lines together (what "3 items" on screen counts)."""
        return sum(line.quantity for line in self._state.lines)

    def line(self, line_id: int) -> CartLine:
        """The line with ``line_id``; ``LineNotFound`` (a ``KeyError``) if none."""
        lines = self._state.lines
        return lines[_index(lines, line_id)]

    def totals(self, rates: Mapping[str, TaxRate]) -> Totals:
        """Subtotal, tax and total with the merchant's ``rates`` (``Catalog.taxes()``); see ``Totals``.

        Never raises: a tax missing from ``rates`` is charged at its known rate and its line
        flagged (``Totals.flagged``); with no known rate, the totals are not ``payable``.
        """
        state = self._state
        return compute_totals(state.lines, rates, state.known_rates)

    def __len__(self) -> int:
        return len(self._state.lines)

    def __repr__(self) -> str:
        return f"Cart({self._state.order_key!r}, {len(self._state.lines)} lines)"

    # ------------------------------------------------------------ changing

    def add(self, item: Sellable, quantity: int = 1, *, rates: Mapping[str, TaxRate] | None = None) -> CartLine:
        """Add ``quantity`` of ``item``; returns its line.

        Merges into the line of the same item at the same unit price (a price changed by a
        sync since starts a new line), else appends a line. A discount item (negative
        price) gets no taxes whatever it names. ``ValueError`` for a quantity below 1, a
        line that would go above ``MAX_QUANTITY`` or a price beyond ``MAX_PRICE_CENTS``;
        the cart is then unchanged.

        With the merchant's ``rates`` (``Catalog.taxes()``), the cart remembers the rate of
        each of the item's taxes (``known_rates``), and refuses an item naming a tax that
        neither ``rates`` nor the cart has a rate for (``UnknownTax``, a ``ValueError``).
        """
        check_quantity(quantity)
        price = item.price_cents
        if isinstance(price, bool) or not isinstance(price, int):
            raise ValueError(f"item {item.id!r}: price_cents must be an int of cents, got {price!r}")  # not for people
        state = self._state
        known = dict(state.known_rates)
        if rates is not None and price >= 0:
            for tax_id in item.tax_ids:
                rate = rates.get(tax_id) or known.get(tax_id)
                if rate is None:
                    raise UnknownTax(item.name, tax_id)
                known[tax_id] = rate
        for index, line in enumerate(state.lines):
            if line.item_id == item.id and line.unit_cents == price:
                total = line.quantity + quantity
                if total > MAX_QUANTITY:
                    raise ValueError(_("line {line} ({name}) would hold {total} units; at most {most}").format(
                        line=line.line_id, name=line.name, total=total, most=MAX_QUANTITY))
                merged = CartLine(
                    line.line_id, line.item_id, line.name, line.sku, line.unit_cents, total, line.tax_ids
                )
                self._set(state.order_key, _replace(state.lines, index, merged), state.next_line_id, known)
                return merged
        added = CartLine(
            line_id=state.next_line_id,
            item_id=item.id,
            name=item.name,
            sku=item.sku,
            unit_cents=price,
            quantity=quantity,
            tax_ids=() if price < 0 else tuple(dict.fromkeys(item.tax_ids)),  # a tax named twice counts once
        )
        self._set(state.order_key, (*state.lines, added), state.next_line_id + 1, known)
        return added

    def add_open_price(self, name: str, unit_cents: int, tax_ids: Iterable[str] = (), *,
                       rates: Mapping[str, TaxRate]) -> CartLine:
        """Add one item the catalog lacks at ``unit_cents`` (the misc key), taxed by ``tax_ids``;
        returns its line, always a new one (see ``pos_app.cart.open_price``).

        ``name`` is the cashier's description (blank: ``OPEN_PRICE_NAME``). ``ValueError``
        for a price not from 1 to ``OPEN_PRICE_MAX_CENTS`` or a description longer than
        ``MAX_DESCRIPTION``; ``UnknownTax`` for a tax neither ``rates`` (the merchant's) nor
        the cart has a rate for. The cart is then unchanged.
        """
        if isinstance(unit_cents, bool) or not isinstance(unit_cents, int):
            raise ValueError(f"an open price must be an int of cents, got {unit_cents!r}")  # not for people
        if not 0 < unit_cents <= OPEN_PRICE_MAX_CENTS:
            raise ValueError(_("an open price must be from 1 to {most} cents, got {cents}").format(
                most=OPEN_PRICE_MAX_CENTS, cents=unit_cents))
        name = " ".join(name.split()) or _(OPEN_PRICE_NAME)
        if len(name) > MAX_DESCRIPTION:
            raise ValueError(_("a description has at most {most} characters, got {length}").format(
                most=MAX_DESCRIPTION, length=len(name)))
        state = self._state
        known = dict(state.known_rates)
        taxes = tuple(dict.fromkeys(tax_ids))
        for tax_id in taxes:
            rate = rates.get(tax_id) or known.get(tax_id)
            if rate is None:
                raise UnknownTax(name, tax_id)
            known[tax_id] = rate
        added = CartLine(state.next_line_id, OPEN_PRICE_ITEM, name, None, unit_cents, 1, taxes)
        self._set(state.order_key, (*state.lines, added), state.next_line_id + 1, known)
        return added

    def set_quantity(self, line_id: int, quantity: int) -> CartLine | None:
        """Set a line's quantity; 0 removes the line (returns None). ``ValueError`` below 0
        or above ``MAX_QUANTITY``, ``LineNotFound`` for an unknown line."""
        check_quantity(quantity, allow_zero=True)
        state = self._state
        index = _index(state.lines, line_id)
        if quantity == 0:
            self._set(state.order_key, _replace(state.lines, index, None), state.next_line_id, state.known_rates)
            return None
        line = state.lines[index]
        changed = CartLine(line.line_id, line.item_id, line.name, line.sku, line.unit_cents, quantity, line.tax_ids)
        self._set(state.order_key, _replace(state.lines, index, changed), state.next_line_id, state.known_rates)
        return changed

    def remove(self, line_id: int) -> CartLine:
        """Remove a line; returns it. ``LineNotFound`` for an unknown line."""
        state = self._state
        index = _index(state.lines, line_id)
        self._set(state.order_key, _replace(state.lines, index, None), state.next_line_id, state.known_rates)
        return state.lines[index]

    def refresh_rates(self, rates: Mapping[str, TaxRate]) -> bool:
        """The merchant's ``rates`` after a sync (or at a restore): each tax they list gets
        its current rate as the known one; a tax they no longer list keeps its last known
        rate. Returns whether anything changed (``on_change`` is called only then)."""
        state = self._state
        known = dict(state.known_rates)
        for line in state.lines:
            for tax_id in line.tax_ids:
                if tax_id in rates:
                    known[tax_id] = rates[tax_id]
        if known == state.known_rates:
            return False
        self._set(state.order_key, state.lines, state.next_line_id, known)
        return True

    def attach_customer(self, customer: OrderCustomer | None) -> None:
        """Attach ``customer`` to the order (None: detach); the lines do not change."""
        if customer is not None and not isinstance(customer, OrderCustomer):
            raise ValueError(f"expected an OrderCustomer, got {type(customer).__name__}")  # not for people
        self._publish(replace(self._state, customer=customer))

    def clear(self) -> None:
        """Empty the cart and start a new order (a new ``order_key``, no customer): after an
        approved sale, or when the sale is abandoned. Never to retry a payment: that keeps
        the cart."""
        self._publish(CartSnapshot(new_order_key(), (), 1, _frozen({})))

    def _set(self, order_key: str, lines: tuple[CartLine, ...], next_line_id: int,
             known_rates: Mapping[str, TaxRate]) -> None:
        """The lines changed (the customer stays attached)."""
        self._publish(CartSnapshot(order_key, lines, next_line_id, _named(known_rates, lines), self._state.customer))

    def _publish(self, state: CartSnapshot) -> None:
        self._state = state  # one assignment: readers see old or new
        if self.on_change is not None:
            self.on_change(self)


def _index(lines: tuple[CartLine, ...], line_id: int) -> int:
    for index, line in enumerate(lines):
        if line.line_id == line_id:
            return index
    raise LineNotFound(line_id)


def _named(rates: Mapping[str, TaxRate], lines: Iterable[CartLine]) -> Mapping[str, TaxRate]:
    """``rates`` of the taxes some line names (a rate is forgotten with the last line naming it)."""
    named = {tax_id for line in lines for tax_id in line.tax_ids}
    return _frozen({tax_id: rate for tax_id, rate in rates.items() if tax_id in named})


def _replace(lines: tuple[CartLine, ...], index: int, line: CartLine | None) -> tuple[CartLine, ...]:
    """``lines`` with the one at ``index`` replaced by ``line``, or dropped when None."""
    return (*lines[:index], *(() if line is None else (line,)), *lines[index + 1 :])
