"""Reports made of tables: columns read back by pdftotext, the heading row on every page a
table runs onto, and a PDF saved atomically under a name that is never reused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pos_app.receipts.tables import Column, Section, Table, TableDocument, render_tables, save_pdf
from tests.receipts.conftest import pdf_text


def test_a_long_table_repeats_its_heading_on_every_page_its_total_included():
    rows = [[f"item {index}", f"${index}.00"] for index in range(400)]
    table = Table([Column("What", 20), Column("Amount", 10, right=True)], rows, total=["All", "$79800.00"])
    pdf = render_tables(TableDocument("Long", ["sub"], datetime(2026, 3, 2, tzinfo=UTC),
                                      [Section("Rows", ("A paragraph.",), table)], page="Letter"))
    pages = pdf_text(pdf).split("\f")
    filled = [page for page in pages if page.strip()]
    assert len(filled) > 3 and all("What" in page and "Amount" in page for page in filled)
    assert any(line.split() == ["All", "$79800.00"] for line in filled[-1].splitlines())


def test_a_row_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="2 columns"):
        Table([Column("a", 3), Column("b", 3)], [["1", "2", "3"]])


def test_save_never_reuses_a_name_and_leaves_no_partial_file(tmp_path):
    first = save_pdf(b"%PDF-1 one", tmp_path / "reports", "shift-t1")
    second = save_pdf(b"%PDF-1 two", tmp_path / "reports", "shift-t1")
    assert (first.name, second.name) == ("shift-t1.pdf", "shift-t1-2.pdf")
    assert first.read_bytes() == b"%PDF-1 one" and second.read_bytes() == b"%PDF-1 two"
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["shift-t1-2.pdf", "shift-t1.pdf"]
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OSError):
        save_pdf(b"%PDF", tmp_path / "file", "x")
