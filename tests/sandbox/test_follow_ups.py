"""Capture, void, refund and close batch for both merchants."""

from __future__ import annotations

import pytest

from tests.sandbox.helpers import (
    B_TERMINAL,
    S_TERMINAL,
    body,
    call,
    pay_b_approved,
    pay_s_completed,
)

TERMINALS = {"S": S_TERMINAL, "B": B_TERMINAL}


@pytest.fixture(params=["S", "B"])
def merchant(request, s_client, b_client):
    """(client, terminal id, make_payment) for each merchant."""
    code = request.param
    client = s_client if code == "S" else b_client
    maker = pay_s_completed if code == "S" else pay_b_approved

    def make(amount: int, route: str = "terminal.pay") -> dict:
        return maker(client, amount, route=route)

    return client, TERMINALS[code], make, code


def follow_up(client, route: str, terminal: str, payment: dict, amount: int | None = None):
    payload = {"terminalId": terminal, "pnRefNum": payment["transactionId"]}
    if amount is not None:
        payload["amount"] = amount
    return call(client, route, json=payload)


def fetch(client, payment: dict) -> dict:
    return body(call(client, "payment.get", id=payment["id"]))["data"]


def close_batch(client, terminal: str):
    response = call(client, "terminal.close_batch", json={"terminalId": terminal})
    assert response.status_code == 201, response.text
    return body(response)


def rejected_text(response) -> str:
    assert response.status_code == 400, response.text
    return body(response)["response"]["text"]


def test_capture_a_pre_auth(merchant):
    client, terminal, make, _ = merchant
    payment = make(5000, "terminal.auth")
    text = rejected_text(follow_up(client, "terminal.capture", terminal, payment, 5001))
    assert "exceeds the pre-authorized amount" in text
    response = follow_up(client, "terminal.capture", terminal, payment, 4000)
    answer = body(response)
    assert response.status_code == 201
    assert answer["error"] is False and answer["paymentId"] == payment["id"]
    assert answer["transactionId"] == payment["transactionId"] and answer["amount"] == 4000
    assert answer["gwResponse"]["resultTxt"] == "APPROVED"
    stored = fetch(client, payment)
    assert stored["status"] == "captured" and stored["amount"] == 4000
    assert stored["netAmount"] == 4000 + stored["surcharge"]
    assert "not an open pre-auth" in rejected_text(follow_up(client, "terminal.capture", terminal, payment, 100))


def test_capture_refuses_sales_and_large_amounts(merchant):
    client, terminal, make, _ = merchant
    payment = make(1500)
    assert "not an open pre-auth" in rejected_text(follow_up(client, "terminal.capture", terminal, payment, 100))
    response = follow_up(client, "terminal.capture", terminal, payment, 10_000_001)
    assert response.status_code == 400 and body(response)["response"]["code"] == 900


def test_void_rules(merchant):
    client, terminal, make, _ = merchant
    payment = make(2500)
    response = follow_up(client, "terminal.void", terminal, payment)
    answer = body(response)
    assert response.status_code == 201 and answer["error"] is False and answer["paymentId"] == payment["id"]
    assert fetch(client, payment)["status"] == "voided"
    assert "already voided" in rejected_text(follow_up(client, "terminal.void", terminal, payment))
    unknown = {"transactionId": "000000000000"}
    assert rejected_text(follow_up(client, "terminal.void", terminal, unknown)).startswith("no transaction with the id")


def test_void_of_a_settled_payment_is_refused(merchant):
    client, terminal, make, _ = merchant
    payment = make(2600)
    close_batch(client, terminal)
    assert rejected_text(follow_up(client, "terminal.void", terminal, payment)) == "payment already settled"


def test_refund_rules(merchant):
    client, terminal, make, _ = merchant
    payment = make(3000)
    assert "void it instead" in rejected_text(follow_up(client, "terminal.refund", terminal, payment, 100))
    close_batch(client, terminal)
    answer = body(follow_up(client, "terminal.refund", terminal, payment, 1000))
    assert answer["error"] is False and answer["amount"] == 1000
    assert answer["transactionId"] != payment["transactionId"]
    assert fetch(client, payment)["status"] == "partially_refunded"
    assert "remaining refundable balance 2000" in rejected_text(
        follow_up(client, "terminal.refund", terminal, payment, 2001)
    )
    assert body(follow_up(client, "terminal.refund", terminal, payment, 2000))["error"] is False
    assert fetch(client, payment)["status"] == "refunded"
    assert "fully refunded" in rejected_text(follow_up(client, "terminal.refund", terminal, payment, 1))
    response = follow_up(client, "terminal.refund", terminal, payment, 10_000_001)
    assert response.status_code == 400 and body(response)["response"]["code"] == 900


def test_refund_of_uncaptured_or_voided_payments_is_refused(merchant):
    client, terminal, make, _ = merchant
    auth = make(4000, "terminal.auth")
    assert "uncaptured pre-auth" in rejected_text(follow_up(client, "terminal.refund", terminal, auth, 100))
    follow_up(client, "terminal.void", terminal, auth)
    assert "voided" in rejected_text(follow_up(client, "terminal.refund", terminal, auth, 100))


def test_close_batch_settles_captured_payments(merchant):
    client, terminal, make, code = merchant
    sale = make(1100)
    auth = make(1200, "terminal.auth")
    answer = close_batch(client, terminal)
    if code == "B":
        assert answer == {"status": "success", "gwResponse": {"resultTxt": "BATCH CLOSED: 1 TRANSACTIONS"}}
    else:
        assert answer["data"]["success"] is True and "1" in answer["data"]["message"]
    assert fetch(client, sale)["settled"] is True
    assert fetch(client, auth)["settled"] is False
    entry = next(e for e in body(call(client, "transactions.list"))["data"] if e["paymentId"] == sale["id"])
    assert entry["settled"] is True and entry["voidable"] is False
    again = close_batch(client, terminal)
    assert "0" in (again["gwResponse"]["resultTxt"] if code == "B" else again["data"]["message"])


def test_close_batch_decline_knob(merchant, sandbox):
    client, terminal, make, code = merchant
    sale = make(1300)
    sandbox.set_faults(close_batch_decline_next=1)
    answer = close_batch(client, terminal)
    if code == "B":
        assert answer["status"] == "error" and answer["gwResponse"]["resultTxt"]
    else:
        assert answer["data"]["success"] is False and answer["data"]["message"]
    assert fetch(client, sale)["settled"] is False
    close_batch(client, terminal)
    assert fetch(client, sale)["settled"] is True


def test_close_batch_by_serial(s_client, b_client):
    serials = {row["id"]: row["serialNumber"] for row in body(call(s_client, "terminal.list"))["data"]}
    route = "terminal.close_batch_by_serial"
    response = call(s_client, route, json={"terminalId": serials[S_TERMINAL]})
    assert response.status_code == 201 and body(response)["data"]["success"] is True
    assert call(s_client, route, json={"terminalId": "no-such-serial"}).status_code == 401
    assert call(b_client, route, json={"terminalId": serials[S_TERMINAL]}).status_code == 404


def test_follow_ups_check_terminal_ownership(s_client, b_client):
    payment = pay_b_approved(b_client, 1400)
    response = follow_up(s_client, "terminal.void", S_TERMINAL, payment)
    assert response.status_code == 400  # S has no such transaction
    assert follow_up(s_client, "terminal.void", B_TERMINAL, payment).status_code == 401
    assert call(b_client, "terminal.close_batch", json={"terminalId": S_TERMINAL}).status_code == 401
