"""Money on receipts: the store's currency and locale (``store.toml``) decide how a receipt
writes its amounts (pos_app.money; its own tests are tests/test_money.py)."""

from __future__ import annotations

import pytest

from pos_app.money import NBSP, format_money


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
    for line, sentence in (('currency = "US$"', "three-letter ISO 4217 code"), ('currency = "XYZ"', "ISO 4217"),
                           ('locale = "French"', "like en_US"), ('locale = "xx_YY"', "like en_US")):
        (tmp_path / "store.toml").write_text(line + "\n")
        with pytest.raises(ConfigError, match=sentence):
            load_config(env)


@pytest.mark.parametrize("currency, locale, total", [("EUR", "de_DE", "17,68 €"), ("CAD", "fr_CA", "17,68 $"),
                                                     ("USD", "en_US", "$17.68"), ("JPY", "ja_JP", "¥1,768")])
def test_a_receipt_writes_money_in_its_locale(currency, locale, total):
    from pos_app.receipts import render_receipt
    from tests.receipts.conftest import pdf_text, sample_receipt

    text = pdf_text(render_receipt(sample_receipt(currency=currency, locale=locale))).replace(NBSP, " ")
    assert total in text and "TOTAL" in text
