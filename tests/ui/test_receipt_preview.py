"""The PDF preview's "Save as…": the file written whole under the name offered, or a
sentence (never a traceback) when the folder cannot take it."""

from __future__ import annotations

from fpdf import FPDF

from pos_app.ui.receipt_view import ReceiptPreview


def a_pdf() -> bytes:
    document = FPDF()
    document.add_page()
    document.set_font("helvetica", size=12)
    document.cell(text="End-of-shift report")
    return bytes(document.output())


def test_save_as_writes_the_pdf_or_says_why_not(qtbot, tmp_path, monkeypatch):
    from pos_app.ui import receipt_view

    pdf = a_pdf()
    preview = ReceiptPreview(pdf, title="End-of-shift report", file_name="shift-tb-2001.pdf")
    qtbot.addWidget(preview)
    offered, warned = [], []
    target = tmp_path / "saved.pdf"
    def choose(parent, caption, name, kinds):  # the system file dialog is a person's choice
        offered.append((caption, name))
        return str(target), kinds

    monkeypatch.setattr(receipt_view.QFileDialog, "getSaveFileName", choose)
    monkeypatch.setattr(receipt_view.QMessageBox, "warning", lambda parent, title, text: warned.append(text))
    preview._save()
    assert target.read_bytes() == pdf and offered == [("Save the end-of-shift report", "shift-tb-2001.pdf")]
    assert not list(tmp_path.glob("*.partial")) and warned == []

    target = tmp_path / "no such folder" / "saved.pdf"  # the file dialog's choice, gone since
    preview._save()
    assert len(warned) == 1 and "could not be saved" in warned[0] and "Pick another folder" in warned[0]
