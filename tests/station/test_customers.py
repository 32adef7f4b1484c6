"""The customer dialog's Qt-free part (issue 19): a search on the sandbox's vaults by name,
email or card last four, each found with its default card in words; a new customer added
(the reference's checks first: nothing sent on bad input); an empty search refused."""

from __future__ import annotations

import httpx
import pytest

from pos_app.config import StoreConfig
from pos_app.station import Station
from pos_app.station.customers import add_customer, find_customers


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


def customer_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("customer."))


async def test_find_by_name_email_or_last_four_and_add_one(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        ada = await add_customer(station.client, " Ada ", "Lovelace", "ada@example.org", "(555) 987-6543")
        assert (ada.customer.name, ada.customer.email, ada.customer.phone, ada.card) == (
            "Ada Lovelace", "ada@example.org", "(555) 987-6543", "")
        await add_customer(station.client, "John", "Doe", "john@example.org")
        card = httpx.post(f"{sandbox.base_url}/public/customer/{ada.customer.id}/card",
                          headers={"key-hash": sandbox.keys["B"]},
                          json={"number": "555555******4444", "paymentToken": "tok-ada"})
        assert card.status_code == 201, card.text
        for keyword in ("lovelace", "ADA@example", "4444"):
            [hit] = await find_customers(station.client, keyword)
            assert hit.customer.id == ada.customer.id and hit.card == "Mastercard •••• 4444", keyword
        assert len(await find_customers(station.client, "example.org")) == 2
        [jane] = await find_customers(station.client, "roe")  # one the sandbox starts with
        assert (jane.customer.name, jane.customer.email, jane.customer.phone, jane.card) == (
            "Jane Roe", "jane@example.com", "(555) 123-4567", "Visa •••• 4242")
        assert await find_customers(station.client, "nobody") == []


async def test_bad_input_is_a_sentence_and_nothing_is_sent(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        before = customer_requests(sandbox)
        with pytest.raises(ValueError, match="type part of a name"):
            await find_customers(station.client, "   ")
        with pytest.raises(ValueError, match="email"):
            await add_customer(station.client, "Jane", "Roe", "not-an-email")
        with pytest.raises(ValueError, match="name"):
            await add_customer(station.client, "", "Roe", "jane@example.com")
        with pytest.raises(ValueError, match="phone"):
            await add_customer(station.client, "Jane", "Roe", "jane@example.com", "12")
        assert customer_requests(sandbox) == before
