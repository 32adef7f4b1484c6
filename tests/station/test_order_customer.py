"""A customer attached to the order (issue 19, F6's Qt-free part): kept with the cart
through a restart and a cancelled order's renewal, gone with a new sale, named on the
receipt (pdftotext) of the order it was attached to, sent as the card sale's contact;
attaching changes no amount, so a
payment holding the order does not stop it."""

from __future__ import annotations

import httpx
import pytest

from pos_app.cart import OrderCustomer
from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.receipts import render_receipt
from pos_app.station import Station
from pos_app.station.receipt import receipt_of
from tests.counters import cart_over, counter_for
from tests.receipts.conftest import pdf_text

JANE = OrderCustomer("65f0aa11bb22cc33dd44ee55", "Jane Roe", "jane@example.com", "555-123-4567")


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def test_the_customer_stays_with_the_order_and_is_named_on_its_receipt(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            await counter.attach_customer(JANE)
            card = await counter.pay(amount=400)
            assert card.outcome is Outcome.APPROVED and counter.payments.holds
            charged = httpx.get(f"{sandbox.base_url}/public/payment/{card.payment_id}",
                                headers={"key-hash": sandbox.keys["B"]}, timeout=10).json()["data"]
            # sent as the sale's contact, for the service's receipt; the phone written the way
            # the reference's pattern refuses (555-123-4567) is left out, the sale not refused
            assert charged["contact"] == {"email": "jane@example.com", "phone": None}
            await counter.attach_customer(None)  # a payment holds the order: the customer may still change
            await counter.attach_customer(JANE)
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:
        counter = await counter_for(again)
        try:
            assert counter.cart.order_key == order_key and counter.cart.customer == JANE  # saved with the cart
            paid = (await counter.pay_cash(total - 400)).paid
            assert paid is not None and paid.customer == JANE
            assert counter.cart.customer is None  # the next sale starts with nobody attached
            text = pdf_text(render_receipt(await receipt_of(paid, config, again.client, training=True)))
            assert "Customer Jane Roe" in text and "Cashier" in text
        finally:
            await counter.aclose()


async def test_a_renewed_order_keeps_its_customer_and_a_receipt_without_one_names_nobody(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
            await counter.attach_customer(JANE)
            await counter.renew_order()  # what a cancelled order leaves: its lines under a new key
            assert counter.cart.customer == JANE
            await counter.attach_customer(None)
            paid = (await counter.pay_cash(counter.totals().total)).paid
            assert paid is not None and paid.customer is None
            text = pdf_text(render_receipt(await receipt_of(paid, config, station.client, training=True)))
            assert "Customer" not in text
        finally:
            await counter.aclose()
