"""The back office's return of items (F9, a sale's row, "Return items…"): the order's lines
with the quantity to return of each, the amount and the plan in words. Keyboard: ↑ ↓ pick a
line, digits type its quantity (Backspace clears it, + and − step it), Enter goes on to the
manager's PIN and reason. The plan is ``OrderForReturn.plan``'s (Qt-free); this dialog only
shows it and keeps the picked quantities."""

from __future__ import annotations

from pos_app.i18n import N_, _
from pos_app.money import MoneyFormat
from pos_app.station.returns import OrderForReturn, ReturnPlan
from pos_app.ui.qt import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QEvent,
    QHBoxLayout,
    QHeaderView,
    QKeyEvent,
    QLabel,
    QObject,
    QPushButton,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

HEADERS = (N_("Item"), N_("SKU"), N_("Price"), N_("Sold"), N_("Returned before"), N_("Return"))
QUANTITY = 5


class ReturnDialog(QDialog):
    """Pick lines and quantities; ``plan`` is set when it is accepted."""

    def __init__(self, order: OrderForReturn, money: MoneyFormat, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.order = order
        self.money = money
        self.picked: dict[int, int] = {}
        self.plan: ReturnPlan | None = None
        self._typed = ""
        self.setWindowTitle(_("Return items"))
        self.table = QTableWidget(len(order.lines), len(HEADERS))
        self.table.setAccessibleName(_("Lines to return"))
        self.table.setHorizontalHeaderLabels([_(header) for header in HEADERS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for number, entry in enumerate(order.lines):
            line = entry.line
            cells = (line.name, line.sku or "", money(line.unit_cents), str(line.quantity), str(entry.returned), "0")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not entry.returnable:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(number, column, item)
        # a check box does not wrap: its sentence short, what it means for a card on a line that does
        self.to_cash = QCheckBox(_("Give it all back in &cash from the drawer"))
        cash_note = QLabel(_("A card sale too: a manager's refund to cash, audited."))
        cash_note.setWordWrap(True)
        self.to_cash.setAccessibleDescription(cash_note.text())
        self.to_cash.setVisible(order.has_card)
        cash_note.setVisible(order.has_card)
        self.amount = QLabel("")
        self.amount.setAccessibleName(_("Amount to give back"))
        self.amount.setObjectName("total")
        bold = self.amount.font()
        bold.setBold(True)
        self.amount.setFont(bold)
        self.steps = QLabel("")
        self.steps.setWordWrap(True)
        self.steps.setAccessibleName(_("How it goes back"))
        self.steps.setMinimumWidth(self.fontMetrics().averageCharWidth() * 80)
        self.steps.setMinimumHeight(self.fontMetrics().lineSpacing() * 5)  # the plan is never cut
        self.table.setMinimumHeight(self.table.verticalHeader().defaultSectionSize() * min(len(order.lines) + 1, 8)
                                    + self.table.horizontalHeader().sizeHint().height())
        self.ok = QPushButton(_("Return…  (Enter)"))
        self.ok.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        self.ok.setAccessibleDescription(_("Goes on to a manager's approval of this return"))
        cancel.setAccessibleDescription(_("Closes without returning anything"))
        hint = QLabel(_("↑ ↓ pick a line, type the quantity to return (Backspace clears it, + − step it), "
                        "Enter to go on."))
        hint.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.ok)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.to_cash)
        layout.addWidget(cash_note)
        layout.addWidget(self.amount)
        layout.addWidget(self.steps)
        layout.addLayout(buttons)
        self.table.installEventFilter(self)
        self.table.currentCellChanged.connect(self._row_changed)
        self.to_cash.toggled.connect(self._show_plan)
        self.ok.clicked.connect(self._go_on)
        cancel.clicked.connect(self.reject)
        first = next((n for n, e in enumerate(order.lines) if e.returnable), 0)
        self.table.setCurrentCell(first, QUANTITY)
        self.table.setFocus()
        self.resize(self.fontMetrics().averageCharWidth() * 100, self.sizeHint().height())
        self._show_plan()

    # keys -------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            return self._key(event)
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        row = self.table.currentRow()
        key, text = event.key(), event.text()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._go_on()
            return True
        if row < 0:
            return False
        entry = self.order.lines[row]
        if text.isdigit() and len(text) == 1:
            self._typed = (self._typed + text).lstrip("0")[-4:]
            self._set(row, int(self._typed or "0"))
            return True
        if key in (Qt.Key.Key_Backspace, Qt.Key.Key_Delete):
            self._typed = ""
            self._set(row, 0)
            return True
        if text in ("+", "-"):
            self._typed = ""
            self._set(row, self.picked.get(entry.line.line_id, 0) + (1 if text == "+" else -1))
            return True
        return False

    def _row_changed(self, *__: object) -> None:
        self._typed = ""  # digits typed on another line start afresh

    def _set(self, row: int, quantity: int) -> None:
        entry = self.order.lines[row]
        if not entry.returnable:
            self.steps.setText((_("{item}: nothing of it can be returned (a discount line)")
                                if entry.line.unit_cents <= 0 else
                                _("{item}: nothing of it can be returned (all returned before)")).format(
                item=entry.line.name))
            return
        quantity = max(0, min(quantity, entry.left))
        if quantity:
            self.picked[entry.line.line_id] = quantity
        else:
            self.picked.pop(entry.line.line_id, None)
        item = self.table.item(row, QUANTITY)
        assert item is not None
        item.setText(str(quantity))
        self._show_plan()

    # the plan ---------------------------------------------------------------------------

    def _show_plan(self, *__: object) -> None:
        self.plan = None
        if not self.picked:
            self.amount.setText(_("To give back: {amount}").format(amount=self.money(0)))
            self.steps.setText(_("Type the quantity to return on each line.") + self._notes())
            self.ok.setEnabled(False)
            return
        try:
            plan = self.order.plan(self.picked, to_cash=self.to_cash.isChecked())
        except ValueError as error:
            self.amount.setText("")
            self.steps.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            self.ok.setEnabled(False)
            return
        self.plan = plan
        self.amount.setText(_("To give back: {amount} ({subtotal} + {tax} tax)").format(
            amount=self.money(plan.amount), subtotal=self.money(plan.subtotal), tax=self.money(plan.tax)))
        self.steps.setText("\n".join(f"• {sentence}." for sentence in plan.sentences(self.money)) + self._notes())
        self.ok.setEnabled(True)

    def _notes(self) -> str:
        return "".join("\n" + _("Note: {note}.").format(note=note) for note in self.order.notes)

    def _go_on(self) -> None:
        if self.plan is not None:
            self.accept()
