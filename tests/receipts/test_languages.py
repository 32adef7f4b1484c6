"""Receipts and reports in the store's language, whatever the cashier's screen speaks:
a receipt and a Z report rendered in Spanish and French and read back with pdftotext; a
marking pseudo-language finds any text of a receipt never wrapped for translation."""

from __future__ import annotations

import re

import pytest

from pos_app import i18n
from pos_app.receipts import render_receipt
from pos_app.station import Station
from pos_app.station.z_report import close_shift
from tests.languages import MARKING, OPEN
from tests.receipts.conftest import pdf_text, sample_receipt
from tests.station.cash_shifts import TERMINAL, config_for, every_movement

RECEIPT_WORDS = ("CUSTOMER COPY", "Card surcharge", "APPROVED", "Cashier {name}", "Store {store}  Station {station}")
Z_WORDS = ("Z report {label}", "Cash count", "Cash in the drawer", "Card batch", "Counted cash: {amount}")


def translated(language: str, source: str) -> str:
    """``source`` in ``language``, its fields left out: the words a document must show."""
    with i18n.in_language(language):
        text = i18n._(source)
    assert text != source, f"{source!r} has no {language} translation"
    return re.split(r"\{\w+\}", text)[0].strip() or re.split(r"\{\w+\}", text)[-1].strip()


@pytest.mark.parametrize("language", ["es", "fr"])
def test_a_receipt_is_in_the_store_language_while_the_screen_speaks_another(language):
    i18n.use_store_language(language)
    i18n.use_screen_language("en")
    text = pdf_text(render_receipt(sample_receipt()))
    for source in RECEIPT_WORDS:
        assert translated(language, source) in text, f"{source!r} in {language} missing from:\n{text}"
    assert "CUSTOMER COPY" not in text and "APPROVED" not in text
    assert "$17.68" in text  # money by the store's locale (en_US here), not by the language
    assert i18n.current_language() == "en"


@pytest.mark.parametrize("language", ["es", "fr"])
async def test_a_z_report_is_in_the_store_language(sandbox, tmp_path, language):
    i18n.use_store_language(language)
    config = config_for(sandbox, tmp_path, opening_float=10000)
    async with await Station.open(config, sandbox.keys["B"]) as station:
        await every_movement(station)
        closed = await close_shift(station, counted=11150, by="Mo", terminal_id=TERMINAL, left_in_drawer=8000)
    assert closed.path is not None
    text = pdf_text(closed.path)
    for source in Z_WORDS:
        assert translated(language, source) in text, f"{source!r} in {language} missing from:\n{text}"
    assert "Cash count" not in text and "Harbor Books" in text and "$111.50" in text


def test_every_text_of_a_receipt_is_wrapped_for_translation(monkeypatch):
    monkeypatch.setattr(i18n, "translations_for", lambda language: MARKING)
    receipt = sample_receipt()
    data = {line.name for line in receipt.lines} | {tax.name for tax in receipt.taxes} | {
        receipt.store_name, "Visa **** 4242", "T900123456", "pay-7f3a9c"}
    unmarked = []
    for line in pdf_text(render_receipt(receipt)).splitlines():
        rest = re.sub(r"UTC[+-]\d\d:\d\d", "", line)  # a time's offset
        for value in sorted(data, key=len, reverse=True):
            rest = rest.replace(value, "")
        if OPEN not in rest and re.search(r"[A-Za-z]{2}", rest):
            unmarked.append(line.strip())
    assert unmarked == []
