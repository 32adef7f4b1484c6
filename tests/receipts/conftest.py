"""Receipt fixtures: a sample receipt and pdftotext (the CUPS printer is ``tests.printers``)."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from pos_app.receipts import ReceiptData, ReceiptLine, ReceiptTender, TaxLine, TenderKind
from tests.system import require_tool


def sample_receipt(**changes) -> ReceiptData:
    values = dict(
        store_name="Corner Market", store_id="S-001", station="lane-1", cashier="Ann Lee",
        lines=[ReceiptLine("Organic whole milk 1 gal", 2, 549, 1098),
               ReceiptLine("Sourdough loaf", 1, 499, 499),
               ReceiptLine("Bananas (lb)", Decimal("1.25"), 69, 86),
               ReceiptLine("Deal: milk 2 for 10", 1, -98, -98)],
        subtotal_cents=1585, taxes=[TaxLine("State sales tax 6.25%", 99), TaxLine("City tax 2.00%", 32)],
        surcharge_cents=52, total_cents=1585 + 99 + 32 + 52,
        tenders=[ReceiptTender(TenderKind.CARD, 1585 + 99 + 32 + 52, card_brand="Visa", card_last4="4242",
                               auth_ref="T900123456", payment_id="pay-7f3a9c")],
        when=datetime(2026, 3, 2, 14, 5, tzinfo=timezone(timedelta(hours=-5))), currency="USD",
    )
    values.update(changes)
    return ReceiptData(**values)  # type: ignore[arg-type]


def pdf_text(pdf: bytes | Path) -> str:
    """The text of a PDF as ``pdftotext`` reads it (skips without poppler-utils, fails in CI)."""
    tool = require_tool("pdftotext", "poppler-utils")
    data = pdf.read_bytes() if isinstance(pdf, Path) else pdf
    done = subprocess.run([tool, "-layout", "-", "-"], input=data, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode("utf-8")


def page_sizes_mm(pdf: bytes) -> list[tuple[float, float]]:
    """Each page's width and height in millimetres (poppler's pdfinfo)."""
    tool = require_tool("pdfinfo", "poppler-utils")
    done = subprocess.run([tool, "-f", "1", "-l", "99", "-"], input=pdf, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    sizes = re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts", done.stdout.decode())
    return [(float(w) * 25.4 / 72, float(h) * 25.4 / 72) for w, h in sizes]
