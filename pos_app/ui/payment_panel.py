"""The sale screen's payment panel: the order's payment lines (tender, amount, state) and the
balance still due, shown once the order has a line (a declined card included, so the
cashier sees why the balance did not move)."""

from __future__ import annotations

from pos_app.i18n import N_, _
from pos_app.money import MoneyFormat
from pos_app.station.order import LineState, OrderPayments, PaymentLine
from pos_app.ui.qt import QGridLayout, QLabel, Qt, QWidget

ALIGN_RIGHT = Qt.AlignmentFlag.AlignRight
STATES = {LineState.APPROVED: N_("approved"), LineState.PARTLY_APPROVED: N_("partly approved"),
          LineState.DECLINED: N_("declined"), LineState.FAILED: N_("failed"), LineState.UNKNOWN: N_("unknown"),
          LineState.VOIDED: N_("voided"), LineState.REFUNDED: N_("refunded"), LineState.RECEIVED: N_("received"),
          LineState.GIVEN_BACK: N_("given back")}
"""What the panel says of a line's state (the enum's values are the journal's)."""


class PaymentPanel(QWidget):
    def __init__(self, money: MoneyFormat, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.money = money
        self.setObjectName("paymentPanel")
        self.setAccessibleName(_("Payments of this sale"))
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 4, 0, 0)
        self.rows: list[tuple[str, str, str]] = []
        """What is shown: (tender, amount, state) per line, then ("Balance due", amount, "");
        the screen puts the state before the amount, so amounts line up with the totals."""
        self.hide()

    def show_order(self, payments: OrderPayments, total: int) -> None:
        lines = payments.lines
        self.rows = [(line.label, self.money(_shown_amount(line)), _state(line, self.money)) for line in lines]
        if lines:
            self.rows.append((_("Balance due"), self.money(payments.due(total)), ""))
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        for row, (tender, amount, state) in enumerate(self.rows):
            last = row == len(self.rows) - 1
            for column, text in enumerate((tender, state, amount)):
                label = QLabel(text)
                label.setObjectName("balanceDue" if last else "paymentLine")
                if column:
                    label.setAlignment(ALIGN_RIGHT)
                self.grid.addWidget(label, row, column)
        self.grid.setColumnStretch(0, 1)
        self.setVisible(bool(lines))


def _shown_amount(line: PaymentLine) -> int:
    """Cash: what was handed over; a card: what it charged, else what it asked."""
    if line.tendered is not None:
        return line.tendered
    return abs(line.counted) or line.amount


def _state(line: PaymentLine, money: MoneyFormat) -> str:
    if line.state is LineState.RECEIVED and line.change:
        return _("change {amount}").format(amount=money(line.change))
    if line.state is LineState.PARTLY_APPROVED:
        return _("partly approved, of {amount}").format(amount=money(line.amount))
    return _(STATES[line.state]) if line.state in STATES else str(line.state)
