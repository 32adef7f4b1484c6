"""pos_app.money, Qt-free: amounts written in the store's currency and locale (Babel, CLDR),
the prefill of an amount field, and typed text read back the locale's way, with what is
refused and the sentence that says so (an example in the store's format)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import parse_decimal
from hypothesis import given
from hypothesis import strategies as st

from pos_app import money as money_module
from pos_app.money import (
    AMOUNT_MAX,
    NBSP,
    AmountError,
    AmountProblem,
    check_currency,
    check_locale,
    default_locale,
    format_money,
    money_format,
)

NNBSP = "\u202f"
EUR_DE = money_format("EUR", "de_DE")
USD_US = money_format("USD", "en_US")
CAD_CA = money_format("CAD", "fr_CA")
JPY_JP = money_format("JPY", "ja_JP")


# writing ------------------------------------------------------------------------------

@pytest.mark.parametrize("cents, text", [
    (0, "$0.00"), (1, "$0.01"), (5, "$0.05"), (99, "$0.99"), (1250, "$12.50"), (123456789, "$1,234,567.89"),
    (-1, "-$0.01"), (-1250, "-$12.50"), (-100000, "-$1,000.00"),
])
def test_dollars_in_en_us(cents, text):
    assert format_money(cents, "USD", "en_US") == text


@pytest.mark.parametrize("cents, currency, locale, text", [
    (123450, "USD", "en_US", "$1,234.50"),
    (123450, "CAD", "fr_CA", f"1{NBSP}234,50{NBSP}$"),
    (123450, "CAD", "en_CA", "$1,234.50"),
    (123450, "EUR", "de_DE", f"1.234,50{NBSP}€"),
    (-123456, "EUR", "de_DE", f"-1.234,56{NBSP}€"),
    (123456, "EUR", "fr-FR", f"1{NBSP}234,56{NBSP}€"),  # CLDR's narrow no-break space: a plain one
    (123450, "EUR", "nl_NL", f"€{NBSP}1.234,50"),
    (123450, "EUR", "it_IT", f"1.234,50{NBSP}€"),  # Babel groups four digits (CLDR's minimum grouping: not)
    (1234550, "EUR", "it_IT", f"12.345,50{NBSP}€"),
    (123450, "CHF", "de_CH", f"CHF{NBSP}1’234.50"),  # CLDR's apostrophe is U+2019
    (1234567890, "INR", "en_IN", "₹1,23,45,678.90"),
    (1250, "GBP", "en_GB", "£12.50"), (1250, "EUR", "en_US", "€12.50"),
    (1250, "JPY", "en_US", "¥1,250"), (123456, "JPY", "ja_JP", "¥123,456"), (-5, "JPY", "en_US", "-¥5"),
    (1250, "CHF", "en_US", f"CHF{NBSP}12.50"), (-1250, "chf", "de", f"-12,50{NBSP}CHF"),  # currency spacing
    (1250, "USD", "en_CA", "US$12.50"), (1250, "CAD", "en_US", "CA$12.50"),  # never a bare "$" for another dollar
    (1250, "EUR", "fr_LU", f"12,50{NBSP}€"),
])
def test_currencies_and_locales(cents, currency, locale, text):
    assert format_money(cents, currency, locale) == text


def test_yen_have_no_minor_digits():
    assert JPY_JP.digits == 0 and EUR_DE.digits == 2
    assert JPY_JP(500) == "¥500" and money_format("JPY", "en_US")(50_000) == "¥50,000"


@pytest.mark.parametrize("money, cents, text", [
    (EUR_DE, 2000, "20,00"), (EUR_DE, 123450, "1234,50"), (EUR_DE, 5, "0,05"), (USD_US, 2000, "20.00"),
    (CAD_CA, 123450, "1234,50"), (JPY_JP, 500, "500"), (money_format("JPY", "de_DE"), 123456, "123456"),
])
def test_a_prefill_is_written_as_the_cashier_would_type_it(money, cents, text):
    assert money.field(cents) == text and money.parse(text) == cents


def test_an_example_and_a_symbol_in_the_stores_format():
    assert (EUR_DE.example, USD_US.example, CAD_CA.example, JPY_JP.example) == ("12,50", "12.50", "12,50", "500")
    assert (EUR_DE.symbol, USD_US.symbol, money_format("USD", "en_CA").symbol) == ("€", "$", "US$")


@pytest.mark.parametrize("money, rate, text", [
    (USD_US, "8.25", "8.25 %"), (EUR_DE, "8.25", "8,25 %"), (EUR_DE, "2.00", "2,00 %"), (CAD_CA, "8.875", "8,875 %"),
    (USD_US, "7", "7 %"), (USD_US, "0", "0 %"), (USD_US, "100", "100 %"), (EUR_DE, "1E+1", "10 %"),
])
def test_a_tax_rate_is_written_with_its_decimals_the_locales_way(money, rate, text):
    assert money.percent(Decimal(rate)) == text


def test_money_is_an_int_of_minor_units():
    for wrong in (12.5, True, Decimal("12.5"), "1250"):
        with pytest.raises(TypeError, match="integer number of minor units"):
            USD_US(wrong)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            USD_US.field(wrong)  # type: ignore[arg-type]


# reading ------------------------------------------------------------------------------

@pytest.mark.parametrize("money, typed, cents", [
    (EUR_DE, "12,50", 1250), (EUR_DE, "1.234,50", 123450), (EUR_DE, "1234,5", 123450), (EUR_DE, "20", 2000),
    (EUR_DE, " 12,50 € ", 1250), (EUR_DE, "€12,50", 1250), (EUR_DE, "EUR 12,50", 1250), (EUR_DE, "eur12,50", 1250),
    (EUR_DE, ",50", 50), (EUR_DE, "0", 0),
    (USD_US, "12.50", 1250), (USD_US, "12.5", 1250), (USD_US, "$1,234.05", 123405), (USD_US, "USD 20", 2000),
    (USD_US, "20", 2000),
    (CAD_CA, "1 234,50", 123450), (CAD_CA, f"1{NBSP}234,50", 123450), (CAD_CA, f"1{NNBSP}234,50 $", 123450),
    (money_format("EUR", "fr_FR"), "1 234,50", 123450),  # fr_FR groups with a narrow space: any space will do
    (money_format("CHF", "de_CH"), "1'234.50", 123450), (money_format("CHF", "de_CH"), "CHF 1’234.50", 123450),
    (JPY_JP, "500", 500), (JPY_JP, "20", 20), (JPY_JP, "￥1,500", 1500), (JPY_JP, "¥500", 500),
    (money_format("JPY", "en_US"), "50,000", 50_000),
])
def test_typed_amounts_are_read_the_locales_way(money, typed, cents):
    assert money.parse(typed) == cents


@pytest.mark.parametrize("typed", ["", "   ", "\t", NBSP])
def test_nothing_typed_is_no_amount(typed):
    assert EUR_DE.parse(typed) is None


@pytest.mark.parametrize("money, typed, problem", [
    (EUR_DE, "12.50", AmountProblem.SEPARATORS),  # a US-minded "12.50" in a German store: never 1.250,00 €
    (EUR_DE, "1,234.50", AmountProblem.SEPARATORS),
    (EUR_DE, "12,50.0", AmountProblem.SEPARATORS),
    (EUR_DE, "1.2.3,5", AmountProblem.SEPARATORS),  # grouping in the wrong place (Babel's strict parsing)
    (EUR_DE, "1 234,50", AmountProblem.SEPARATORS),
    (USD_US, "12,50", AmountProblem.SEPARATORS),
    (USD_US, "1,2,3.5", AmountProblem.SEPARATORS),
    (USD_US, "12.50.1", AmountProblem.SEPARATORS),
    (CAD_CA, "12.50", AmountProblem.SEPARATORS),
    (USD_US, "12.505", AmountProblem.DECIMALS), (EUR_DE, "12,505", AmountProblem.DECIMALS),
    (USD_US, "12.500", AmountProblem.DECIMALS),
    (JPY_JP, "500.5", AmountProblem.DECIMALS), (JPY_JP, "500.0", AmountProblem.DECIMALS),
    (USD_US, "-5", AmountProblem.NEGATIVE), (USD_US, "−5", AmountProblem.NEGATIVE),
    (USD_US, "-$5.00", AmountProblem.NEGATIVE), (EUR_DE, "5,00 €-", AmountProblem.NEGATIVE),
    (USD_US, "nan", AmountProblem.NOT_A_NUMBER), (USD_US, "NaN", AmountProblem.NOT_A_NUMBER),
    (USD_US, "inf", AmountProblem.NOT_A_NUMBER), (USD_US, "Infinity", AmountProblem.NOT_A_NUMBER),
    (USD_US, "1e5", AmountProblem.NOT_A_NUMBER), (USD_US, "1_000", AmountProblem.NOT_A_NUMBER),
    (USD_US, "１２", AmountProblem.NOT_A_NUMBER), (USD_US, "0x10", AmountProblem.NOT_A_NUMBER),
    (USD_US, "+5", AmountProblem.NOT_A_NUMBER), (USD_US, "abc", AmountProblem.NOT_A_NUMBER),
    (USD_US, "$", AmountProblem.NOT_A_NUMBER), (USD_US, ".", AmountProblem.NOT_A_NUMBER),
    (USD_US, "€12.50", AmountProblem.NOT_A_NUMBER), (EUR_DE, "$12,50", AmountProblem.NOT_A_NUMBER),
    (USD_US, "100000.01", AmountProblem.TOO_LARGE), (USD_US, "9" * 400, AmountProblem.TOO_LARGE),
    (JPY_JP, "10000001", AmountProblem.TOO_LARGE),
])
def test_what_is_not_an_amount_is_refused_with_an_example_the_stores_way(money, typed, problem):
    with pytest.raises(AmountError) as refused:
        money.parse(typed)
    assert refused.value.problem is problem
    sentence = str(refused.value)
    assert sentence.startswith(f"{typed.strip()!r} is not an amount") and sentence.endswith(
        f"type an amount like {money.example}")


def test_the_sentences_say_why():
    def said(money, typed):
        with pytest.raises(AmountError) as refused:
            money.parse(typed)
        return str(refused.value)

    assert said(EUR_DE, "12.50") == "'12.50' is not an amount: this store writes amounts otherwise; " \
                                    "type an amount like 12,50"
    assert said(JPY_JP, "500.5") == "'500.5' is not an amount: JPY has no decimals; type an amount like 500"
    assert said(USD_US, "12.505") == "'12.505' is not an amount: USD has 2 decimals; type an amount like 12.50"
    assert said(USD_US, "-5") == "'-5' is not an amount: it is negative; type an amount like 12.50"
    assert said(EUR_DE, "200000") == (f"'200000' is not an amount: at most 100.000,00{NBSP}€; "
                                      "type an amount like 12,50")


def test_strict_parsing_is_what_keeps_12_50_from_being_1250_euros():
    """Babel's lenient parsing reads "12.50" in de_DE as 1250 (a misplaced group separator
    taken as one): the money module parses strictly, and refuses it."""
    assert parse_decimal("12.50", locale="de_DE") == Decimal(1250)
    assert parse_decimal("1,2,3.5", locale="en_US") == Decimal("123.5")
    with pytest.raises(AmountError):
        EUR_DE.parse("12.50")


def test_the_largest_amount_is_stated():
    assert AMOUNT_MAX == 10_000_000
    assert USD_US.parse("100,000.00") == AMOUNT_MAX and JPY_JP.parse("10,000,000") == AMOUNT_MAX


@given(st.integers(min_value=0, max_value=AMOUNT_MAX),
       st.sampled_from([EUR_DE, USD_US, CAD_CA, JPY_JP, money_format("CHF", "de_CH"), money_format("INR", "en_IN")]))
def test_what_is_prefilled_or_written_reads_back_the_same(cents, money):
    assert money.parse(money.field(cents)) == cents
    assert money.parse(money(cents)) == cents


# the store's currency and locale ------------------------------------------------------

def test_the_locale_is_the_stores_else_the_oss(monkeypatch):
    for name in ("LC_ALL", "LC_MONETARY", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "fr_CA.UTF-8")
    assert default_locale() == "fr_CA" and money_format("CAD").locale == "fr_CA"
    assert format_money(123450, "CAD") == f"1{NBSP}234,50{NBSP}$"
    monkeypatch.setenv("LC_MONETARY", "de_DE.UTF-8")  # POSIX: LC_MONETARY before LANG
    assert format_money(123450, "EUR") == f"1.234,50{NBSP}€"
    assert money_format("USD", "en-us").locale == "en_US"  # the store's setting comes first
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # LC_ALL decides, and C is no locale: en_US (the suite's)
    assert default_locale() == "en_US" and format_money(1250, "USD") == "$12.50"
    monkeypatch.setenv("LC_ALL", "fr_XX.UTF-8")  # a country CLDR does not have: its language
    assert default_locale() == "fr"
    monkeypatch.setenv("LC_ALL", "xx_YY")
    assert default_locale() == "en_US"
    for name in ("LC_ALL", "LC_MONETARY", "LANG"):
        monkeypatch.delenv(name)
    monkeypatch.setattr(money_module.os_locale, "getlocale", lambda category: ("fr_CA", "UTF-8"))  # as on Windows
    assert default_locale() == "fr_CA"
    monkeypatch.setattr(money_module.os_locale, "getlocale", lambda category: ("English_United States", "1252"))
    assert default_locale() == "en_US"


def test_a_currency_or_a_locale_babel_does_not_know_is_refused():
    assert check_currency("eur") == "EUR" and check_currency(" jpy ") == "JPY"
    assert check_locale("pt-br") == "pt_BR" and check_locale("de") == "de" and check_locale("fr_ca") == "fr_CA"
    for currency in ("US$", "dollars", "XYZ", "", None, 12):
        with pytest.raises(ValueError, match="three-letter ISO 4217 code"):
            check_currency(currency)
    for locale in ("English", "xx_YY", "C", "", None):
        with pytest.raises(ValueError, match="like en_US, fr_CA or de_DE"):
            check_locale(locale)
    with pytest.raises(ValueError):
        format_money(100, "USD", "English")
