"""PIN rules and the stored hash."""

from __future__ import annotations

import time

import pytest

from pos_app.staff import DEFAULT_PARAMS, InvalidPin, ScryptParams, check_pin
from pos_app.staff.pins import hash_pin, needs_rehash, parse_hash, verify_pin
from tests.staff.conftest import FAST


@pytest.mark.parametrize("pin", ["0000", "1234", "12345678", "00001"])
def test_four_to_eight_digits_are_pins(pin):
    assert check_pin(pin) == pin


@pytest.mark.parametrize("pin", ["", "123", "123456789", "12a4", " 1234", "1234\n", "12 34", "-123",
                                 "١٢٣٤", "１２３４", "12.5", None, 1234, b"1234"])
def test_anything_else_is_refused_with_a_value_error(pin):
    with pytest.raises(InvalidPin) as caught:
        check_pin(pin)
    assert isinstance(caught.value, ValueError)
    assert "4 to 8" in str(caught.value)
    if isinstance(pin, str) and len(pin) >= 4:
        assert pin not in str(caught.value)


def test_the_hash_carries_its_parameters_and_a_fresh_salt():
    first, second = hash_pin("4821", FAST), hash_pin("4821", FAST)
    assert first.startswith("scrypt$n=16,r=1,p=1$")
    assert first != second  # a new salt each time
    assert "4821" not in first
    assert verify_pin("4821", first) and verify_pin("4821", second)
    assert not verify_pin("4822", first)
    assert parse_hash(first).params == FAST


def test_a_stronger_cost_asks_for_a_rehash_and_a_weaker_one_does_not():
    weak = hash_pin("4821", FAST)
    assert needs_rehash(weak, ScryptParams(n=32, r=1, p=1))
    assert not needs_rehash(weak, FAST)
    assert not needs_rehash(hash_pin("4821", ScryptParams(n=64, r=1, p=1)), FAST)


@pytest.mark.parametrize("stored", ["", "bcrypt$x$y$z", "scrypt$n=16,r=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA",
                                    "scrypt$n=15,r=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "scrypt$n=16,r=1,p=1$$"])
def test_an_unreadable_hash_is_a_value_error(stored):
    with pytest.raises(ValueError, match="unreadable PIN hash"):
        parse_hash(stored)


def test_the_default_cost_is_slow_on_purpose():
    """About 0.12 s on a current x86 core; well above a fast hash, well below a cashier's patience."""
    stored = hash_pin("4821", DEFAULT_PARAMS)
    started = time.perf_counter()
    assert verify_pin("4821", stored)
    elapsed = time.perf_counter() - started
    assert 0.02 < elapsed < 3.0, elapsed
    assert DEFAULT_PARAMS.n * DEFAULT_PARAMS.r * 128 >= 32 * 1024 * 1024  # 32 MiB of memory per guess
