"""A counter for a station already open, as the app wires them (the counter on the
station's settings and event stream, then the station attached and the restored cart's
order read); a cart over an amount, a cart of two lines, a manager signed in; a cart the
sandbox declines."""

from __future__ import annotations

from pos_app.cart import Cart, CartLine
from pos_app.catalog import CatalogItem
from pos_app.staff import DEMO_MANAGER_PIN, StaffMember
from pos_app.station.counter import Counter
from pos_app.station.station import Station


async def counter_for(station: Station, *, read_order: bool = True) -> Counter:
    """``read_order``: the restored cart's order read against the journal, as the app's start does."""
    counter = await Counter.open(station.config, station.events, training=station.training)
    counter.attach(station)
    if read_order:
        await counter.restore_order()
    return counter


async def under_a_dollar(counter: Counter) -> tuple[CatalogItem, CatalogItem]:
    """An item and a discount line of the counter's catalog that come to a total (tax
    included) between 1 and 99 cents: a card payment the sandbox declines."""
    items = [item for name in await counter.categories() for item in await counter.in_category(name)]
    for item in (i for i in items if i.price_cents > 0):
        for deal in (i for i in items if i.price_cents < 0):
            cart = Cart()
            cart.add(item)
            cart.add(deal)
            if 0 < cart.totals(counter.rates).total < 100:
                return item, deal
    raise AssertionError("the catalog has no item and discount that come to less than $1.00")


async def cart_over(counter: Counter, minimum: int) -> int:
    """One catalog item of at least ``minimum`` cents in the counter's cart; its total."""
    await counter.sync_catalog()
    await counter.add(next(i for i in await counter.search("a", 60) if i.price_cents >= minimum))
    return counter.totals().total


async def two_lines(counter: Counter) -> tuple[str, tuple[CartLine, ...]]:
    """A cart of two items over $3 each, 2 of the first: its order key and lines."""
    await counter.sync_catalog()
    items = [i for i in await counter.search("a", 60) if i.price_cents >= 300][:2]
    await counter.add(items[0], 2)
    await counter.add(items[1])
    return counter.cart.order_key, counter.cart.lines


async def manager_of(counter: Counter) -> StaffMember:
    """The demo manager, by PIN, as an approval dialog checks one."""
    return await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
