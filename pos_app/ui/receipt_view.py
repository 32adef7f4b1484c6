"""A receipt (or any PDF: a card slip, a shift report) on screen: the preview, with
Print… (the system print dialog) and Save as….

``pos_app.ui.receipt_desk`` decides when a receipt is printed at once and when it is
previewed here.
"""

from __future__ import annotations

from pathlib import Path

from pos_app.i18n import _
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
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


class ReceiptPreview(QDialog):
    def __init__(self, pdf: bytes, parent: QWidget | None = None, *, title: str | None = None,
                 file_name: str = "receipt.pdf") -> None:
        super().__init__(parent)
        self.setWindowTitle(title or _("Receipt"))
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
        view.setAccessibleName(self.windowTitle())  # the document shown: "Receipt", "Z report"
        print_button = QPushButton(_("Print…"))
        save_button = QPushButton(_("Save as…"))
        close_button = QPushButton(_("Close  (Esc)"))
        for widget, description in ((print_button, _("Prints this document on a printer you choose")),
                                    (save_button, _("Saves this document as a PDF file")),
                                    (close_button, _("Closes the preview"))):
            widget.setAccessibleDescription(description)
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
        enter_presses_focused_button(self)

    def _print(self) -> None:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        if QPrintDialog(printer, self).exec() != QDialog.DialogCode.Accepted:
            return
        paint_pdf(self.document, printer)

    def _save(self) -> None:
        title = self.windowTitle()
        # TRANSLATORS: {document} is the preview's title, first letter lowered: "receipt", "end-of-shift report"
        path, __ = QFileDialog.getSaveFileName(self, _("Save the {document}").format(
            document=title[:1].lower() + title[1:]), self.file_name, _("PDF (*.pdf)"))
        if not path:
            return
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        try:  # a small file: written whole, then renamed, never half-written
            partial.write_bytes(self.pdf)
            partial.replace(target)
        except OSError as error:
            QMessageBox.warning(self, _("Not saved"), _("The PDF could not be saved to {path}: {error}. Pick another "
                                                        "folder.").format(path=target, error=error.strerror or error))


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

