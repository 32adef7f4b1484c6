"""The back office's payments (F9) with the money of the service's charge routes: a card on
file and an ACH payment are rows saying what they are, and their void and refund go through
the card-on-file and ACH routes by payment id, never a terminal's (against the sandbox)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from pos_app.api.charge_models import AchCharge, AchData, CardCharge
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.config import StoreConfig
from pos_app.journal import Operation, Outcome
from pos_app.staff import DEMO_CASHIER_PIN, StaffMember
from pos_app.station import Station
from pos_app.station.back_office import BackOffice
from pos_app.station.events import OperationEnded
from pos_app.station.payments import PaymentMethod, PaymentStatus, Source
from tests.counters import counter_for

MANAGER = StaffMember("Demo Manager", "manager")  # type: ignore[arg-type]
EXP = f"12{date.today().year + 1 - 2000:02d}"
ACCOUNT = AchData(accountType="personalChecking", routingNumber="021000021", accountNumber="123456789")


@pytest.fixture
async def office(sandbox, tmp_path):
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                         poll_wait_limit=20.0, data_dir=tmp_path / "data")
    station = await Station.open(config, sandbox.keys["B"], training=True)
    counter = await counter_for(station)
    await counter.sign_in(DEMO_CASHIER_PIN)
    try:
        yield BackOffice(counter)
    finally:
        await counter.aclose()
        await station.aclose()


async def rows(office: BackOffice):
    history = await office.payments(datetime.now().date())
    assert history.complete and history.problem is None
    return {row.attempt_id: row for row in history.rows}


def terminal_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("terminal."))


async def test_a_card_on_file_and_an_ach_payment_say_what_they_are_and_are_voided_on_their_routes(office, sandbox):
    station = office.station
    customer = await station.client.customers.create(CustomerDraft(
        firstName="Ada", lastName="Byron", email="a@example.com",
        cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
    on_file = await station.service.card_charge(CardCharge(amount=1500, customerId=customer.id), order_key="f-1")
    ach = await station.service.ach_charge(AchCharge(amount=2500, achData=ACCOUNT), order_key="a-1")
    found = await rows(office)
    card_row, ach_row = found[on_file.attempt_id], found[ach.attempt_id]
    assert (card_row.method, card_row.card, card_row.source, card_row.terminal_id) == (
        PaymentMethod.CARD_ON_FILE, "card on file Visa •••• 4242", Source.BOTH, None)
    assert (ach_row.method, ach_row.card, ach_row.base) == (PaymentMethod.ACH, "ACH ••6789", 2500)
    assert card_row.voidable and ach_row.voidable and card_row.follow_up_ref == on_file.payment_id

    ended: list[OperationEnded] = []
    station.events.subscribe(lambda event: ended.append(event) if isinstance(event, OperationEnded) else None)
    before = terminal_requests(sandbox)
    voided = await office.void(card_row, manager=MANAGER, reason="customer changed their mind")
    ach_voided = await office.void(ach_row, manager=MANAGER, reason="wrong account")
    assert (voided.outcome, voided.operation, voided.ref) == (Outcome.APPROVED, Operation.CARD_VOID,
                                                             on_file.payment_id)
    assert (ach_voided.outcome, ach_voided.operation) == (Outcome.APPROVED, Operation.ACH_VOID)
    assert terminal_requests(sandbox) == before  # no terminal route was asked
    assert [event.result.attempt_id for event in ended] == [voided.attempt_id, ach_voided.attempt_id]
    found = await rows(office)
    assert found[on_file.attempt_id].status is PaymentStatus.VOIDED
    assert found[ach.attempt_id].status is PaymentStatus.VOIDED
    audited = {entry.reason: entry.action for entry in await office.audit() if entry.detail.startswith("void of")}
    assert audited == {"customer changed their mind": "void", "wrong account": "void"}


async def test_a_settled_card_on_file_payment_is_refunded_by_its_payment_id(office, sandbox):
    station = office.station
    customer = await station.client.customers.create(CustomerDraft(
        firstName="Ada", lastName="Byron", email="a@example.com",
        cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
    paid = await station.service.card_charge(CardCharge(amount=1500, customerId=customer.id), order_key="f-2")
    assert sandbox.settle() >= 1
    row = (await rows(office))[paid.attempt_id]
    assert row.settled is True and row.refundable == 1500 and not row.voidable
    refund = await office.refund(row, 500, manager=MANAGER, reason="damaged")
    assert (refund.outcome, refund.operation, refund.ref) == (Outcome.APPROVED, Operation.CARD_REFUND,
                                                             paid.payment_id)
    after = (await rows(office))[paid.attempt_id]
    assert (after.status, after.refundable) == (PaymentStatus.PARTLY_REFUNDED, 1000)
