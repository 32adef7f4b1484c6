"""Every answer parser turns arbitrary JSON and truncated bodies into ProtocolError, never another exception."""

import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pos_app.api.errors import ApiError, ProtocolError, error_from_answer
from pos_app.api.parsing import RESPONSE_PARSERS, parse_answer
from pos_app.api.routes import ROUTES

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["data", "meta", "msgIdentifier", "status", "error", "transactionId", "paymentId",
                         "amount", "salesPrice", "success", "pdfData", "id", "name", "paid", "gwResponse",
                         "rate", "surcharge", "text", "total", "page", "limit"]) | st.text(max_size=8),
        children, max_size=6),
    max_leaves=20,
)

ROUTE_NAMES = sorted(RESPONSE_PARSERS)


def test_every_route_has_a_parser():
    assert set(RESPONSE_PARSERS) == set(ROUTES)


@pytest.mark.parametrize("route", ROUTE_NAMES)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(value=json_values)
def test_arbitrary_json_parses_or_raises_protocol_error(route, value):
    content = json.dumps(value).encode()
    try:
        parse_answer(route, content)
    except ProtocolError as error:
        assert error.raw == content


@pytest.mark.parametrize("route", ROUTE_NAMES)
@settings(max_examples=60, deadline=None)
@given(value=json_values, cut=st.integers(min_value=0, max_value=200))
def test_truncated_bodies_raise_protocol_error(route, value, cut):
    content = json.dumps({"data": value, "meta": {"count": 1}})
    truncated = content[: min(cut, len(content) - 1)].encode()
    with pytest.raises(ProtocolError):
        parse_answer(route, truncated)


@settings(max_examples=200, deadline=None)
@given(
    status=st.integers(min_value=400, max_value=999),
    content=st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()),
)
def test_error_answers_always_map_to_an_api_error(status, content):
    assert isinstance(error_from_answer(status, content), ApiError)


def test_parsed_money_is_never_a_float():
    payment = parse_answer("payment.get", b'{"data": {"id": "p1", "paid": true, "amount": 1250, "netAmount": 1288}}')
    assert type(payment.amount) is int and payment.surcharge == 38
    quote = parse_answer("surcharge.rate", b'{"surcharge": 38, "rate": 3.0, "type": "credit"}')
    assert isinstance(quote.rate, Decimal)
