"""Bad data never bricks a lane: a saved cart naming a tax the merchant deleted, an old cart
file that cannot be used, and catalog values out of bounds, against the sandbox."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal

import pytest

from pos_app.cart import FlaggedTax, TaxFlag, UnknownTax
from pos_app.catalog import CatalogItem
from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.station import Station
from pos_app.station.counter import Counter
from pos_app.station.events import CatalogSynced, CatalogSyncFailed
from tests.counters import counter_for
from tests.merchant_data import B_CITY_TAX as CITY
from tests.merchant_data import delete_tax, listed_taxes


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


@asynccontextmanager
async def lane(sandbox, config) -> AsyncIterator[Counter]:
    """A lane on merchant B, as the app opens it: the counter restores the saved cart first."""
    station = await Station.open(config, sandbox.keys["B"], training=True)
    counter = await counter_for(station)
    try:
        yield counter
    finally:
        await counter.aclose()
        await station.aclose()


async def city_taxed_item(counter: Counter) -> CatalogItem:
    return next(i for i in await counter.search("a", 200) if CITY in i.tax_ids and i.price_cents > 100)


async def test_a_saved_cart_naming_a_deleted_tax_keeps_its_rate_flags_the_line_and_is_paid(sandbox, config):
    async with lane(sandbox, config) as counter:
        await counter.sync_catalog()
        item = await city_taxed_item(counter)
        line = await counter.add(item, 2)
        quoted = counter.totals()
    delete_tax(sandbox, CITY)
    async with lane(sandbox, config) as counter:
        assert counter.restore_notice is None
        result = await counter.sync_catalog()  # the catalog no longer lists the city tax
        assert result is not None and CITY not in counter.rates
        totals = counter.totals()
        assert totals.total == quoted.total and totals.tax == quoted.tax and totals.payable
        [flag] = totals.flagged[line.line_id]
        assert flag.flag is TaxFlag.RATE_KEPT and flag.rate.rate == Decimal("2.00") and flag.rate.name == "City tax"
        paid = await counter.pay()
        assert paid.outcome is Outcome.APPROVED and paid.amount == quoted.total
        assert counter.cart.is_empty and counter.last_paid.totals.flagged == totals.flagged
    [payment] = sandbox.stats()["payments"]
    assert payment["amount"] == quoted.total


async def test_a_new_sale_refuses_an_item_whose_tax_is_no_longer_listed_and_says_why(sandbox, config):
    delete_tax(sandbox, CITY)
    async with lane(sandbox, config) as counter:
        await counter.sync_catalog()
        item = await city_taxed_item(counter)
        with pytest.raises(UnknownTax, match=f"{item.name} cannot be rung up: its tax {CITY} is not listed"):
            await counter.add(item)
        assert counter.cart.is_empty and counter.totals().total == 0


async def test_an_old_cart_naming_a_tax_with_no_known_rate_is_kept_aside_and_the_app_starts(sandbox, config):
    delete_tax(sandbox, CITY)
    async with lane(sandbox, config) as counter:
        await counter.sync_catalog()
        item = await city_taxed_item(counter)
    old = {"format": "pos-app cart", "version": 1, "order_key": "cart-" + "0" * 32, "next_line_id": 2,
           "lines": [{"line_id": 1, "item_id": item.id, "name": item.name, "sku": item.sku,
                      "unit_cents": item.price_cents, "quantity": 1, "tax_ids": list(item.tax_ids)}]}
    config.cart_path.write_text(json.dumps(old), "utf-8")  # as pos-app saved it before it kept rates
    async with lane(sandbox, config) as counter:
        assert counter.cart.is_empty and counter.totals().payable is False
        assert counter.restore_notice is not None and item.name in counter.restore_notice
        [kept] = config.cart_path.parent.glob("cart.json.unusable-*")
        assert str(kept) in counter.restore_notice and json.loads(kept.read_text("utf-8")) == old
        assert not config.cart_path.exists()


async def test_an_old_cart_whose_taxes_are_listed_is_restored_with_their_rates(sandbox, config):
    async with lane(sandbox, config) as counter:
        await counter.sync_catalog()
        item = await city_taxed_item(counter)
    old = {"format": "pos-app cart", "version": 1, "order_key": "cart-" + "1" * 32, "next_line_id": 2,
           "lines": [{"line_id": 1, "item_id": item.id, "name": item.name, "sku": item.sku,
                      "unit_cents": item.price_cents, "quantity": 1, "tax_ids": list(item.tax_ids)}]}
    config.cart_path.write_text(json.dumps(old), "utf-8")
    async with lane(sandbox, config) as counter:
        assert counter.restore_notice is None and counter.cart.order_key == old["order_key"]
        assert set(counter.cart.known_rates) == set(item.tax_ids) and counter.totals().payable


async def test_a_sync_with_values_out_of_bounds_succeeds_for_the_rest_and_the_cart_keeps_its_rate(sandbox, config):
    events = []
    async with lane(sandbox, config) as counter:
        counter.events.subscribe(events.append)
        await counter.sync_catalog()
        item = await city_taxed_item(counter)
        line = await counter.add(item)
        quoted = counter.totals()
        others = [i for i in await counter.search("e", 50) if i.id != item.id][:2]
        sandbox.set_item_fields("B", others[0].id, salesPrice=10**17)
        sandbox.set_item_fields("B", others[1].id, salesPrice="NaN")
        sandbox.set_taxes("B", [{**t, "rate": Decimal("1E+30")} if t["id"] == CITY else t
                                for t in listed_taxes(sandbox)])
        result = await counter.sync_catalog()
        assert result is not None and result.count == 298
        assert {s.id for s in result.skipped_items} == {others[0].id, others[1].id}
        assert [s.id for s in result.skipped_taxes] == [CITY]
        assert not [e for e in events if isinstance(e, CatalogSyncFailed)]
        assert [e.result for e in events if isinstance(e, CatalogSynced)][-1] is result
        totals = counter.totals()  # the city tax's bad rate is never used: the cart's known one is
        assert totals.total == quoted.total
        city = counter.cart.known_rates[CITY]
        assert city.rate == Decimal("2.00") and totals.flagged[line.line_id] == (
            FlaggedTax(CITY, TaxFlag.RATE_KEPT, city),)


async def test_a_sync_that_fails_keeps_the_catalog_and_says_why(sandbox, config):
    events = []
    async with lane(sandbox, config) as counter:
        counter.events.subscribe(events.append)
        await counter.sync_catalog()
        before = await counter.synced_at()
        sandbox.inject("item.list", 200, body={"items": "not a list"}, count=5)
        assert await counter.sync_catalog() is None
        assert await counter.synced_at() == before and len(await counter.search("a", 5)) == 5
    [failed] = [e.reason for e in events if isinstance(e, CatalogSyncFailed)]
    assert "the answer to item.list does not match the contract" in failed
