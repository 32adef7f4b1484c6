"""The customer's receipt of a paid cart, as pdftotext reads it: the store's local time,
no id of the station's own (the journal's attempt ids), and named taxes that add up to
the tax charged with no "Tax rounding" line."""

from __future__ import annotations

import re
import time
from decimal import ROUND_HALF_UP, Decimal

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.receipts import render_receipt
from pos_app.station import Station
from pos_app.station.receipt import receipt_of
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-9",
                       terminal_id="tb-2001", poll_wait_limit=20.0, data_dir=tmp_path / "data")


@pytest.fixture
def newfoundland(monkeypatch):
    """The station's clock in St. John's (UTC−3:30): a time zone no test machine runs in."""
    monkeypatch.setenv("TZ", "America/St_Johns")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def cents(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


async def test_the_receipt_is_in_local_time_without_attempt_ids_or_a_rounding_line(sandbox, config, newfoundland):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            await counter.sign_in("1111")
            cafe = await counter.in_category("Cafe")
            # an item whose taxes, each rounded on its own, do not add up to the line's tax
            item, quantity = next((i, q) for q in range(1, 6) for i in cafe if len(i.tax_ids) == 3 and (
                sum(cents(Decimal(i.price_cents * q) * counter.rates[t].rate / 100) for t in i.tax_ids)
                != cents(Decimal(i.price_cents * q) * sum(counter.rates[t].rate for t in i.tax_ids) / 100)))
            await counter.add(item, quantity)
            totals = counter.totals()
            result = await counter.pay()
            assert result.outcome is Outcome.APPROVED
            paid = counter.last_paid
            assert paid is not None
            data = await receipt_of(paid, station.config, station.client, training=True)
        finally:
            await counter.aclose()
    text = pdf_text(render_receipt(data))
    local = paid.when.astimezone()
    assert local.utcoffset().total_seconds() in (-3.5 * 3600, -2.5 * 3600)  # NST or NDT
    assert f"{local:%Y-%m-%d %H:%M} {local.tzname()}" in text and "UTC" not in text
    assert result.attempt_id not in text and "Attempt" not in text
    assert "rounding" not in text.lower()
    named = [int(re.sub(r"\D", "", amount)) for amount in
             re.findall(r"(?:State sales tax|City tax|Cultural district levy)\s+(\$[\d.]+)", text)]
    assert len(named) == 3 and sum(named) == totals.tax, text
    assert result.payment_id in text and result.transaction_id in text  # what support can look up
