"""format_money: integer cents to text in the store's currency, written as its locale
writes it (checked against Qt's QLocale, i.e. CLDR, for each locale of the table), the
OS's locale by default, the store's when set; negative amounts; what is refused."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale

from pos_app.receipts import format_money, money
from pos_app.receipts.money import (
    KNOWN_LOCALES,
    NBSP,
    check_currency,
    check_locale,
    default_locale,
    set_default_locale,
)


@pytest.fixture(autouse=True)
def no_store_locale():
    set_default_locale(None)
    yield
    set_default_locale(None)


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
    (123456, "EUR", "fr-FR", f"1{NBSP}234,56{NBSP}€"),
    (123450, "EUR", "nl_NL", f"€{NBSP}1.234,50"),
    (123450, "EUR", "it_IT", f"1234,50{NBSP}€"),  # CLDR: no group under five digits
    (1234550, "EUR", "it_IT", f"12.345,50{NBSP}€"),
    (123450, "CHF", "de_CH", f"CHF{NBSP}1'234.50"),
    (1234567890, "INR", "en_IN", "₹1,23,45,678.90"),
    (1250, "GBP", "en_GB", "£12.50"), (1250, "EUR", "en_US", "€12.50"),
    (1250, "JPY", "en_US", "¥1,250"), (123456, "JPY", "ja_JP", "￥123,456"), (-5, "JPY", "en_US", "-¥5"),
    (1250, "CHF", "en_US", f"CHF{NBSP}12.50"), (-1250, "chf", "de", f"-12,50{NBSP}CHF"),
    (1250, "USD", "en_CA", "US$12.50"), (1250, "CAD", "en_US", "CA$12.50"),  # never a bare "$" for another dollar
    (1250, "USD", "xx_YY", "$12.50"), (1250, "EUR", "fr_LU", f"12,50{NBSP}€"),  # the language's, else en_US
])
def test_currencies_and_locales(cents, currency, locale, text):
    assert format_money(cents, currency, locale) == text


@pytest.mark.parametrize("name", KNOWN_LOCALES)
def test_each_locale_of_the_table_writes_its_own_currency_as_cldr_does(name):
    qt = QLocale(name)
    currency = qt.currencySymbol(QLocale.CurrencySymbolFormat.CurrencyIsoCode)
    for cents in (5, 99, 123450, 1234567890):
        units = cents if currency in ("JPY", "KRW") else cents / 100
        expected = qt.toCurrencyString(units).replace("\u202f", NBSP)  # a narrow no-break space: a plain one
        assert format_money(cents, currency, name) == expected


def test_the_default_is_the_stores_locale_else_the_oss(monkeypatch):
    for name in ("LC_ALL", "LC_MONETARY", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "fr_CA.UTF-8")
    assert default_locale() == "fr_CA" and format_money(123450, "CAD") == f"1{NBSP}234,50{NBSP}$"
    monkeypatch.setenv("LC_MONETARY", "de_DE.UTF-8")
    assert format_money(123450, "EUR") == f"1.234,50{NBSP}€"
    set_default_locale("en-us")
    assert default_locale() == "en_US" and format_money(123450, "USD") == "$1,234.50"
    set_default_locale(None)
    monkeypatch.setenv("LC_ALL", "C")  # POSIX: LC_ALL decides, and C is no locale of ours
    assert default_locale() == "en_US" and format_money(1250, "USD") == "$12.50"
    for name in ("LC_ALL", "LC_MONETARY", "LANG"):
        monkeypatch.delenv(name)
    monkeypatch.setattr(money.os_locale, "getlocale", lambda category: ("fr_CA", "UTF-8"))  # as on Windows
    assert default_locale() == "fr_CA"


def test_refuses_what_is_not_cents_a_currency_or_a_locale():
    with pytest.raises(TypeError):
        format_money(12.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_money(True)
    with pytest.raises(ValueError, match="three-letter"):
        format_money(100, "US$")
    with pytest.raises(ValueError, match="like en_US"):
        format_money(100, "USD", "English")
    assert check_currency("eur") == "EUR" and check_locale("pt-br") == "pt_BR" and check_locale("de") == "de"


def test_the_store_sets_its_currency_and_locale_in_store_toml(tmp_path):
    from pos_app.config import load_config
    from pos_app.profile import ConfigError

    env = {"POS_DATA_DIR": str(tmp_path), "POS_BASE_URL": "https://payments.example.com"}
    (tmp_path / "store.toml").write_text('currency = "cad"\nlocale = "fr-ca"\n')
    config = load_config(env)
    assert (config.currency, config.locale) == ("CAD", "fr_CA")
    assert format_money(123450, config.currency, config.locale) == f"1{NBSP}234,50{NBSP}$"
    (tmp_path / "store.toml").write_text("")
    assert (load_config(env).currency, load_config(env).locale) == ("USD", None)  # None: the OS's
    for line, sentence in (('currency = "US$"', "three-letter ISO code"), ('locale = "French"', "like en_US")):
        (tmp_path / "store.toml").write_text(line + "\n")
        with pytest.raises(ConfigError, match=sentence):
            load_config(env)


@pytest.mark.parametrize("currency, locale, total", [("EUR", "de_DE", "17,68 €"), ("CAD", "fr_CA", "17,68 $"),
                                                     ("USD", "en_US", "$17.68")])
def test_a_receipt_writes_money_in_its_locale(currency, locale, total):
    from pos_app.receipts import render_receipt
    from tests.receipts.conftest import pdf_text, sample_receipt

    text = pdf_text(render_receipt(sample_receipt(currency=currency, locale=locale))).replace(NBSP, " ")
    assert total in text and "TOTAL" in text
