"""Receipt and report PDFs: real PDFs whose text pdftotext reads back."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pos_app.receipts import (
    TRAINING_BANNER,
    Copy,
    ReceiptLine,
    ReceiptTender,
    ReportData,
    ReportSection,
    TenderKind,
    find_font,
    render_receipt,
    render_report,
)
from tests.receipts.conftest import page_sizes_mm, pdf_text, sample_receipt
from tests.system import require


def test_the_receipt_shows_store_lines_totals_and_card():
    require(find_font() is not None, "DejaVu Sans Mono is not installed (Debian package fonts-dejavu-core)")
    pdf = render_receipt(sample_receipt())
    assert pdf.startswith(b"%PDF-")
    text = pdf_text(pdf)
    for expected in ("Corner Market", "Store S-001", "Station lane-1", "Cashier Ann Lee", "2026-03-02 14:05",
                     "CUSTOMER COPY", "Organic whole milk 1 gal", "2 x $5.49", "$10.98", "Sourdough loaf", "$4.99",
                     "1.25 x $0.69", "$0.86", "Deal: milk 2 for 10", "-$0.98", "Subtotal", "$15.85",
                     "State sales tax 6.25%", "$0.99", "City tax 2.00%", "$0.32", "Card surcharge", "$0.52",
                     "TOTAL", "$17.68", "Visa **** 4242", "T900123456", "pay-7f3a9c", "APPROVED"):
        assert expected in text, f"{expected!r} missing from:\n{text}"
    assert "TRAINING" not in text
    assert re.search(r"TOTAL\s+\$17\.68", text)


def test_a_training_receipt_says_so_at_top_and_bottom():
    text = pdf_text(render_receipt(sample_receipt(training=True, copy=Copy.MERCHANT)))
    assert text.count(TRAINING_BANNER) == 2, text
    assert text.strip().startswith(TRAINING_BANNER)
    assert "MERCHANT COPY" in text


def test_the_page_is_a_roll_80_mm_wide_as_tall_as_its_content():
    short = page_sizes_mm(render_receipt(sample_receipt()))
    many = [ReceiptLine(f"Item number {i}", 1, 100, 100) for i in range(60)]
    card = ReceiptTender(TenderKind.CARD, 6000, auth_ref="T9", payment_id="p-9")
    long = page_sizes_mm(render_receipt(sample_receipt(lines=many, subtotal_cents=6000, taxes=[], surcharge_cents=0,
                                                       total_cents=6000, tenders=[card])))
    assert len(short) == 1 and len(long) == 1
    assert short[0][0] == pytest.approx(80, abs=0.1) and long[0][0] == pytest.approx(80, abs=0.1)
    assert long[0][1] > short[0][1] + 50 * 3.5  # 3.5 mm a line at 8 pt


def test_without_dejavu_the_core_courier_font_still_gives_text(tmp_path):
    pdf = render_receipt(sample_receipt(training=True, currency="EUR"), font_dir=tmp_path / "no-fonts")
    assert pdf.startswith(b"%PDF-")
    text = pdf_text(pdf)
    assert "TRAINING - NO MONEY MOVED" in text and "EUR17.68" in text and "Corner Market" in text


def test_long_names_and_ids_wrap_within_the_roll():
    name = "An extraordinarily long product name that cannot possibly fit on one receipt line"
    data = sample_receipt(lines=[ReceiptLine(name, 1, 1585, 1585)],
                          tenders=[ReceiptTender(TenderKind.CARD, 1768, payment_id="p" * 70)])
    text = pdf_text(render_receipt(data))
    assert "An extraordinarily long product name" in text and "receipt line" in text
    assert "p" * 30 in text


@pytest.mark.parametrize("changes, words", [
    ({"subtotal_cents": 1000}, "add up to 1585"),
    ({"total_cents": 1}, "not the total 1"),
    ({"when": datetime(2026, 3, 2, 14, 5)}, "aware"),
    ({"currency": "dollars"}, "three-letter"),
    ({"tenders": []}, "at least one tender"),
    ({"tenders": [ReceiptTender(TenderKind.CASH, 1700)]}, "come to 1700 cents, not the total 1768"),
    ({"change_cents": 5}, "come to 1763"),
])
def test_a_receipt_that_does_not_add_up_is_refused(changes, words):
    with pytest.raises(ValueError, match=words):
        sample_receipt(**changes)


def test_a_card_needs_its_last_4_digits():
    with pytest.raises(ValueError, match="last 4 digits"):
        ReceiptTender(TenderKind.CARD, 100, card_last4="42")


def test_a_split_receipt_lists_every_tender_and_the_change():
    """A card for part, cash for the rest with change: each tender is printed, the change
    too, and a receipt with cash only says PAID rather than APPROVED."""
    split = sample_receipt(surcharge_cents=0, total_cents=1716, change_cents=447, tenders=[
        ReceiptTender(TenderKind.CARD, 500, card_brand="Visa", card_last4="4242", auth_ref="T1", payment_id="p-1"),
        ReceiptTender(TenderKind.CASH, 1663)])
    text = pdf_text(render_receipt(split))
    assert "Card Visa **** 4242" in text and "$5.00" in text and "Cash" in text and "$16.63" in text
    assert "Change" in text and "$4.47" in text and "APPROVED" in text
    cash_only = sample_receipt(surcharge_cents=0, total_cents=1716, change_cents=284,
                               tenders=[ReceiptTender(TenderKind.CASH, 2000)])
    text = pdf_text(render_receipt(cash_only))
    assert "PAID" in text and "APPROVED" not in text and "Auth ref" not in text and "$2.84" in text


def test_amounts_must_be_integer_cents():
    with pytest.raises(TypeError):
        ReceiptLine("x", 1, 1.5, 2)  # type: ignore[arg-type]


def test_a_report_spans_pages_and_keeps_its_text():
    rows = [(f"terminal tb-{i:04d} approved", f"${i},000.00") for i in range(150)]
    data = ReportData(title="End of shift", store_name="Harbor Books", store_id="S-2", station="lane-2",
                      generated_at=datetime(2026, 3, 2, 22, 0, tzinfo=UTC),
                      sections=[ReportSection("Totals", [("Approved", "$1,234.50"), ("Refunds", "-$20.00")]),
                                ReportSection("Per terminal", rows)],
                      training=True, notes=["2 attempts need a manager: see pos-app terminal report"])
    pdf = render_report(data)
    sizes = page_sizes_mm(pdf)
    assert len(sizes) >= 2 and sizes[0] == pytest.approx((210, 297), abs=0.5)
    text = pdf_text(pdf)
    for expected in ("End of shift", "Harbor Books", "Approved", "$1,234.50", "-$20.00", "terminal tb-0149 approved",
                     TRAINING_BANNER, "2 attempts need a manager"):
        assert expected in text


def test_render_is_deterministic_for_the_same_data():
    assert render_receipt(sample_receipt()) == render_receipt(sample_receipt())


def test_fonts_are_found_in_a_given_folder(tmp_path: Path):
    assert find_font(tmp_path) is None
