"""The needs-attention tab of the back office: payments whose result is not known, possible
matches and conflicts, each with what to do. Keep waiting and check again never resend;
mark paid / not paid is a manager's decision, checked against the service first
(``ManagerDialog``); a conflict (charged after "not paid") leads to its payment, to be
voided or refunded."""

from __future__ import annotations

from collections.abc import Callable

from pos_app.journal import Outcome
from pos_app.station.back_office import AttentionItem, BackOffice, Problem
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.dialogs import shown
from pos_app.ui.manager import ManagerDialog
from pos_app.ui.qt import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
    asyncSlot,
)
from pos_app.ui.sentences import explain, headline

KEEP_WAITING_S = 30.0
"""How long "keep waiting" follows the payment before saying it is still unknown."""

LABELS = {Problem.UNRESOLVED: "Result not known", Problem.CONFLICT: "Conflict",
          Problem.ATTENTION: "Check"}


class AttentionPanel(QWidget):
    show_payment = Signal(str)
    """The attempt id whose payment should be shown (to void or refund it)."""
    changed = Signal()

    def __init__(self, office: BackOffice, money: Callable[[int], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.office = office
        self.money = money
        self.items = QListWidget()
        self.items.setAccessibleName("Payments that need attention")
        self.message = QLabel("Loading…")
        self.message.setWordWrap(True)
        self.wait_button = QPushButton("&Keep waiting")
        self.check_button = QPushButton("C&heck again")
        self.decide_button = QPushButton("&Mark paid / not paid…")
        self.payment_button = QPushButton("&Show the payment (to give it back)")
        buttons = QHBoxLayout()
        for button in (self.wait_button, self.check_button, self.decide_button, self.payment_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.items, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.items.currentItemChanged.connect(lambda *_: self._selected())
        self.wait_button.clicked.connect(lambda: self._check(KEEP_WAITING_S))
        self.check_button.clicked.connect(lambda: self._check(0.0))
        self.decide_button.clicked.connect(self._decide)
        self.payment_button.clicked.connect(self._show_payment)
        self._selected()

    @asyncSlot()
    async def refresh(self, said: str = "") -> None:
        found = await self.office.needs_attention()
        self.items.clear()
        for item in found:
            attempt = item.attempt
            when = attempt.created_at.astimezone().strftime("%a %H:%M")
            entry = QListWidgetItem(f"{LABELS[item.problem]}: {attempt.operation} of "
                                    f"{self.money(attempt.amount or 0)} on {attempt.terminal_id}, {when} "
                                    f"({attempt.cashier or 'no cashier'})\n    {item.note}")
            entry.setData(Qt.ItemDataRole.UserRole, item)
            self.items.addItem(entry)
        if found:
            self.items.setCurrentRow(0)
        hint = f"{len(found)} to look at." if found else "Nothing needs attention."
        self.message.setText(f"{said} {hint}".strip())
        self._selected()

    def selected(self) -> AttentionItem | None:
        entry = self.items.currentItem()
        return entry.data(Qt.ItemDataRole.UserRole) if entry is not None else None

    def _selected(self) -> None:
        item = self.selected()
        open_one = item is not None and item.problem is Problem.UNRESOLVED
        self.wait_button.setEnabled(open_one)
        self.check_button.setEnabled(open_one)
        self.decide_button.setEnabled(open_one)
        self.payment_button.setEnabled(item is not None and item.problem is not Problem.UNRESOLVED)

    @asyncSlot()
    async def _check(self, wait_limit: float) -> None:
        item = self.selected()
        if item is None:
            return
        self.message.setText("Following the payment…" if wait_limit else "Checking with the payment service…")
        for button in (self.wait_button, self.check_button):
            button.setEnabled(False)
        try:
            result = await self.office.station.check_again(item.attempt.id, wait_limit=wait_limit)
        finally:
            self._selected()
        await self._said(result)

    @asyncSlot()
    async def _decide(self) -> None:
        item = self.selected()
        if item is None:
            return
        dialog = ManagerDialog(self.office.counter, OperationResult.from_attempt(item.attempt), self)
        await shown(dialog)
        if dialog.decision is not None:
            await self._said(dialog.decision)

    def _show_payment(self) -> None:
        item = self.selected()
        if item is not None:
            self.show_payment.emit(item.attempt.id)

    async def _said(self, result: OperationResult) -> None:
        if result.outcome is not Outcome.UNKNOWN:
            self.changed.emit()
        self.refresh(f"{headline(result)}: {explain(result, self.money)}")
