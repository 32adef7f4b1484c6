"""The receipts of one counter: made, printed (no dialog) on the configured printer, or
previewed; the service's own receipt ("card slip") one click away.

Rendering and printing run off the Qt thread; a receipt that fails gives a sentence, and
the sale stays recorded. The preview (``pos_app.ui.receipt_view``: QtPdf and the print
dialog, some 25 ms of Qt set-up) is imported at the first preview, not when the payment
side attaches at start-up, where it held up a cashier's Enter on the sign-in screen.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from pos_app.receipts import PrintError, print_pdf, render_receipt
from pos_app.station.receipt import receipt_of

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.station.order import PaidCart
    from pos_app.ui.qt import QWidget

log = logging.getLogger(__name__)


class ReceiptDesk:
    """Produces, prints and previews the receipts of one counter."""

    def __init__(self, counter: Counter, parent: QWidget) -> None:
        self.counter = counter
        self.parent = parent
        self.last_pdf: bytes | None = None

    async def deliver(self, paid: PaidCart) -> str:
        """The customer receipt of ``paid``: printed, or previewed. Returns a status sentence."""
        station = self.counter.station
        try:
            data = await receipt_of(paid, station.config, station.client, training=station.training)
            pdf = await asyncio.to_thread(render_receipt, data)
        except (ValueError, OSError) as error:
            log.exception("receipt of order %s not rendered", paid.payments[0].key if paid.payments else "-")
            return f"The receipt could not be made ({error}); the sale is recorded."
        self.last_pdf = pdf
        return await self.output(pdf)

    async def output(self, pdf: bytes) -> str:
        printer = self.counter.station.config.printer
        if printer:
            try:
                job = await asyncio.to_thread(print_pdf, pdf, printer)
            except PrintError as error:
                return f"The receipt did not print: {error}"
            return f"Receipt sent to {printer} ({job.job_id})."
        await self.preview(pdf)
        return "Receipt shown."

    async def reprint(self) -> str:
        """The last receipt again (made now for a sale found paid at start, never printed yet)."""
        if self.last_pdf is None:
            paid = self.counter.last_paid
            return "No receipt to reprint yet." if paid is None else await self.deliver(paid)
        return await self.output(self.last_pdf)

    async def card_slip(self, payment_id: str, *, for_merchant: bool = False) -> str:
        """The service's receipt PDF (customer or merchant copy), checked to be a PDF, previewed."""
        from pos_app.api.errors import PaymentsError

        copy = "merchant copy" if for_merchant else "card slip"
        try:
            pdf = await self.counter.station.client.receipt_pdf(payment_id, for_merchant=for_merchant)
        except PaymentsError as error:
            return f"The {copy} could not be fetched: {error}"
        await self.preview(pdf)
        return f"The {copy} is shown."

    async def preview(self, pdf: bytes) -> None:
        """Show ``pdf``; when it closes, the window that had the keys (the payment dialog, the
        back office) has them again, so Enter and Esc keep working without the mouse."""
        from pos_app.ui.dialogs import shown
        from pos_app.ui.qt import QApplication
        from pos_app.ui.receipt_view import ReceiptPreview  # QtPdf and printing: set up at the first preview

        before = QApplication.activeWindow()
        await shown(ReceiptPreview(pdf, self.parent))
        if before is not None and before.isVisible():
            before.raise_()
            before.activateWindow()
