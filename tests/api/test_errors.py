"""Every error shape of reference section 7 becomes the right exception, with its details."""

import json

import pytest

from pos_app.api import errors as e
from pos_app.api.errors import error_from_answer


def service_body(status, code, text, messages=None):
    return json.dumps({
        "statusCode": status, "timestamp": "2026-11-22T10:00:00.000Z", "path": "/v1/public/terminal/pay",
        "message": "Exception summary", "response": {"code": code, "text": text, "message": messages},
    }).encode()


def status_body(status, message, error):
    return json.dumps({
        "statusCode": status, "timestamp": "2026-11-22T10:00:00.000Z", "path": "/v1/public/terminal/pay",
        "message": "not for display", "response": {"statusCode": status, "message": message, "error": error},
    }).encode()


def test_validation_900_lists_each_field():
    messages = ["amount must be positive", "phone is invalid"]
    err = error_from_answer(400, service_body(400, 900, "Request validation failed", messages))
    assert type(err) is e.ValidationFailed
    assert err.code == "900" and err.messages == ["amount must be positive", "phone is invalid"]
    assert err.path == "/v1/public/terminal/pay"


@pytest.mark.parametrize("code", [900, "900"])
def test_numeric_and_string_codes_compare_as_strings(code):
    assert error_from_answer(400, service_body(400, code, "x")).code == "900"


def test_gateway_code_is_a_string_service_error():
    err = error_from_answer(400, service_body(400, "205", "Declined by issuer"))
    assert type(err) is e.ServiceError and err.code == "205" and err.text == "Declined by issuer"


def test_void_400_texts_are_kept_to_tell_settled_from_missing():
    settled = error_from_answer(400, service_body(400, 110, "payment already settled"))
    missing = error_from_answer(400, service_body(400, 110, "no transaction with the id"))
    assert settled.text != missing.text and isinstance(settled, e.ServiceError)


@pytest.mark.parametrize("status,meaning", [
    (901, "card or payment method required"), (902, "vault id or payment token required"),
    (903, "charge request error"), (904, "transaction type not allowed for the merchant"),
    (905, "card number required"), (906, "customer not found"),
])
def test_statuses_901_to_906_are_charge_request_errors(status, meaning):
    err = error_from_answer(status, service_body(status, status, "charge error"))
    assert type(err) is e.ChargeRequestError and err.status_code == status
    assert err.code == str(status) and meaning in err.meaning


@pytest.mark.parametrize("status,cls", [(401, e.Unauthorized), (404, e.NotFound), (429, e.RateLimited)])
def test_status_bodies(status, cls):
    err = error_from_answer(status, status_body(status, "Terminal not found", "Not Found"))
    assert type(err) is cls and err.text == "Terminal not found" and err.code is None


def test_rate_limited_keeps_retry_after():
    assert error_from_answer(429, status_body(429, "slow down", "Too Many Requests"), "7").retry_after == 7.0


def test_501_is_a_gateway_decline():
    err = error_from_answer(501, status_body(501, "Declined before a transaction id", "Not Implemented"))
    assert type(err) is e.GatewayDeclined and err.transaction_id is None and "Declined" in err.text


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_a_server_error(status):
    assert type(error_from_answer(status, b"<html>bad gateway</html>")) is e.ServerError


def test_error_text_never_crashes_on_garbage():
    err = error_from_answer(400, b"\xff\xfe not json")
    assert isinstance(err, e.StatusError) and err.status_code == 400


def test_invalid_input_is_also_a_value_error():
    assert issubclass(e.InvalidInput, ValueError) and issubclass(e.InvalidInput, e.PaymentsError)
