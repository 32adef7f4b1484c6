"""Receipts on screen and on paper.

With a receipt printer configured the customer receipt prints at once, without a dialog;
otherwise a preview opens with Print… (the system print dialog) and Save as…. The
service's own receipt ("card slip") is one click away. Rendering and printing run off
the Qt thread; a receipt that fails gives a sentence, and the sale stays recorded.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from pos_app.receipts import PrintError, print_pdf, render_receipt
from pos_app.station.counter import Counter, PaidCart
from pos_app.station.receipt import receipt_of
from pos_app.ui.dialogs import shown
from pos_app.ui.qt import (
    QApplication,
    QBuffer,
    QByteArray,
    QColor,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QImage,
    QIODevice,
    QMessageBox,
    QPainter,
    QPdfDocument,
    QPdfView,
    QPrintDialog,
    QPrinter,
    QPushButton,
    QSize,
    Qt,
    QVBoxLayout,
    QWidget,
)

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
            log.exception("receipt of %s not rendered", paid.result.attempt_id)
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
        if self.last_pdf is None:
            return "No receipt to reprint yet."
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
        before = QApplication.activeWindow()
        await shown(ReceiptPreview(pdf, self.parent))
        if before is not None and before.isVisible():
            before.raise_()
            before.activateWindow()


class ReceiptPreview(QDialog):
    def __init__(self, pdf: bytes, parent: QWidget | None = None, *, title: str = "Receipt",
                 file_name: str = "receipt.pdf") -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.file_name = file_name
        self.setObjectName("receiptPreview")
        self.pdf = pdf
        self.document = QPdfDocument(self)
        self._buffer = QBuffer(self)
        self._buffer.setData(QByteArray(pdf))
        self._buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        self.document.load(self._buffer)
        view = QPdfView(self)
        view.setDocument(self.document)
        view.setPageMode(QPdfView.PageMode.MultiPage)
        view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        print_button = QPushButton("Print…")
        save_button = QPushButton("Save as…")
        close_button = QPushButton("Close  (Esc)")
        close_button.setDefault(True)
        buttons = QHBoxLayout()
        for button in (print_button, save_button, close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(view, 1)
        layout.addLayout(buttons)
        print_button.clicked.connect(self._print)
        save_button.clicked.connect(self._save)
        close_button.clicked.connect(self.accept)
        self.resize(420, 640)

    def _print(self) -> None:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        if QPrintDialog(printer, self).exec() != QDialog.DialogCode.Accepted:
            return
        paint_pdf(self.document, printer)

    def _save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Save the {self.windowTitle().lower()}", self.file_name,
                                              "PDF (*.pdf)")
        if not path:
            return
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        try:  # a small file: written whole, then renamed, never half-written
            partial.write_bytes(self.pdf)
            partial.replace(target)
        except OSError as error:
            QMessageBox.warning(self, "Not saved", f"The PDF could not be saved to {target}: "
                                f"{error.strerror or error}. Pick another folder.")


def paint_pdf(document: QPdfDocument, printer: QPrinter) -> None:
    """Each page rendered and painted on the printer, on white (QtPdf renders transparent)."""
    painter = QPainter(printer)
    try:
        for page in range(document.pageCount()):
            if page:
                printer.newPage()
            target = painter.viewport()
            size = document.pagePointSize(page).toSize().scaled(target.size(), Qt.AspectRatioMode.KeepAspectRatio)
            image = QImage(size, QImage.Format.Format_ARGB32)
            image.fill(QColor("white"))
            rendered = document.render(page, QSize(size.width(), size.height()))
            image_painter = QPainter(image)
            image_painter.drawImage(0, 0, rendered)
            image_painter.end()
            painter.drawImage(0, 0, image)
    finally:
        painter.end()

