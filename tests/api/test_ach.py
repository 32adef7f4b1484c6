"""ACH payments through the client against the sandbox over loopback: charge, void, refund
and the ACH list, the reference's checks before anything is sent."""

from __future__ import annotations

import pytest

from pos_app.api import errors as e
from pos_app.api.charge_models import AchCharge, AchData, PaymentRefund, PaymentVoid

ACCOUNT = AchData(accountType="personalChecking", routingNumber="021000021", accountNumber="123456789")


async def test_charge_list_and_void(clients):
    client = clients["B"]
    made = await client.ach.charge(AchCharge(amount=2500, achData=ACCOUNT), attempt_id="a-1")
    assert (made.paid, made.amount, made.card) == (True, 2500, None)
    listed = await client.ach.list()
    assert [p.id for p in listed.data] == [made.id] and listed.data[0].ach.last4 == "6789"
    assert (await client.ach.list(last4="0000")).data == []
    voided = await client.ach.void(PaymentVoid(paymentId=made.id, reason="user_cancel"), attempt_id="a-2")
    assert voided.status == "voided"


async def test_a_refund_waits_for_settlement_and_six_minutes(clients, sandbox):
    client = clients["B"]
    made = await client.ach.charge(AchCharge(amount=2500, achData=ACCOUNT), attempt_id="a-1")
    sandbox.settle()
    with pytest.raises(e.ServiceError, match="6 minutes"):
        await client.ach.refund(PaymentRefund(paymentId=made.id, amount=500, reason="x"), attempt_id="a-2")
    sandbox.set_faults(clock_offset_s=400)
    refunded = await client.ach.refund(PaymentRefund(paymentId=made.id, amount=500, reason="x"), attempt_id="a-3")
    assert (refunded.status, refunded.refunded_amount) == ("partially_refunded", 500)


async def test_an_unknown_tax_is_404(clients):
    with pytest.raises(e.NotFound):
        await clients["B"].ach.charge(AchCharge(amount=2500, achData=ACCOUNT, taxes=["nope"]), attempt_id="a-1")


@pytest.mark.parametrize(("build", "says"), [
    (lambda: AchCharge(amount=100), "customerId"),
    (lambda: AchData(last4="12"), "four digits"),
    (lambda: AchData(accountType="savings"), "accountType"),
    (lambda: AchData(phoneNumber="555-123-4567"), "phone"),
    (lambda: AchCharge(amount=100, customerId="xyz"), "24-character"),
])
def test_bad_input_is_refused_before_sending(build, says):
    with pytest.raises(e.InvalidInput, match=says):
        build()


async def test_list_queries_are_checked_before_sending(clients, sandbox):
    with pytest.raises(e.InvalidInput, match="YYYY-MM-DD"):
        await clients["B"].ach.list(start_day="25/11/2026")
    assert "ach.list" not in sandbox.stats()["requests"].get("B", {})
