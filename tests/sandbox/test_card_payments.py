"""The sandbox's card and ACH payment routes over raw HTTP: the reference's states and texts,
the charge request errors, the test amounts and fault knobs of money-moving routes."""

from __future__ import annotations

from datetime import date

import httpx
import pytest

from tests.sandbox.helpers import body, call
from tests.waiting import wait_until

EXP = f"12{date.today().year + 1 - 2000:02d}"


def vault(client, *numbers: str) -> dict:
    cards = [{"number": number, "exp": EXP} for number in numbers]
    answer = call(client, "customer.create", json={"firstName": "Ada", "lastName": "Byron",
                                                    "email": "ada@example.com", "cards": cards})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def charge(client, **fields) -> httpx.Response:
    return call(client, "card.charge", json=fields)


def test_a_vault_is_charged_on_its_default_card_unless_another_is_named(b_client):
    customer = vault(b_client, "424242******4242", "555555******4444")
    default = body(charge(b_client, amount=1500, customerId=customer["id"]))["data"]
    assert (default["card"]["last4"], default["status"], default["paid"]) == ("4242", "captured", True)
    assert default["netAmount"] == 1500 + default["surcharge"]
    other = customer["paymentMethods"][1]["customerVaultId"]
    picked = body(charge(b_client, amount=1500, customerId=customer["id"], overrideDefaultPaymentMethod=other))
    assert picked["data"]["card"]["last4"] == "4444"


def test_charge_request_errors_are_the_status_901_to_906(b_client):
    customer = vault(b_client, "424242******4242")
    cases = {
        901: {"amount": 1500},
        902: {"amount": 1500, "card": {"name": "A"}},
        905: {"amount": 1500, "card": {"paymentToken": "tok-1"}},
        906: {"amount": 1500, "customerId": "0123456789abcdef01234567"},
    }
    for status, fields in cases.items():
        answer = charge(b_client, **fields)
        assert answer.status_code == status, (status, answer.text)
        assert body(answer)["response"]["code"] == status
    assert charge(b_client, amount=1500, customerId=customer["id"]).status_code == 201


def test_a_decline_comes_inside_a_2xx_and_is_recorded(b_client):
    customer = vault(b_client, "424242******4242")
    answer = charge(b_client, amount=99, customerId=customer["id"])
    assert answer.status_code == 201
    data = body(answer)["data"]
    assert (data["paid"], data["status"], data["error"]) == (False, "declined", "DECLINED")
    assert body(call(b_client, "payment.get", id=data["id"]))["data"]["status"] == "declined"


def test_the_order_external_id_is_stored_and_searchable(b_client):
    customer = vault(b_client, "424242******4242")
    made = body(charge(b_client, amount=1200, customerId=customer["id"], order={"externalId": "a-ext-1"}))["data"]
    charge(b_client, amount=1300, customerId=customer["id"], order={"externalId": "a-ext-2"})
    found = body(call(b_client, "transactions.list", params={"externalId": "a-ext-1"}))["data"]
    assert [(e["paymentId"], e["order"]["externalId"]) for e in found] == [(made["id"], "a-ext-1")]
    assert found[0]["userAgent"].endswith("attempt a-123)")


def test_a_pre_auth_is_captured_then_voided_and_never_refunded_unsettled(b_client):
    customer = vault(b_client, "424242******4242")
    held = body(charge(b_client, amount=2000, capture=False, customerId=customer["id"]))["data"]
    assert held["status"] == "auth"
    above = call(b_client, "card.capture", json={"paymentId": held["id"], "amount": 2001})
    assert above.status_code == 400 and "exceeds the pre-authorized amount" in above.text
    captured = call(b_client, "card.capture", json={"paymentId": held["id"], "amount": 1800})
    assert body(captured)["data"]["status"] == "captured" and body(captured)["data"]["amount"] == 1800
    refund = call(b_client, "card.refund", json={"paymentId": held["id"], "amount": 100, "reason": "duplicate"})
    assert refund.status_code == 400 and body(refund)["response"]["text"] == \
        "payment is not settled yet; void it instead"
    bad_reason = call(b_client, "card.void", json={"paymentId": held["id"], "reason": "because"})
    assert bad_reason.status_code == 400 and "reason must be one of" in bad_reason.text
    void = body(call(b_client, "card.void", json={"paymentId": held["id"], "reason": "user_cancel"}))["data"]
    assert (void["paymentId"], void["type"], void["status"]) == (held["id"], "void", "voided")
    again = call(b_client, "card.void", json={"paymentId": held["id"], "reason": "user_cancel"})
    assert body(again)["response"]["text"] == "payment already voided"


def test_a_settled_payment_is_refunded_in_parts_and_never_voided(sandbox, b_client):
    customer = vault(b_client, "424242******4242")
    paid = body(charge(b_client, amount=1000, customerId=customer["id"]))["data"]
    sandbox.settle()
    void = call(b_client, "card.void", json={"paymentId": paid["id"], "reason": "fraud"})
    assert body(void)["response"]["text"] == "payment already settled; refund it instead"
    first = body(call(b_client, "card.refund", json={"paymentId": paid["id"], "amount": 400, "reason": "x"}))
    assert first["data"]["status"] == "partially_refunded" and first["data"]["card"]["last4"] == "4242"
    over = call(b_client, "card.refund", json={"paymentId": paid["id"], "amount": 601, "reason": "x"})
    assert "remaining refundable balance 600" in over.text
    call(b_client, "card.refund", json={"paymentId": paid["id"], "amount": 600, "reason": "x"})
    done = call(b_client, "card.refund", json={"paymentId": paid["id"], "amount": 1, "reason": "x"})
    assert body(done)["response"]["text"] == "payment already fully refunded"


@pytest.mark.parametrize("knob", ["drop_next", "error_5xx_after_next"])
def test_a_lost_answer_still_made_the_charge(sandbox, b_client, knob):
    customer = vault(b_client, "424242******4242")
    sandbox.set_faults(**{knob: 1})
    try:
        answer = charge(b_client, amount=1500, customerId=customer["id"], order={"externalId": f"a-{knob}"})
        assert answer.status_code == 500
    except httpx.RemoteProtocolError:
        assert knob == "drop_next"
    found = body(call(b_client, "transactions.list", params={"externalId": f"a-{knob}"}))["data"]
    assert len(found) == 1 and found[0]["error"] is None


def test_test_amounts_501_and_503_charge_nothing(sandbox, b_client):
    customer = vault(b_client, "424242******4242")
    assert charge(b_client, amount=9905, customerId=customer["id"]).status_code == 501
    assert charge(b_client, amount=9908, customerId=customer["id"]).status_code == 503
    assert sandbox.stats()["payments"] == []


def test_a_bulk_charge_is_checked_whole_then_queued(sandbox, b_client):
    one, two = vault(b_client, "424242******4242"), vault(b_client, "555555******4444")
    bad = call(b_client, "card.bulk_charge", json={"payments": [
        {"amount": 100, "customerVaultId": one["id"]}, {"amount": 0, "customerId": "0123456789abcdef01234567"}]})
    assert bad.status_code == 400 and "payments.1.amount" in bad.text and "payments.1: customer not found" in bad.text
    queued = call(b_client, "card.bulk_charge", json={"payments": [
        {"amount": 1100, "customerVaultId": one["id"], "order": {"externalId": "a-b1"}},
        {"amount": 1200, "customerId": two["id"], "order": {"externalId": "a-b2"}}]})
    assert queued.status_code == 201 and body(queued)["success"] is True

    def made() -> list | None:
        rows = body(call(b_client, "transactions.list"))["data"]
        return rows if len(rows) == 2 else None

    rows = wait_until(made, timeout=5.0)
    assert sorted((r["order"]["externalId"], r["baseAmount"]) for r in rows) == [("a-b1", 1100), ("a-b2", 1200)]


def test_ach_payments_have_their_own_list_and_their_own_rules(sandbox, b_client):
    vault(b_client, "424242******4242")
    charge(b_client, amount=1500, customerId=vault(b_client, "424242******4242")["id"])
    bad = call(b_client, "ach.charge", json={"amount": 1000, "achData": {"accountType": "savings", "last4": "12"}})
    assert bad.status_code == 400 and "achData.last4" in bad.text and "achData.accountType" in bad.text
    unknown_tax = call(b_client, "ach.charge", json={"amount": 1000, "taxes": ["nope"], "achData": {
        "accountType": "personalChecking", "routingNumber": "021000021", "accountNumber": "123456789"}})
    assert unknown_tax.status_code == 404
    made = body(call(b_client, "ach.charge", json={"amount": 1000, "achData": {
        "accountType": "personalChecking", "routingNumber": "021000021", "accountNumber": "123456789"}}))["data"]
    assert made["ach"]["last4"] == "6789" and made["card"] is None and made["surcharge"] == 0
    listed = body(call(b_client, "ach.list"))
    assert [e["id"] for e in listed["data"]] == [made["id"]] and "status" not in listed["data"][0]
    assert body(call(b_client, "ach.list", params={"achLast4": "0000"}))["data"] == []
    sandbox.settle()
    early = call(b_client, "ach.refund", json={"paymentId": made["id"], "amount": 100, "reason": "x"})
    assert body(early)["response"]["text"] == "ACH payments become refundable 6 minutes after the charge"
    sandbox.set_faults(clock_offset_s=400)
    refunded = call(b_client, "ach.refund", json={"paymentId": made["id"], "amount": 100, "reason": "x"})
    assert body(refunded)["data"]["status"] == "partially_refunded"
    card_route = call(b_client, "card.refund", json={"paymentId": made["id"], "amount": 100, "reason": "x"})
    assert card_route.status_code == 400  # an ACH payment is not refunded by the card route
