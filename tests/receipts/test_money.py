"""format_money: integer cents to text, negative amounts included."""

from __future__ import annotations

import pytest

from pos_app.receipts import format_money


@pytest.mark.parametrize("cents, text", [
    (0, "$0.00"), (1, "$0.01"), (5, "$0.05"), (99, "$0.99"), (1250, "$12.50"), (123456789, "$1,234,567.89"),
    (-1, "-$0.01"), (-1250, "-$12.50"), (-100000, "-$1,000.00"),
])
def test_dollars(cents, text):
    assert format_money(cents) == text


@pytest.mark.parametrize("cents, currency, locale, text", [
    (1250, "EUR", None, "€12.50"), (-123456, "EUR", "de_DE", "-1.234,56 €"), (123456, "EUR", "fr-FR", "1 234,56 €"),
    (1250, "GBP", "en_GB", "£12.50"), (1250, "JPY", None, "¥1,250"), (-5, "JPY", None, "-¥5"),
    (1250, "CHF", None, "CHF 12.50"), (-1250, "chf", "de", "-12,50 CHF"), (1250, "USD", "xx_YY", "$12.50"),
])
def test_other_currencies_and_locales(cents, currency, locale, text):
    assert format_money(cents, currency, locale) == text


def test_refuses_what_is_not_cents_or_a_currency():
    with pytest.raises(TypeError):
        format_money(12.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_money(True)
    with pytest.raises(ValueError, match="three-letter"):
        format_money(100, "US$")
