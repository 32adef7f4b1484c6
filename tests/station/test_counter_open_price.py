"""The misc key at the counter, Qt-free, against the sandbox: the price read in the store's
format with a sentence for what cannot be one, the tax classes the merchant's catalog
suggests, the line added and saved, and the receipt naming it by its description."""

from __future__ import annotations

import pytest

from pos_app.cart import OPEN_PRICE_ITEM, CartStore
from pos_app.config import StoreConfig
from pos_app.receipts import render_receipt
from pos_app.staff import DEMO_CASHIER_PIN
from pos_app.station import Station
from pos_app.station.counter import Counter
from pos_app.station.events import CartChanged, EventBus
from pos_app.station.receipt import receipt_of
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


@pytest.mark.parametrize("typed, cents", [("4.99", 499), (" $4.99 ", 499), ("1,250.50", 125050), ("10000", 1000000),
                                          ("0.01", 1)])
async def test_a_price_is_read_the_stores_way(config, typed, cents):
    counter = await Counter.open(config, EventBus())
    try:
        assert counter.read_price(typed) == cents
    finally:
        await counter.aclose()


NOT_POSITIVE = "The price must be more than $0.00. For a discount, scan the discount's code."
TOO_DEAR = "A misc item costs at most $10,000.00: check the price. A dearer item must be in the catalog."


@pytest.mark.parametrize("locale, typed, sentence", [
    ("en_US", "", "Type the price, like 12.50."),
    ("en_US", "0", NOT_POSITIVE),
    ("en_US", "-4.99", NOT_POSITIVE),
    ("en_US", "10000.01", TOO_DEAR),
    ("en_US", "99999999999", TOO_DEAR),
    ("en_US", "4,99", "'4,99' is not an amount: this store writes amounts otherwise; type an amount like 12.50."),
    ("en_US", "4.999", "'4.999' is not an amount: USD has 2 decimals; type an amount like 12.50."),
    ("en_US", "four", "'four' is not an amount; type an amount like 12.50."),
    ("de_DE", "4.99", "'4.99' is not an amount: this store writes amounts otherwise; type an amount like 12,50."),
    ("de_DE", "0,00", "The price must be more than 0,00\u00a0€. For a discount, scan the discount's code."),
])
async def test_what_is_no_price_is_said_in_a_sentence(config, locale, typed, sentence):
    currency = "EUR" if locale == "de_DE" else "USD"
    counter = await Counter.open(config.replace(currency=currency, locale=locale), EventBus())
    try:
        with pytest.raises(ValueError) as refused:
            counter.read_price(typed)
        assert str(refused.value) == sentence
        if locale == "de_DE":
            assert counter.read_price("4,99") == 499
    finally:
        await counter.aclose()


async def test_a_misc_item_is_added_saved_paid_and_named_on_the_receipt(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        changes = []
        counter.events.subscribe(lambda event: changes.append(event) if isinstance(event, CartChanged) else None)
        try:
            await counter.sign_in(DEMO_CASHIER_PIN)
            await counter.sync_catalog()
            taxes = await counter.open_price_taxes()
            labels = [tax_class.label() for tax_class in taxes.classes]
            assert labels == ["No tax", "State sales tax 6.25 %", "City tax 2.00 %", "Cultural district levy 0.75 %",
                              "State sales tax + City tax 8.25 %",
                              "State sales tax + City tax + Cultural district levy 9.00 %"]
            assert taxes.default.label() == "State sales tax 6.25 %"  # what most of a bookshop's items carry
            general = taxes.classes[labels.index("State sales tax + City tax 8.25 %")]
            line = await counter.add_open_price("Gift wrap", counter.read_price("4.99"), general.tax_ids)
            assert changes and line.item_id == OPEN_PRICE_ITEM and counter.cart.lines == (line,)
            saved = CartStore(config.cart_path).load()
            assert saved is not None and saved.lines == (line,)
            await counter.set_quantity(line.line_id, 2)
            totals = counter.totals()
            assert (totals.subtotal, totals.tax, totals.total) == (998, 82, 1080)  # 998 × 8.25 % = 82.34
            with pytest.raises(ValueError, match="open price"):
                await counter.add_open_price("Misc item", 0)
            assert len(counter.cart) == 1
            await counter.pay()
            assert counter.last_paid is not None and counter.cart.is_empty
            receipt = await receipt_of(counter.last_paid, config, station.client, training=True)
        finally:
            await counter.aclose()
    lines = [" ".join(row.split()) for row in pdf_text(render_receipt(receipt)).splitlines()]
    at = lines.index("Gift wrap")  # by its description, its quantity and price under it
    assert lines[at + 1:at + 2] == ["2 x $4.99 $9.98"]
    assert {"State sales tax $0.62", "City tax $0.20"} <= set(lines)  # the class chosen: 82 cents
