"""Open pre-auths (a tab, a deposit): pick one, capture the final amount (at most the
amount reserved). Ctrl+T from the sale screen."""

from __future__ import annotations

from pos_app.api.money import cents_to_dollars
from pos_app.journal import Outcome
from pos_app.station.counter import Counter
from pos_app.station.payments import parse_amount
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.sentences import explain, headline


class PreauthsDialog(QDialog):
    def __init__(self, counter: Counter, money, parent: QWidget | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.counter = counter
        self.money = money
        self.setWindowTitle("Open pre-auths")
        self.list = QListWidget()
        self.list.setAccessibleName("Open pre-auths")
        self.amount = QLineEdit()
        self.amount.setPlaceholderText("Amount to capture, e.g. 12.50")
        self.amount.setAccessibleName("Amount to capture")
        self.message = QLabel("Loading…")
        self.message.setWordWrap(True)
        self.capture_button = QPushButton("Capture  (Enter)")
        self.capture_button.setDefault(True)
        close = QPushButton("Close  (Esc)")
        buttons = QHBoxLayout()
        buttons.addWidget(self.capture_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.amount)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.resize(640, 420)
        self.list.currentItemChanged.connect(self._picked)
        self.capture_button.clicked.connect(self._capture)
        close.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.load()

    @asyncSlot()
    async def load(self, status: str = "") -> None:
        """List the open pre-auths; ``status`` (the last capture's result) stays shown."""
        self.list.clear()
        for result in await self.counter.open_preauths():
            card = " ".join(p for p in (result.card_brand, f"•••• {result.card_last4}" if result.card_last4 else "")
                            if p)
            entry = QListWidgetItem(f"{self.money(result.amount or 0)}   {card}   {result.terminal_id}   "
                                    f"{result.attempt_id}")
            entry.setData(Qt.ItemDataRole.UserRole, result)
            self.list.addItem(entry)
        hint = "Pick a pre-auth, type the final amount, Enter." if self.list.count() else "No open pre-auths."
        self.message.setText(f"{status}\n{hint}" if status else hint)
        if self.list.count():
            self.list.setCurrentRow(0)
        self.amount.setFocus()

    def _picked(self, entry: QListWidgetItem | None) -> None:
        if entry is not None:
            result: OperationResult = entry.data(Qt.ItemDataRole.UserRole)
            self.amount.setText(str(cents_to_dollars(result.amount or 0)))

    @asyncSlot()
    async def _capture(self) -> None:
        entry = self.list.currentItem()
        if entry is None:
            return
        preauth: OperationResult = entry.data(Qt.ItemDataRole.UserRole)
        try:
            cents = parse_amount(self.amount.text())
        except ValueError as error:
            self.message.setText(f"{error}.")
            return
        if not cents:
            self.message.setText("Type the amount to capture, more than 0, e.g. 12.50.")
            return
        if cents > (preauth.amount or 0):
            self.message.setText(f"At most {self.money(preauth.amount or 0)}: the amount reserved.")
            return
        self.capture_button.setEnabled(False)
        self.message.setText("Capturing…")
        try:
            result = await self.counter.capture(preauth, cents)
        finally:
            self.capture_button.setEnabled(True)
        said = f"{headline(result)}: {explain(result)}"
        self.message.setText(said)
        if result.outcome is Outcome.APPROVED:
            self.load(said)
