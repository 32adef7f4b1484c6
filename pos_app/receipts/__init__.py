"""Receipts and reports as PDFs, and sending a PDF to the OS print system (no Qt).

``render_receipt(ReceiptData(...)) -> bytes``, ``render_report(ReportData(...)) -> bytes``,
``format_money(cents, currency="USD", locale=None)``, ``print_pdf(pdf, printer) -> PrintJob``
(CUPS ``lp``; ``PrintError`` with a sentence for the cashier), ``list_printers()``.
"""

from pos_app.receipts.model import Copy, ReceiptData, ReceiptLine, ReportData, ReportSection, TaxLine
from pos_app.receipts.money import format_money
from pos_app.receipts.printing import PrintError, PrintJob, default_printer, list_printers, print_pdf
from pos_app.receipts.render import TRAINING_BANNER, find_font, render_receipt, render_report

__all__ = [
    "TRAINING_BANNER", "Copy", "PrintError", "PrintJob", "ReceiptData", "ReceiptLine", "ReportData",
    "ReportSection", "TaxLine", "default_printer", "find_font", "format_money", "list_printers", "print_pdf",
    "render_receipt", "render_report",
]
