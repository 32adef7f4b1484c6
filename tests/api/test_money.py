"""Money stays integer cents; dollars only at the catalog edge, converted exactly."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos_app.api.errors import InvalidInput
from pos_app.api.money import (
    cents_to_dollars,
    dollars_to_cents,
    parse_cents,
    percent_of,
    require_cents,
    require_phone,
)
from pos_app.api.wire import decode_json, encode_json


@pytest.mark.parametrize("text", ["0", "-5", "12.50", "1e3", "", "abc", "10000001"])
def test_parse_cents_refuses_non_positive_non_integer_and_over_limit(text):
    with pytest.raises(InvalidInput):
        parse_cents(text, maximum=10_000_000)


def test_parse_cents_accepts_the_limit_itself():
    assert parse_cents(" 10000000 ", maximum=10_000_000) == 10_000_000


@pytest.mark.parametrize("value", [True, 1.0, "100", None, Decimal("100")])
def test_require_cents_refuses_anything_but_int(value):
    with pytest.raises(InvalidInput):
        require_cents(value)


@pytest.mark.parametrize("phone", ["5551234567", "(555) 123-4567", "555 123-4567", "+5551234567", "(555)1234567"])
def test_phone_pattern_accepts_us_formats(phone):
    assert require_phone(phone) == phone


@pytest.mark.parametrize("phone", ["555-123-4567", "555 1234 567", "12345", "(555) 123 4567x", ""])
def test_phone_pattern_refuses_what_the_service_refuses(phone):
    with pytest.raises(InvalidInput, match="not a US number"):
        require_phone(phone)


@given(st.integers(min_value=-10**12, max_value=10**12))
def test_cents_dollars_round_trip_exactly(cents):
    assert dollars_to_cents(cents_to_dollars(cents)) == cents


def test_dollars_from_the_wire_are_exact():
    body = decode_json(b'{"salesPrice": 19.99, "n": 3}')
    assert body["salesPrice"] == Decimal("19.99") and dollars_to_cents(body["salesPrice"]) == 1999
    assert encode_json({"salesPrice": cents_to_dollars(1999)}) == b'{"salesPrice":19.99}'


@pytest.mark.parametrize("value", [Decimal("0.001"), "1.005", 1.5, "NaN", "x"])
def test_dollars_with_sub_cent_or_float_or_garbage_are_refused(value):
    with pytest.raises(InvalidInput):
        dollars_to_cents(value)


def test_floats_are_never_encoded():
    with pytest.raises(TypeError):
        encode_json({"amount": 1.5})


def test_percent_rounds_half_up_per_line():
    assert percent_of(1000, Decimal("8.25")) == 83  # 82.5 -> 83
    assert percent_of(1001, Decimal("3")) == 30  # 30.03 -> 30



@pytest.mark.parametrize("value", ["1E+999999", "1E+99999", "1E+30", "10000000000000000", "-1E+16"])
def test_dollars_too_large_to_be_a_price_are_refused_at_once(value):
    with pytest.raises(InvalidInput, match="too large"):  # never decimal.Overflow, never a huge int
        dollars_to_cents(value)


def test_dollars_are_checked_exactly_beyond_the_context_precision():
    with pytest.raises(InvalidInput, match="fraction of a cent"):
        dollars_to_cents("1.000000000000000000000000000001")  # 31 digits: not rounded to 1.00
    assert dollars_to_cents("9999999999999999.99") == 999_999_999_999_999_999
    assert dollars_to_cents("1.5000") == 150 and dollars_to_cents("0E-10") == 0
