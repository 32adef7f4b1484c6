"""Receipts and reports as PDFs, and sending a PDF to the OS print system (no Qt).

``render_receipt(ReceiptData(...)) -> bytes``, ``render_slip(SlipData(...)) -> bytes`` (a capture,
void or refund), ``render_report(ReportData(...)) -> bytes``,
``print_pdf(pdf, printer) -> PrintJob`` (CUPS ``lp``; ``PrintError`` with a sentence for the
cashier), ``print_raw(data, printer, title=...)`` (bytes the printer reads as they are: a cash
drawer's pulse), ``list_printers()``.
Amounts are written by ``pos_app.money``. The names are imported when first used
(``pos_app.lazy``): fpdf2 costs tens of milliseconds to import.
"""

from typing import TYPE_CHECKING

from pos_app.lazy import exports

if TYPE_CHECKING:
    from pos_app.receipts.model import (
        Copy,
        ReceiptData,
        ReceiptLine,
        ReceiptTender,
        ReportData,
        ReportSection,
        TaxLine,
        TenderKind,
    )
    from pos_app.receipts.printing import (
        PrintError,
        PrintJob,
        default_printer,
        list_printers,
        print_pdf,
        print_raw,
    )
    from pos_app.receipts.render import TRAINING_BANNER, find_font, render_receipt, render_report
    from pos_app.receipts.slip import SlipData, SlipKind, render_slip

_HOMES = {
    "pos_app.receipts.model": ("Copy", "ReceiptData", "ReceiptLine", "ReceiptTender", "ReportData", "ReportSection",
                               "TaxLine", "TenderKind"),
    "pos_app.receipts.printing": ("PrintError", "PrintJob", "default_printer", "list_printers", "print_pdf",
                                  "print_raw"),
    "pos_app.receipts.render": ("TRAINING_BANNER", "find_font", "render_receipt", "render_report"),
    "pos_app.receipts.slip": ("SlipData", "SlipKind", "render_slip"),
}
__getattr__ = exports(__name__, _HOMES)
__all__ = [
    "Copy", "PrintError", "PrintJob", "ReceiptData", "ReceiptLine", "ReceiptTender", "ReportData", "ReportSection",
    "SlipData", "SlipKind", "TRAINING_BANNER", "TaxLine", "TenderKind", "default_printer", "find_font",
    "list_printers", "print_pdf", "print_raw", "render_receipt", "render_report", "render_slip",
]
