"""Alt+X in the F10 dialog: the X report, the shift so far with nothing closed, counted or
written: the expected cash with its parts and the terminal's card figures, printable
(the configured printer, else the preview with Print…).

The figures come from ``station.z_report.x_report`` and its PDF from ``x_pdf``; this
dialog only shows them. Printed through the counter's ``ReceiptDesk``, the X report is its
last document: Ctrl+P on the sale screen prints it again.
"""

from __future__ import annotations

from pos_app.i18n import _
from pos_app.receipts import PrintJob
from pos_app.station.figures import sentence as figures_sentence
from pos_app.station.station import Station
from pos_app.station.z_report import XReport, x_pdf
from pos_app.ui.cash_count import fill_parts
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QPushButton,
    QShortcut,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.receipt_desk import Document, ReceiptDesk


class XReportDialog(QDialog):
    """The X figures (see the module); Enter prints, Esc closes."""

    def __init__(self, station: Station, x: XReport, parent: QWidget | None = None, *,
                 receipts: ReceiptDesk) -> None:
        super().__init__(parent)
        self.station = station
        self.receipts = receipts
        self.x = x
        self.printed: PrintJob | None = None
        money = station.money
        label = f"Z-{x.cash.z_next:04d}"
        self.setWindowTitle(_("X report"))
        self.setObjectName("xReport")
        heading = QLabel(_("X report: the shift so far"))
        heading.setObjectName("dialogHeading")
        figures = x.cash.figures
        note = QLabel(_("Nothing was closed, counted or written: {z} will close this shift (F10).").format(z=label))
        note.setWordWrap(True)
        parts = QGridLayout()
        parts.setVerticalSpacing(2)
        fill_parts(parts, x.cash, money)
        parts.setColumnStretch(2, 1)  # the amounts beside their labels, not across the window
        no_sales = QLabel(_("No sales (the drawer opened, no money moved): {count}").format(count=figures.no_sales))
        if x.card is not None:
            card_heading = _("Card, terminal {terminal} (batch open)").format(terminal=x.card.terminal_id)
            card_text = figures_sentence(x.card.figures, money)
        else:
            card_heading, card_text = _("Card"), _("No card terminal: no card figures.")
        self.card = QLabel(card_text)
        self.card.setObjectName("shiftFigures")
        self.card.setAccessibleName(_("Card figures"))
        self.card.setWordWrap(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.print_button = QPushButton(_("Print X report  (Enter)"))
        self.print_button.setDefault(True)
        close = QPushButton(_("Close  (Esc)"))
        self.print_button.setAccessibleDescription(_("Prints the X report (previews it when no printer is set)"))
        close.setAccessibleDescription(_("Closes the X report; nothing was closed or counted"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.print_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(note)
        layout.addWidget(_heading(_("Cash in the drawer")))
        layout.addLayout(parts)
        layout.addWidget(no_sales)
        layout.addWidget(_heading(card_heading))
        layout.addWidget(self.card)
        layout.addWidget(self.message)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self.resize(760, 540)
        self.print_button.clicked.connect(self._print)
        close.clicked.connect(self.accept)
        QShortcut(QKeySequence("Ctrl+P"), self, activated=self.print_button.click)
        enter_presses_focused_button(self)
        self.print_button.setFocus()

    @asyncSlot()
    async def _print(self) -> None:
        self.print_button.setEnabled(False)
        try:
            pdf = await x_pdf(self.station, self.x)
            said = await self.receipts.output(Document(pdf, _("X report"), "",
                                                       f"X-before-Z-{self.x.cash.z_next:04d}.pdf"))
        finally:
            self.print_button.setEnabled(True)
        self.printed = self.receipts.printed
        self.message.setText(said)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("countHeading")
    return label
