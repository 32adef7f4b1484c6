"""Slips of a capture, a void and a refund: real PDFs on the receipt roll whose text
pdftotext reads back, refused when their amounts do not add up with the payment."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from pos_app.receipts import TRAINING_BANNER, SlipData, SlipKind, render_slip
from tests.receipts.conftest import page_sizes_mm, pdf_text

WHEN = datetime(2026, 3, 2, 14, 5, tzinfo=timezone(timedelta(hours=-5)))


def sample_slip(kind: SlipKind, **changes) -> SlipData:
    values: dict = dict(
        kind=kind, store_name="Corner Market", store_id="S-001", station="lane-1", cashier="Ann Lee", when=WHEN,
        card_brand="Visa", card_last4="4242", payment_id="pay-7f3a9c", auth_ref="T900200001",
        original_ref="T900100001")
    if kind is SlipKind.CAPTURE:
        values.update(original_cents=1500, amount_cents=1200, surcharge_cents=30, of_preauth=True,
                      auth_ref="T900100001")
    elif kind is SlipKind.VOID:
        values.update(original_cents=2563, original_surcharge_cents=63, amount_cents=2500, surcharge_cents=63,
                      manager="Bo Diaz")
    else:
        values.update(original_cents=4100, original_surcharge_cents=100, amount_cents=1500, surcharge_cents=0,
                      refunded_before_cents=1000, manager="Bo Diaz")
    values.update(changes)
    return SlipData(**values)


def text_of(slip: SlipData) -> str:
    return pdf_text(render_slip(slip))


def words(text: str) -> str:
    """The text with its line breaks and layout spaces as single spaces (notes wrap on the roll)."""
    return " ".join(text.split())


def test_a_void_slip_names_the_store_people_card_amount_and_ids():
    text = text_of(sample_slip(SlipKind.VOID))
    for expected in ("Corner Market", "Store S-001", "Station lane-1", "2026-03-02 14:05", "Cashier Ann Lee",
                     "Manager Bo Diaz", "CUSTOMER COPY", "Visa **** 4242", "T900200001", "T900100001",
                     "pay-7f3a9c", "APPROVED"):
        assert expected in text, f"{expected!r} missing from:\n{text}"
    assert "The payment is cancelled: none of it is charged to the card." in words(text)
    assert re.search(r"^VOID\s+CUSTOMER COPY", text, re.MULTILINE)
    assert re.search(r"Sale\s+\$25\.00", text) and re.search(r"Card surcharge\s+\$0\.63", text)
    assert re.search(r"TOTAL VOIDED\s+\$25\.63", text)
    assert "TRAINING" not in text and "CAPTURE" not in text and "REFUND" not in text


def test_a_refund_slip_shows_the_money_returned():
    text = text_of(sample_slip(SlipKind.REFUND))
    assert re.search(r"^REFUND\s+CUSTOMER COPY", text, re.MULTILINE)
    assert re.search(r"Original payment\s+\$41\.00", text) and re.search(r"Refunded before\s+\$10\.00", text)
    assert re.search(r"MONEY RETURNED\s+\$15\.00", text) and "Manager Bo Diaz" in text
    assert "Money returned to the card: it can take a few days to show." in words(text)
    assert "The card surcharge is not part of this refund." in words(text)
    assert "Card surcharge" not in text  # nothing of it moved: no line


def test_a_capture_slip_shows_the_hold_the_capture_and_its_surcharge():
    text = text_of(sample_slip(SlipKind.CAPTURE))
    assert re.search(r"^CAPTURE\s+CUSTOMER COPY", text, re.MULTILINE) and "Manager" not in text
    assert re.search(r"Held \(pre-auth\)\s+\$15\.00", text) and re.search(r"Captured\s+\$12\.00", text)
    assert re.search(r"Card surcharge\s+\$0\.30", text) and re.search(r"TOTAL CHARGED\s+\$12\.30", text)
    assert "The rest of the hold, $3.00, is not charged." in words(text)
    assert text.count("T900100001") == 1  # a capture keeps the pre-auth's id: named once


def test_a_capture_whose_surcharge_is_not_known_says_so():
    text = text_of(sample_slip(SlipKind.CAPTURE, surcharge_cents=None))
    assert re.search(r"Card surcharge\s+not known", text) and re.search(r"TOTAL CHARGED\s+\$12\.00", text)
    assert "The card surcharge, if any, is on the service's card slip." in words(text)


@pytest.mark.parametrize("kind", list(SlipKind))
def test_a_training_slip_says_so_at_top_and_bottom(kind):
    text = text_of(sample_slip(kind, training=True))
    assert text.count(TRAINING_BANNER) == 2, text
    assert text.strip().startswith(TRAINING_BANNER) and "APPROVED (TRAINING)" in text


def test_a_slip_is_a_roll_80_mm_wide():
    [(width, height)] = page_sizes_mm(render_slip(sample_slip(SlipKind.VOID)))
    assert width == pytest.approx(80, abs=0.1) and 60 < height < 120


@pytest.mark.parametrize(("kind", "changes", "reason"), [
    (SlipKind.VOID, {"amount_cents": 2000}, "a void gives back the whole payment"),
    (SlipKind.VOID, {"surcharge_cents": 0, "amount_cents": 2563}, "a void gives back the whole payment"),
    (SlipKind.CAPTURE, {"amount_cents": 1501}, "more than the $15.00 held"),
    (SlipKind.REFUND, {"amount_cents": 3001}, "more than the $30.00 left to refund"),
    (SlipKind.REFUND, {"surcharge_cents": 50}, "no surcharge"),
    (SlipKind.REFUND, {"amount_cents": 0}, "amounts above 0"),
    (SlipKind.VOID, {"refunded_before_cents": 100}, "only a refund slip"),
    (SlipKind.CAPTURE, {"original_surcharge_cents": 1600}, "between 0 and the payment"),
])
def test_a_slip_that_does_not_add_up_is_refused(kind, changes, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        sample_slip(kind, **changes)


def test_a_slip_needs_integer_cents_an_aware_time_and_4_digits():
    with pytest.raises(TypeError):
        sample_slip(SlipKind.VOID, amount_cents=25.0)
    with pytest.raises(ValueError, match="aware"):
        sample_slip(SlipKind.VOID, when=WHEN.replace(tzinfo=None))
    with pytest.raises(ValueError, match="last 4 digits"):
        sample_slip(SlipKind.VOID, card_last4="42")
