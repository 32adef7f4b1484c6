"""Type S (asynchronous) pay and pre-auth: messages, polling, test amounts."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from pos_app.api.routes import ROUTES
from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.sandbox.helpers import (
    B_TERMINAL,
    S_INACTIVE,
    S_TERMINAL,
    USER_AGENT,
    body,
    call,
    pay,
    pay_s_completed,
    poll_until,
)
from tests.waiting import wait_until


def _message_id(response: httpx.Response) -> str:
    assert response.status_code == 201, response.text
    return body(response)["msgIdentifier"]


def test_pay_answers_a_message_to_poll(s_client):
    answer = body(pay(s_client, S_TERMINAL, 1250))
    assert answer["msgIdentifier"].startswith("m-")
    assert answer["pollUrl"] == ROUTES["terminal.poll_message"].format(messageId=answer["msgIdentifier"])
    assert answer["status"] == "received"
    assert "transactionId" not in answer


def test_message_moves_received_processing_complete():
    with (
        SandboxServer(SandboxConfig(s_delay=(1.0, 1.0))) as server,
        httpx.Client(base_url=server.base_url, headers={"key-hash": server.keys["S"]}) as client,
    ):
        message_id = _message_id(pay(client, S_TERMINAL, 1250))
        seen: list[str] = []

        def record() -> bool:
            status = body(call(client, "terminal.poll_message", messageId=message_id))["status"]
            if not seen or seen[-1] != status:
                seen.append(status)
            return status == "complete"

        wait_until(record, interval=0.05)
        assert seen == ["received", "processing", "complete"]


def test_approved_sale_payment(s_client, sandbox):
    payment = pay_s_completed(s_client, 1250, orderNumber="A-17")
    assert payment["paid"] is True and payment["status"] == "captured" and payment["error"] is None
    assert payment["amount"] == 1250
    assert payment["netAmount"] == 1250 + payment["surcharge"]
    assert set(payment["card"]) >= {"last4", "network", "brand", "type"}
    assert payment["currency"] == "USD" and payment["settled"] is False
    assert [p["userAgent"] for p in sandbox.stats()["payments"]] == [USER_AGENT]
    message = sandbox.stats()["messages"][0]
    assert message["status"] == "complete" and message["completedAt"] is not None


def test_approved_pre_auth_payment(s_client):
    payment = pay_s_completed(s_client, 2000, route="terminal.auth")
    assert payment["paid"] is True and payment["status"] == "auth"


def test_amount_below_100_completes_with_a_declined_payment(s_client):
    payment = pay_s_completed(s_client, 99)
    assert payment["paid"] is False and payment["status"] == "declined" and payment["error"]
    entry = body(call(s_client, "transactions.list"))["data"][0]
    assert entry["paymentId"] == payment["id"] and entry["error"]


def test_9901_message_fails_without_a_payment(s_client, sandbox):
    final = poll_until(s_client, _message_id(pay(s_client, S_TERMINAL, 9901)), {"failed", "complete"})
    assert final["status"] == "failed" and final["error"] == "gateway failure"
    assert "paymentId" not in final
    assert sandbox.stats()["payments"] == []


def test_9902_timeout_then_complete(s_client, sandbox):
    sandbox.set_faults(timeout_hold_s=0.3)
    message_id = _message_id(pay(s_client, S_TERMINAL, 9902))
    assert poll_until(s_client, message_id, {"timeout", "complete"})["status"] == "timeout"
    done = poll_until(s_client, message_id, {"complete"})
    payment = body(call(s_client, "payment.get", id=done["paymentId"]))["data"]
    assert payment["paid"] is True


def test_9903_stays_in_timeout_but_the_payment_exists(s_client, sandbox):
    message_id = _message_id(pay(s_client, S_TERMINAL, 9903))
    assert poll_until(s_client, message_id, {"timeout", "complete"})["status"] == "timeout"
    entry = wait_until(lambda: body(call(s_client, "transactions.list"))["data"])[0]
    assert entry["baseAmount"] == 9903 and entry["userAgent"] == USER_AGENT and entry["error"] is None
    assert poll_until(s_client, message_id, {"timeout"})["status"] == "timeout"
    assert sandbox.stats()["messages"][0]["completedAt"] is None


def test_9904_declines_at_once_without_a_message(s_client, sandbox):
    response = pay(s_client, S_TERMINAL, 9904)
    assert response.status_code == 201
    answer = body(response)
    assert answer["error"] is True and answer["gwResponse"]["resultTxt"] == "DECLINED"
    assert "msgIdentifier" not in answer
    assert sandbox.stats()["messages"] == [] and sandbox.stats()["payments"] == []


def test_9905_is_approved_for_type_s(s_client):
    assert pay_s_completed(s_client, 9905)["paid"] is True


def test_9906_charges_then_drops_the_answer(s_client, sandbox):
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        pay(s_client, S_TERMINAL, 9906)
    assert [m["amount"] for m in sandbox.stats()["messages"]] == [9906]
    entry = wait_until(lambda: body(call(s_client, "transactions.list"))["data"])[0]
    assert entry["baseAmount"] == 9906 and entry["userAgent"] == USER_AGENT


def test_9907_first_polls_answer_429(s_client, sandbox):
    sandbox.set_faults(poll_429_count=2)
    message_id = _message_id(pay(s_client, S_TERMINAL, 9907))
    for _ in range(2):
        response = call(s_client, "terminal.poll_message", messageId=message_id)
        assert response.status_code == 429 and response.headers["retry-after"] == "1"
        assert body(response)["response"]["error"] == "Too Many Requests"
    assert poll_until(s_client, message_id, {"complete"})["paymentId"]


def test_9908_is_503_before_anything_is_charged(s_client, sandbox):
    response = pay(s_client, S_TERMINAL, 9908)
    assert response.status_code == 503
    assert body(response)["response"]["statusCode"] == 503
    assert sandbox.stats()["messages"] == []


def test_charge_shows_in_transactions_without_polling(s_client):
    pay(s_client, S_TERMINAL, 1500)
    entry = wait_until(lambda: body(call(s_client, "transactions.list"))["data"])[0]
    assert entry["baseAmount"] == 1500 and entry["captured"] == "true"


def test_poll_rate_limit_answers_429_with_retry_after(s_client, sandbox):
    sandbox.set_faults(rate_limit_per_minute=3)
    message_id = _message_id(pay(s_client, S_TERMINAL, 1250))
    for _ in range(3):
        assert call(s_client, "terminal.poll_message", messageId=message_id).status_code == 200
    response = call(s_client, "terminal.poll_message", messageId=message_id)
    assert response.status_code == 429
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert body(response)["response"] == {
        "statusCode": 429, "message": body(response)["response"]["message"], "error": "Too Many Requests"
    }


def test_poll_unknown_message_and_type_b_key_are_404(s_client, b_client):
    assert call(s_client, "terminal.poll_message", messageId="m-nope").status_code == 404
    assert call(b_client, "terminal.poll_message", messageId="m-nope").status_code == 404


@pytest.mark.parametrize(
    "amount", [True, Decimal("12.5"), Decimal("1250.0"), "1250", 0, -5]
)
def test_amount_must_be_a_positive_integer(s_client, amount):
    response = pay(s_client, S_TERMINAL, amount)
    assert response.status_code == 400
    answer = body(response)
    assert answer["response"]["code"] == 900
    assert [m for m in answer["response"]["message"] if m.startswith("amount")]


def test_validation_lists_one_message_per_failed_field(s_client):
    response = call(s_client, "terminal.pay", json={"terminalId": "", "amount": "x", "phone": "555-123-4567"})
    answer = body(response)
    assert response.status_code == 400 and answer["statusCode"] == 400
    messages = answer["response"]["message"]
    assert len(messages) == 4  # terminalId, amount, receipt, phone
    assert answer["path"] == "/v1" + ROUTES["terminal.pay"].path
    assert answer["timestamp"].endswith("Z") and answer["message"]


def test_receipt_needs_email_or_phone_on_type_s(s_client):
    assert pay(s_client, S_TERMINAL, 1250, receipt=True).status_code == 400
    assert pay(s_client, S_TERMINAL, 1250, receipt=True, phone="(555) 123-4567").status_code == 201


def test_optional_fields_are_checked(s_client):
    custom = [{"key": "cashier", "label": "Cashier", "value": "41"}]
    good = {"orderNumber": "A-1", "email": "a@b.co", "taxes": [], "customValues": custom}
    assert pay(s_client, S_TERMINAL, 1250, **good).status_code == 201
    assert pay(s_client, S_TERMINAL, 1250, taxes=["nope"]).status_code == 400
    assert pay(s_client, S_TERMINAL, 1250, customValues=[{"key": "unknown", "value": "1"}]).status_code == 400
    assert pay(s_client, S_TERMINAL, 1250, email="not-an-email").status_code == 400


def test_terminal_ownership_and_state(s_client):
    response = pay(s_client, B_TERMINAL, 1250)
    assert response.status_code == 401 and body(response)["response"]["error"] == "Unauthorized"
    assert pay(s_client, "ts-9999", 1250).status_code == 404
    response = pay(s_client, S_INACTIVE, 1250)
    assert response.status_code == 400
    assert body(response)["response"]["text"] == "terminal is inactive"


def test_missing_or_unknown_key_is_401(sandbox):
    with httpx.Client(base_url=sandbox.base_url) as client:
        response = call(client, "tax.list")
        assert response.status_code == 401
        assert set(body(response)) == {"statusCode", "timestamp", "path", "message", "response"}
        client.headers["key-hash"] = "wrong"
        assert call(client, "tax.list").status_code == 401


def test_receipt_goes_to_email_over_phone_on_type_s(s_client):
    payment = pay_s_completed(s_client, 1250, receipt=True, email="a@b.co", phone="5551234567")
    assert payment["receiptSentTo"] == ["a@b.co"] and payment["contact"]["phone"] == "5551234567"
