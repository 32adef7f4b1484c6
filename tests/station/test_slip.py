"""The slips of an approved capture, void and refund against the sandbox: the amounts the
service answered, the payment's card and surcharge, the ids support can look up, the
station's local time; nothing but an approved operation has a slip."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.receipts import SlipKind, render_slip
from pos_app.staff import DEMO_CASHIER_PIN, StaffMember
from pos_app.station import Station
from pos_app.station.back_office import BackOffice
from pos_app.station.slip import ActedOn, slip_of
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text

MANAGER = StaffMember("Demo Manager", "manager")  # type: ignore[arg-type]


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-9",
                       terminal_id="tb-2001", poll_wait_limit=20.0, data_dir=tmp_path / "data")


@pytest.fixture
async def office(sandbox, config):
    station = await Station.open(config, sandbox.keys["B"], training=True)
    counter = await counter_for(station)
    await counter.sign_in(DEMO_CASHIER_PIN)
    try:
        yield BackOffice(counter)
    finally:
        await counter.aclose()
        await station.aclose()


async def row_of(office: BackOffice, attempt_id: str):
    history = await office.payments(datetime.now().date())
    return next(row for row in history.rows if row.attempt_id == attempt_id)


async def slip(office: BackOffice, result, acted_on: ActedOn, manager: str = "Demo Manager"):
    station = office.station
    return await slip_of(result, acted_on, station.config, station.client, cashier="Demo Cashier", manager=manager,
                         training=station.training)


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


async def test_a_void_slip_gives_back_the_whole_payment_surcharge_included(office):
    sale = await office.station.service.sale("tb-2001", 2500)
    row = await row_of(office, sale.attempt_id)
    voided = await office.void(row, manager=MANAGER, reason="wrong item")
    assert voided.outcome is Outcome.APPROVED
    data = await slip(office, voided, ActedOn.of_row(row))
    assert data.kind is SlipKind.VOID and data.amount_cents == 2500 and data.surcharge_cents == row.surcharge
    assert data.total_cents == row.total and data.card_last4 == sale.card_last4
    assert data.when.utcoffset() == datetime.now().astimezone().utcoffset()  # the station's clock
    text = pdf_text(render_slip(data))
    assert re.search(rf"TOTAL VOIDED\s+\{money(row.total)}", text), text
    for expected in ("Harbor Books", "Station lane-9", "Cashier Demo Cashier", "Manager Demo Manager",
                     f"**** {sale.card_last4}", voided.transaction_id, sale.transaction_id, sale.payment_id,
                     "APPROVED (TRAINING)"):
        assert expected in text, f"{expected!r} missing from:\n{text}"
    assert voided.attempt_id not in text and sale.attempt_id not in text  # the station's own ids stay inside


async def test_refund_slips_say_the_money_returned_and_what_was_refunded_before(office, sandbox):
    sale = await office.station.service.sale("tb-2001", 4000)
    sandbox.settle()
    row = await row_of(office, sale.attempt_id)
    first = await office.refund(row, 1500, manager=MANAGER, reason="one item back")
    data = await slip(office, first, ActedOn.of_row(row))
    assert (data.kind, data.amount_cents, data.refunded_before_cents, data.surcharge_cents) == (
        SlipKind.REFUND, 1500, 0, 0)
    assert re.search(r"MONEY RETURNED\s+\$15\.00", pdf_text(render_slip(data)))

    row = await row_of(office, sale.attempt_id)
    second = await office.refund(row, 2500, manager=MANAGER, reason="the rest back")
    text = pdf_text(render_slip(await slip(office, second, ActedOn.of_row(row))))
    assert re.search(r"Refunded before\s+\$15\.00", text) and re.search(r"MONEY RETURNED\s+\$25\.00", text)
    assert re.search(rf"Original payment\s+\{money(row.total)}", text)


async def test_a_capture_slip_reads_the_surcharge_the_service_added(office):
    station = office.station
    held = await station.sale(1500, order_key="tab-1", preauth=True)
    captured = await station.capture("tb-2001", held.transaction_id, 1200, payment_id=held.payment_id)
    assert captured.outcome is Outcome.APPROVED
    data = await slip(office, captured, ActedOn.of_preauth(held), manager="")
    payment = await station.client.get_payment(held.payment_id)
    assert (data.original_cents, data.amount_cents, data.surcharge_cents) == (1500, 1200, payment.surcharge)
    assert data.total_cents == payment.net_amount and data.card_brand == held.card_brand
    text = pdf_text(render_slip(data))
    assert re.search(rf"TOTAL CHARGED\s+\{money(payment.net_amount)}", text) and "Manager" not in text
    assert re.search(r"Held \(pre-auth\)\s+\$15\.00", text) and re.search(r"Captured\s+\$12\.00", text)


async def test_only_an_approved_capture_void_or_refund_has_a_slip(office):
    sale = await office.station.service.sale("tb-2001", 2500)
    with pytest.raises(ValueError, match="only an approved capture, void or refund"):
        await slip(office, sale, ActedOn(2500))
    declined = await office.station.service.sale("tb-2001", 9905)
    assert declined.outcome is not Outcome.APPROVED
    with pytest.raises(ValueError, match="only an approved"):
        await slip(office, declined, ActedOn(9905))


async def test_a_void_the_service_answers_for_less_than_the_payment_has_no_slip(office):
    from dataclasses import replace

    sale = await office.station.service.sale("tb-2001", 2500)
    row = await row_of(office, sale.attempt_id)
    voided = await office.void(row, manager=MANAGER, reason="wrong item")
    with pytest.raises(ValueError, match="a void gives back the whole payment"):
        await slip(office, replace(voided, approved_amount=2000), ActedOn.of_row(row))
