"""The documents of one counter: the sale receipt, the slip of a capture, void or refund,
a report handed to it (the end-of-shift report); each printed (no dialog) on the configured
printer, or previewed. The desk keeps the last document it output, whatever it was: Ctrl+P
prints that one again. The service's own receipt ("card slip") is one click away; it is
only shown, not kept as the last document (the back office shows it again).

Rendering and printing run off the Qt thread; a document that fails gives a sentence, and
the sale or the operation stays recorded. The preview (``pos_app.ui.receipt_view``: QtPdf
and the print dialog, some 25 ms of Qt set-up) is imported at the first preview, not when
the payment side attaches at start-up, where it held up a cashier's Enter on the sign-in
screen.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pos_app.i18n import N_, _
from pos_app.receipts import PrintError, PrintJob, print_pdf, render_receipt, render_slip
from pos_app.receipts.slip import SlipKind
from pos_app.station.receipt import receipt_of
from pos_app.station.slip import KINDS, ActedOn, slip_of

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.station.order import PaidCart
    from pos_app.terminal.outcomes import OperationResult
    from pos_app.ui.qt import QWidget

log = logging.getLogger(__name__)
SLIP_NAMES = {SlipKind.CAPTURE: N_("capture slip"), SlipKind.VOID: N_("void slip"), SlipKind.REFUND: N_("refund slip")}
"""What the status line and the preview call a slip (shown through ``_()``)."""
SLIP_NOT_MADE = {
    SlipKind.CAPTURE: N_("The capture slip could not be made ({error}); the capture is done."),
    SlipKind.VOID: N_("The void slip could not be made ({error}); the void is done."),
    SlipKind.REFUND: N_("The refund slip could not be made ({error}); the refund is done."),
}
"""By the slip's kind: its operation is done whatever becomes of its slip (shown through ``_()``)."""


@dataclass(frozen=True)
class Document:
    """A PDF the desk outputs, and what the status line and the preview call it."""

    pdf: bytes
    name: str
    """"receipt", "void slip", "end-of-shift report" (in the screen's language)."""
    detail: str = ""
    """Which one: "of $25.63, Visa **** 4242" (in the screen's language)."""
    file_name: str = "receipt.pdf"

    @property
    def what(self) -> str:
        return f"{self.name} {self.detail}".strip()

    @property
    def title(self) -> str:
        return self.name[:1].upper() + self.name[1:]

    @property
    def what_title(self) -> str:
        """``what`` starting with a capital, to begin a sentence."""
        what = self.what
        return what[:1].upper() + what[1:]


class ReceiptDesk:
    """Produces, prints and previews the documents of one counter; keeps the last one."""

    def __init__(self, counter: Counter, parent: QWidget) -> None:
        self.counter = counter
        self.parent = parent
        self.last: Document | None = None
        """The last document output (printed, tried or previewed): what Ctrl+P prints again."""
        self.printed: PrintJob | None = None
        """The print job of the last output; None when it was previewed or did not print."""

    @property
    def last_pdf(self) -> bytes | None:
        return self.last.pdf if self.last is not None else None

    async def deliver(self, paid: PaidCart) -> str:
        """The customer receipt of ``paid``: printed, or previewed. Returns a status sentence."""
        station = self.counter.station
        try:
            data = await receipt_of(paid, station.config, station.client, training=station.training)
            pdf = await asyncio.to_thread(render_receipt, data)
        except (ValueError, OSError) as error:
            log.exception("receipt of order %s not rendered", paid.payments[0].key if paid.payments else "-")
            return _("The receipt could not be made ({error}); the sale is recorded.").format(error=error)
        return await self.output(Document(pdf, _("receipt"),
                                          _("of {amount}").format(amount=data.money(data.total_cents))))

    async def deliver_slip(self, result: OperationResult, acted_on: ActedOn, *, manager: str = "") -> str:
        """The slip of an approved capture, void or refund: printed, or previewed. Returns a
        status sentence (the operation is done whatever becomes of its slip)."""
        station, kind = self.counter.station, str(result.operation)
        cashier = self.counter.cashier.name if self.counter.cashier is not None else "-"
        try:
            data = await slip_of(result, acted_on, station.config, station.client, cashier=cashier, manager=manager,
                                 training=station.training)
            pdf = await asyncio.to_thread(render_slip, data)
        except (ValueError, OSError) as error:
            log.exception("slip of %s %s not rendered", kind, result.attempt_id)
            not_made = SLIP_NOT_MADE.get(KINDS.get(result.operation.acts_as),  # type: ignore[arg-type]
                                         N_("The slip could not be made ({error}); the operation is done."))
            return _(not_made).format(error=error)
        return await self.output(Document(pdf, _(SLIP_NAMES[data.kind]), _("of {amount}, {card}").format(
            amount=data.money(data.total_cents), card=data.card), f"{data.kind}-slip.pdf"))

    async def output(self, document: Document, *, again: bool = False) -> str:
        """``document`` printed on the station's printer, or previewed when none is set; kept
        as the last document. Returns a status sentence."""
        self.last, self.printed = document, None
        printer = self.counter.station.config.printer
        if printer:
            try:
                job_title = f"pos-app {document.name}"  # not for people
                job = await asyncio.to_thread(print_pdf, document.pdf, printer, title=job_title)
            except PrintError as error:
                # TRANSLATORS: {document} is e.g. "receipt of $25.63" or "void slip of $10.00, Visa •••• 4242"
                return _("The {document} did not print: {error}").format(document=document.what, error=error)
            self.printed = job
            if again:
                return _("Reprinted: {document}, sent to {printer} ({job}).").format(
                    document=document.what, printer=printer, job=job.job_id)
            return _("{document} sent to {printer} ({job}).").format(document=document.what_title, printer=printer,
                                                                   job=job.job_id)
        await self.preview(document.pdf, title=document.title, file_name=document.file_name)
        if again:
            return _("Reprinted: {document}, shown.").format(document=document.what)
        return _("{document} shown.").format(document=document.what_title)

    async def reprint(self) -> str:
        """The last document again (a sale found paid at start, never printed yet: its receipt)."""
        if self.last is None:
            paid = self.counter.last_paid
            return _("Nothing to reprint yet.") if paid is None else await self.deliver(paid)
        return await self.output(self.last, again=True)

    async def card_slip(self, payment_id: str, *, for_merchant: bool = False) -> str:
        """The service's receipt PDF (customer or merchant copy), checked to be a PDF, previewed."""
        from pos_app.api.errors import PaymentsError

        try:
            pdf = await self.counter.station.client.receipt_pdf(payment_id, for_merchant=for_merchant)
        except PaymentsError as error:
            return (_("The merchant copy could not be fetched: {error}") if for_merchant else
                    _("The card slip could not be fetched: {error}")).format(error=error)
        await self.preview(pdf)
        return _("The merchant copy is shown.") if for_merchant else _("The card slip is shown.")

    async def preview(self, pdf: bytes, *, title: str | None = None, file_name: str = "receipt.pdf") -> None:
        """Show ``pdf`` (a page wider than a roll, a report, in a larger window); when it closes,
        the window that had the keys (the payment dialog, the back office) has them again, so
        Enter and Esc keep working without the mouse."""
        from pos_app.ui.dialogs import shown
        from pos_app.ui.qt import QApplication
        from pos_app.ui.receipt_view import ReceiptPreview  # QtPdf and printing: set up at the first preview

        before = QApplication.activeWindow()
        preview = ReceiptPreview(pdf, self.parent, title=_("Receipt") if title is None else title, file_name=file_name)
        if preview.document.pageCount() and preview.document.pagePointSize(0).width() > 300:  # wider than 80 mm
            preview.resize(760, 900)
        await shown(preview)
        if before is not None and before.isVisible():
            before.raise_()
            before.activateWindow()
