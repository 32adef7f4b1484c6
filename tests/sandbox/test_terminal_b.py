"""Type B (synchronous) pay and pre-auth, test amounts, and the terminal lists."""

from __future__ import annotations

import httpx
import pytest

from tests.sandbox.helpers import (
    B_INACTIVE,
    B_TERMINAL,
    S_INACTIVE,
    S_TERMINAL,
    USER_AGENT,
    body,
    call,
    pay,
    pay_b_approved,
)


def test_approved_sale_answers_at_once(b_client, sandbox):
    answer = body(pay(b_client, B_TERMINAL, 1234))
    assert answer["error"] is False
    assert answer["gwResponse"] == {"resultCode": "0", "resultTxt": "APPROVED"}
    assert answer["amount"] == 1234 and answer["transactionId"] and answer["paymentId"]
    assert "msgIdentifier" not in answer
    payment = body(call(b_client, "payment.get", id=answer["paymentId"]))["data"]
    assert payment["transactionId"] == answer["transactionId"]
    assert payment["status"] == "captured" and payment["paid"] is True
    assert sandbox.stats()["payments"][0]["userAgent"] == USER_AGENT


def test_pre_auth(b_client):
    assert pay_b_approved(b_client, 5000, route="terminal.auth")["status"] == "auth"


def test_amount_below_100_is_a_2xx_decline_with_a_transaction_id(b_client):
    response = pay(b_client, B_TERMINAL, 50)
    answer = body(response)
    assert response.status_code == 201 and answer["error"] is True and answer["transactionId"]
    payment = body(call(b_client, "payment.get", id=answer["paymentId"]))["data"]
    assert payment["status"] == "declined" and payment["paid"] is False and payment["error"]


def test_9901_gateway_failure_charges_nothing(b_client, sandbox):
    response = pay(b_client, B_TERMINAL, 9901)
    assert response.status_code == 400
    assert body(response)["response"]["text"] == "gateway failure"
    assert isinstance(body(response)["response"]["code"], str)
    assert sandbox.stats()["payments"] == []


@pytest.mark.parametrize("amount", [9902, 9903, 9907, 100, 10_000_000])
def test_type_s_only_amounts_are_approved(b_client, amount):
    assert pay_b_approved(b_client, amount)["amount"] == amount


def test_9904_declines_without_a_transaction_id(b_client, sandbox):
    answer = body(pay(b_client, B_TERMINAL, 9904))
    assert answer["error"] is True and "transactionId" not in answer
    assert sandbox.stats()["payments"] == []


def test_9905_is_501_with_the_status_body(b_client, sandbox):
    response = pay(b_client, B_TERMINAL, 9905)
    assert response.status_code == 501
    assert body(response)["response"]["error"] == "Not Implemented"
    assert sandbox.stats()["payments"] == []


def test_9906_charges_then_drops_the_answer(b_client, sandbox):
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        pay(b_client, B_TERMINAL, 9906)
    payments = sandbox.stats()["payments"]
    assert [(p["amount"], p["paid"], p["userAgent"]) for p in payments] == [(9906, True, USER_AGENT)]


def test_9908_is_503(b_client, sandbox):
    assert pay(b_client, B_TERMINAL, 9908).status_code == 503
    assert sandbox.stats()["payments"] == []


def test_receipt_needs_both_email_and_phone_on_type_b(b_client):
    response = pay(b_client, B_TERMINAL, 1250, receipt=True, email="a@b.co")
    assert response.status_code == 400
    assert any("phone" in m for m in body(response)["response"]["message"])
    assert pay(b_client, B_TERMINAL, 1250, receipt=True, email="a@b.co", phone="5551234567").status_code == 201


def test_terminal_ownership_and_state(b_client):
    assert pay(b_client, S_TERMINAL, 1250).status_code == 401
    assert pay(b_client, "tb-0000", 1250).status_code == 404
    response = pay(b_client, B_INACTIVE, 1250)
    assert response.status_code == 400 and body(response)["response"]["text"] == "terminal is inactive"


def test_type_b_terminal_list_is_paginated(b_client):
    answer = body(call(b_client, "terminal.list"))
    assert answer["meta"] == {"count": 3, "totalPages": 1, "page": 1, "limit": 10}
    assert all(set(row) == {"id", "name"} for row in answer["data"])
    answer = body(call(b_client, "terminal.list", params={"page": 2, "limit": 2, "timezone": "America/New_York"}))
    assert answer["meta"] == {"count": 3, "totalPages": 2, "page": 2, "limit": 2}
    assert [row["id"] for row in answer["data"]] == [B_INACTIVE]
    assert call(b_client, "terminal.list", params={"timezone": "Mars/Olympus"}).status_code == 400
    assert call(b_client, "terminal.list", params={"page": "0"}).status_code == 400


def test_type_s_terminal_list_has_every_terminal(s_client):
    answer = body(call(s_client, "terminal.list", params={"page": 2, "limit": 1}))
    assert answer["total"] == 3 and len(answer["data"]) == 3
    assert all(set(row) == {"id", "name", "serialNumber", "isActive"} for row in answer["data"])
    assert [row["isActive"] for row in answer["data"] if row["id"] == S_INACTIVE] == [False]


def test_terminal_ids_are_distinct_across_merchants(s_client, b_client):
    s_ids = {row["id"] for row in body(call(s_client, "terminal.list"))["data"]}
    b_ids = {row["id"] for row in body(call(b_client, "terminal.list"))["data"]}
    assert len(s_ids) == len(b_ids) == 3 and not s_ids & b_ids


def test_request_details_are_kept_on_the_payment(b_client):
    custom = [{"key": "station", "label": "Station", "value": "2"}]
    payment = pay_b_approved(b_client, 1250, receipt=True, email="a@b.co", phone="5551234567", customValues=custom)
    assert payment["receiptSentTo"] == ["a@b.co", "5551234567"] and payment["customValues"] == custom
