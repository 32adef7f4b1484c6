"""A German euro store, Qt-free, against the sandbox: the receipt, the end-of-shift report
and the back office's sentences write money in the store's currency and locale
(``store.toml``'s ``currency`` and ``locale``), not the OS's locale or dollars."""

from __future__ import annotations

from datetime import datetime

import pytest

from pos_app.config import StoreConfig
from pos_app.receipts import render_receipt
from pos_app.staff import DEMO_CASHIER_PIN, StaffMember
from pos_app.station import Station
from pos_app.station.back_office import BackOffice
from pos_app.station.receipt import receipt_of
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text

NBSP = "\u00a0"


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Buchladen am Hafen", station_id="lane-3",
                       terminal_id="tb-2001", poll_wait_limit=20.0, currency="EUR", locale="de_DE",
                       data_dir=tmp_path / "data")


async def test_the_receipt_and_the_shift_report_write_euros_the_german_way(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sign_in(DEMO_CASHIER_PIN)
            await counter.sync_catalog()
            item = next(i for i in await counter.search("a", 40) if i.price_cents >= 1000)
            await counter.add(item, 2)
            paid_total = counter.totals().total
            await counter.pay()
            assert counter.last_paid is not None
            receipt = await receipt_of(counter.last_paid, config, station.client, training=True)
            end = await station.shift_end("tb-2001", by="Mia Manager")
        finally:
            await counter.aclose()
    euros, cents = divmod(paid_total, 100)
    written = f"{euros:,}".replace(",", ".") + f",{cents:02d} €"  # as a German reads it: 1.234,50 €
    text = pdf_text(render_receipt(receipt)).replace(NBSP, " ")
    assert "TOTAL" in text and "$" not in text
    assert f"{item.price_cents // 100},{item.price_cents % 100:02d} €" in text
    assert end.path is not None
    report = pdf_text(end.path).replace(NBSP, " ")
    assert written in report and "$" not in report


async def test_the_back_offices_sentences_say_euros(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            office = BackOffice(counter)
            sale = await station.service.sale("tb-2001", 2000)
            sandbox.settle()
            row = next(r for r in (await office.payments(datetime.now().date())).rows
                       if r.attempt_id == sale.attempt_id)
            with pytest.raises(ValueError) as refused:
                await office.refund(row, 2001, manager=StaffMember("Demo Manager", "manager"),  # type: ignore[arg-type]
                                    reason="too much")
        finally:
            await counter.aclose()
    assert str(refused.value).startswith(f"a refund of this payment is between 0,01{NBSP}€ and 20,00{NBSP}€")
