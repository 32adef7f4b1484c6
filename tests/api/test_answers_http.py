"""The answer rules over real loopback HTTP: a canned server sends the odd shapes the
sandbox never does; the client raises, returns or refuses exactly as the parsers say."""

from __future__ import annotations

import pytest

from pos_app.api import errors as e
from pos_app.api import parsing
from pos_app.api.models import PayAccepted, TerminalResult
from pos_app.api.requests import CaptureRequest, CloseBatchRequest, PayRequest, RefundRequest, VoidRequest

APPROVED = {"resultCode": "0", "resultTxt": "APPROVED"}
PAY = "/public/terminal/pay"


def pay(client, attempt="a-1"):
    return client.pay(PayRequest(terminalId="t1", amount=1000), attempt_id=attempt)


@pytest.mark.parametrize("body", [
    {"error": True, "data": {"transactionId": "t-9", "paymentId": "p-9", "gwResponse": APPROVED}},
    {"data": {"error": True, "transactionId": "t-9", "gwResponse": APPROVED}},
    {"error": "Card declined", "transactionId": "t-9"},
])
async def test_a_wrapped_or_inner_error_raises_gateway_declined_with_its_id(canned, canned_client, body):
    canned.answer("POST", PAY, body)
    with pytest.raises(e.GatewayDeclined) as declined:
        await pay(canned_client)
    assert declined.value.status_code == 200 and declined.value.transaction_id == "t-9"
    assert isinstance(declined.value.result, TerminalResult) and not declined.value.result.proves_approval


async def test_a_message_id_with_an_error_flag_is_declined_not_accepted(canned, canned_client):
    canned.answer("POST", "/public/terminal/auth", {"error": True, "data": {"msgIdentifier": "m-1"}})
    with pytest.raises(e.GatewayDeclined):
        await canned_client.auth(PayRequest(terminalId="t1", amount=1000), attempt_id="a-2")
    canned.answer("POST", "/public/terminal/auth", {"error": False, "msgIdentifier": "m-1"})
    accepted = await canned_client.auth(PayRequest(terminalId="t1", amount=1000), attempt_id="a-3")
    assert isinstance(accepted, PayAccepted) and accepted.msg_identifier == "m-1"


@pytest.mark.parametrize("path,call", [
    (PAY, lambda c: pay(c)),
    ("/public/terminal/capture", lambda c: c.capture(CaptureRequest(terminalId="t", pnRefNum="r", amount=5),
                                                     attempt_id="a-c")),
    ("/public/terminal/void", lambda c: c.void(VoidRequest(terminalId="t", pnRefNum="r"), attempt_id="a-v")),
    ("/public/terminal/refund", lambda c: c.refund(RefundRequest(terminalId="t", pnRefNum="r", amount=5),
                                                   attempt_id="a-r")),
])
async def test_results_without_ids_are_returned_and_prove_nothing(canned, canned_client, path, call):
    canned.answer("POST", path, {"error": False, "gwResponse": APPROVED})
    result = await call(canned_client)
    assert isinstance(result, TerminalResult) and not result.error and not result.proves_approval
    canned.answer("POST", path, {"data": {"error": False, "transactionId": "t-1", "gwResponse": APPROVED}})
    assert (await call(canned_client)).proves_approval


async def test_an_unreadable_error_flag_is_a_protocol_error(canned, canned_client):
    canned.answer("POST", PAY, {"error": 1, "transactionId": "t-1", "gwResponse": APPROVED})
    with pytest.raises(e.ProtocolError):
        await pay(canned_client)


@pytest.mark.parametrize("body", [
    {"error": True, "data": {"success": True, "message": "closed"}},
    {"status": "received", "data": {"success": True}},
    {"status": "success", "error": True},
    {"data": {"success": False, "message": "host unavailable"}},
])
async def test_close_batch_not_success_raises(canned, canned_client, body):
    canned.answer("POST", "/public/terminal/close-batch", body)
    with pytest.raises(e.GatewayDeclined) as declined:
        await canned_client.close_batch(CloseBatchRequest(terminalId="t1"), attempt_id="a-cb")
    assert declined.value.result.success is False


async def test_close_batch_both_shapes_saying_success(canned, canned_client):
    canned.answer("POST", "/public/terminal/close-batch", {"status": "success", "data": {"success": True}})
    assert (await canned_client.close_batch(CloseBatchRequest(terminalId="t1"), attempt_id="a-cb")).success
    canned.answer("POST", "/public/terminal/close-batch", {"message": "done"})
    with pytest.raises(e.ProtocolError):
        await canned_client.close_batch(CloseBatchRequest(terminalId="t1"), attempt_id="a-cb2")


async def test_payment_paid_must_be_a_json_boolean(canned, canned_client):
    canned.answer("GET", "/public/payment/p-1", {"data": {"id": "p-1", "paid": "true", "refundedAmount": 300}})
    payment = await canned_client.get_payment("p-1")
    assert payment.paid is None and payment.odd_fields == {"paid": "true"} and payment.refunded_amount == 300


async def test_transaction_list_with_odd_entries(canned, canned_client):
    canned.answer("GET", "/public/transactions", {
        "meta": {"count": "4", "page": "1", "limit": "x", "totalPages": 1},
        "data": [
            "garbage",
            {"id": "e1", "type": "sale", "error": False, "captured": True, "amount": "12", "userAgent": 5,
             "device": {"terminalId": "t1"}},
            None,
            {"id": "e2", "type": "refund", "error": "declined", "captured": "false", "amount": 500},
        ],
    })
    page = await canned_client.list_transactions(page=1, limit=10)
    assert page.skipped == 2 and [entry.id for entry in page.data] == ["e1", "e2"]
    first, second = page.data
    assert first.odd_fields == {"amount": "12", "userAgent": 5} and first.amount is None and first.user_agent is None
    assert first.captured is True and not first.declined and first.terminal_id == "t1"
    assert second.declined and second.amount == 500 and second.type == "refund" and second.terminal_id is None
    assert page.meta.count == 4 and page.meta.limit is None and page.meta.odd_fields == {"limit": "x"}


async def test_a_parser_giving_the_wrong_type_is_a_protocol_error(canned, canned_client, monkeypatch):
    monkeypatch.setitem(parsing.RESPONSE_PARSERS, "payment.get", lambda body: "not a payment")
    canned.answer("GET", "/public/payment/p-1", {"data": {"id": "p-1", "paid": True}})
    with pytest.raises(e.ProtocolError, match="expected Payment"):
        await canned_client.get_payment("p-1")
    assert await canned_client.call("payment.get", path_params={"id": "p-1"}) == "not a payment"
