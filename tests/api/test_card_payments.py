"""Card payments through the client against the sandbox over loopback: every operation of the
family, its money in cents both ways, the decline shapes, the attempt id in the user-agent,
no retry of a money-moving call, and the reference's checks made before anything is sent."""

from __future__ import annotations

import asyncio
import time
from datetime import date

import pytest

from pos_app.api import errors as e
from pos_app.api.charge_models import (
    BulkCharge,
    BulkChargeItem,
    CardCapture,
    CardCharge,
    ChargeCard,
    PaymentRefund,
    PaymentVoid,
    void_reason,
)
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.api.units import request_unit, response_unit

EXP = f"12{date.today().year + 1 - 2000:02d}"


async def customer(client, *numbers: str):
    cards = [NewCustomerCard(number=number, exp=EXP) for number in numbers]
    return await client.customers.create(CustomerDraft(firstName="Ada", lastName="Byron", email="a@example.com",
                                                       cards=cards))


def money_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("card"))


def test_the_card_family_speaks_cents_both_ways():
    """The unit trap of 2.1 for these routes: cents in and out (never dollars), and the body
    sent is the int of cents asked."""
    for route in ("card.charge", "card.capture", "card.void", "card.refund", "card.bulk_charge", "ach.charge",
                  "ach.refund", "ach.void"):
        assert request_unit(route) == "cents" and response_unit(route) == "cents", route
    assert response_unit("ach.list") == "cents"
    body = CardCharge(amount=1250, customerId="0" * 24).wire()
    assert body["amount"] == 1250 and isinstance(body["amount"], int)
    assert BulkCharge(payments=[BulkChargeItem(amount=99, customerVaultId="a" * 24)]).wire()["payments"][0][
        "amount"] == 99


async def test_a_card_on_file_is_charged_and_the_attempt_rides_along(clients, sandbox):
    client = clients["B"]
    vault = await customer(client, "424242******4242", "555555******4444")
    paid = await client.cards.charge(CardCharge(amount=1500, customerId=vault.id).with_external_id("a-one"),
                                     attempt_id="a-one")
    assert (paid.paid, paid.status, paid.amount, paid.card.last4) == (True, "captured", 1500, "4242")
    assert paid.net_amount is not None and paid.net_amount >= 1500
    assert sandbox.stats()["payments"][0]["userAgent"].endswith("attempt a-one)")
    other = vault.payment_methods[1].customer_vault_id
    picked = await client.cards.charge(CardCharge(amount=1500, customerId=vault.id,
                                                  overrideDefaultPaymentMethod=other), attempt_id="a-two")
    assert picked.card.last4 == "4444"
    found = await client.list_transactions(externalId="a-one")
    assert [t.payment_id for t in found.data] == [paid.id]


async def test_every_decline_shape_is_a_decline(clients):
    client = clients["B"]
    vault = await customer(client, "424242******4242")
    with pytest.raises(e.GatewayDeclined) as inside_2xx:
        await client.cards.charge(CardCharge(amount=99, customerId=vault.id), attempt_id="a-1")
    assert inside_2xx.value.status_code == 200 and inside_2xx.value.result.paid is False
    with pytest.raises(e.GatewayDeclined) as before_any_id:
        await client.cards.charge(CardCharge(amount=9905, customerId=vault.id), attempt_id="a-2")
    assert before_any_id.value.status_code == 501
    with pytest.raises(e.ChargeRequestError) as unknown_customer:
        await client.cards.charge(CardCharge(amount=1500, customerId="0123456789abcdef01234567"), attempt_id="a-3")
    assert unknown_customer.value.status_code == 906 and unknown_customer.value.meaning == "customer not found"


async def test_capture_void_refund_by_payment_id(clients, sandbox):
    client = clients["B"]
    vault = await customer(client, "424242******4242")
    held = await client.cards.charge(CardCharge(amount=2000, capture=False, customerId=vault.id), attempt_id="a-1")
    assert held.status == "auth"
    captured = await client.cards.capture(CardCapture(paymentId=held.id, amount=1800), attempt_id="a-2")
    assert (captured.status, captured.amount) == ("captured", 1800)
    with pytest.raises(e.ServiceError, match="void it instead"):
        await client.cards.refund(PaymentRefund(paymentId=held.id, amount=100, reason="duplicate"), attempt_id="a-3")
    voided = await client.cards.void(PaymentVoid(paymentId=held.id, reason="user_cancel"), attempt_id="a-4")
    assert (voided.of_payment, voided.status) == (held.id, "voided")
    paid = await client.cards.charge(CardCharge(amount=1000, customerId=vault.id), attempt_id="a-5")
    sandbox.settle()
    refunded = await client.cards.refund(PaymentRefund(paymentId=paid.id, amount=400, reason="requested_by_customer"),
                                         attempt_id="a-6")
    assert (refunded.status, refunded.refunded_amount) == ("partially_refunded", 400)


async def test_a_bulk_charge_is_queued_and_its_payments_found_later(clients):
    client = clients["B"]
    one, two = await customer(client, "424242******4242"), await customer(client, "555555******4444")
    request = BulkCharge(payments=[
        BulkChargeItem(amount=1100, customerVaultId=one.id, order={"externalId": "a-b1"}),
        BulkChargeItem(amount=1200, customerVaultId=two.id, order={"externalId": "a-b2"})])
    queued = await client.cards.bulk_charge(request, attempt_id="a-b1")
    assert queued.success is True

    deadline = time.monotonic() + 5.0
    while len(made := (await client.list_transactions()).data) < 2:
        assert time.monotonic() < deadline, "the queued payments were never made"
        await asyncio.sleep(0.05)
    assert sorted((t.base_amount, t.user_agent.endswith("attempt a-b1)")) for t in made) == [(1100, True),
                                                                                             (1200, True)]


async def test_a_money_moving_call_is_never_retried(clients, sandbox):
    client = clients["B"]
    vault = await customer(client, "424242******4242")
    sandbox.set_faults(error_5xx_after_next=1)
    before = money_requests(sandbox)
    with pytest.raises(e.ServerError):
        await client.cards.charge(CardCharge(amount=1500, customerId=vault.id), attempt_id="a-1")
    assert money_requests(sandbox) == before + 1
    assert len(sandbox.stats()["payments"]) == 1  # it was charged: the caller must look it up, never resend
    with pytest.raises(ValueError, match="attempt id"):
        await client.cards.charge(CardCharge(amount=1500, customerId=vault.id), attempt_id="")


@pytest.mark.parametrize(("build", "says"), [
    (lambda: CardCharge(amount=1500), "code 901"),
    (lambda: CardCharge(amount=1500, card=ChargeCard(name="A")), "code 902"),
    (lambda: CardCharge(amount=1500, card=ChargeCard(paymentToken="t")), "code 905"),
    (lambda: CardCharge(amount=0, customerId="0" * 24), "more than 0"),
    (lambda: CardCharge(amount=12.5, customerId="0" * 24), "whole number of cents"),
    (lambda: CardCharge(amount=1500, customerId="not-hex"), "24-character hexadecimal"),
    (lambda: CardCharge(amount=1500, card=ChargeCard(paymentToken="t", number="42424242*4242")), "masked"),
    (lambda: PaymentVoid(paymentId="p", reason="because"), "reason"),
    (lambda: void_reason("because"), "must be one of"),
    (lambda: PaymentRefund(paymentId="p", amount=100, reason=" "), "reason"),
    (lambda: PaymentRefund(paymentId="p", amount=100, reason="x", phoneNumber="555-123-4567"), "phone"),
    (lambda: BulkCharge(payments=[]), "payments"),
])
def test_bad_input_is_refused_with_a_sentence_before_anything_is_sent(build, says):
    with pytest.raises(e.InvalidInput, match=says):
        build()


def test_an_amount_in_dollars_is_never_read_as_cents():
    """The trap the other way: a charge answered with ``12.5`` (dollars) or ``"1250"`` keeps no
    amount (the raw value set aside), so nothing can be approved "for the amount asked"."""
    from pos_app.api.parsing import parse_answer
    from pos_app.journal import Operation
    from pos_app.terminal.charges import charge_evidence

    for raw in (b"12.5", b'"1250"', b"true"):
        answer = parse_answer("card.charge", b'{"data": {"id": "p-1", "paid": true, "amount": ' + raw + b"}}")
        assert answer.amount is None and "amount" in answer.odd_fields
        assert charge_evidence(answer, Operation.CARD_CHARGE, 1250, held=False).outcome is None
