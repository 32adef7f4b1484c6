"""Open pre-auths (a tab, a deposit): a table of when each was taken, the amount held, who
took it, the card and the terminal; pick one, capture the final amount (at most the amount
reserved). Ctrl+T from the sale screen. An approved capture's slip goes out through the
counter's ``ReceiptDesk`` (printed, or previewed when no printer is set), said under the list."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from pos_app.i18n import N_, _
from pos_app.journal import Outcome
from pos_app.money import AmountError, MoneyFormat
from pos_app.station.counter import Counter
from pos_app.station.slip import ActedOn
from pos_app.station.till import OpenPreauth
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QModelIndex,
    QObject,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.sentences import explain, headline
from pos_app.ui.table_model import RowsModel

if TYPE_CHECKING:
    from pos_app.ui.receipt_desk import ReceiptDesk


class PreauthsModel(RowsModel[OpenPreauth]):
    HEADERS = (N_("Time"), N_("Amount"), N_("Cashier"), N_("Card"), N_("Terminal"))
    RIGHT_ALIGNED = frozenset({1})

    def __init__(self, money: Callable[[int], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt's name
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """A header in the language in force when it is shown."""
        header = super().headerData(section, orientation, role)
        return _(header) if isinstance(header, str) else header

    def cells(self, row: OpenPreauth) -> tuple[str, ...]:
        result = row.result
        card = " ".join(p for p in (result.card_brand, f"•••• {result.card_last4}" if result.card_last4 else "") if p)
        return (when(row.at), self.money(result.amount or 0), row.cashier or "—", card or "—", result.terminal_id)


def when(moment: datetime) -> str:
    """The local time a pre-auth was taken; with its date when not today (a tab kept open)."""
    local = moment.astimezone()
    return f"{local:%H:%M}" if local.date() == datetime.now().astimezone().date() else f"{local:%Y-%m-%d %H:%M}"


class PreauthsDialog(QDialog):
    def __init__(self, counter: Counter, money: MoneyFormat, parent: QWidget | None = None, *,
                 receipts: ReceiptDesk) -> None:
        super().__init__(parent)
        self.counter = counter
        self.money = money
        self.receipts = receipts
        self.setWindowTitle(_("Open pre-auths"))
        self.model = PreauthsModel(money, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(_("Open pre-auths"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.amount = QLineEdit()
        self.amount.setPlaceholderText(_("Amount to capture, e.g. {example}").format(example=money.example))
        self.amount.setAccessibleName(_("Amount to capture"))
        self.message = QLabel(_("Loading…"))
        self.message.setWordWrap(True)
        self.capture_button = QPushButton(_("Capture  (Enter)"))
        self.capture_button.setDefault(True)
        close = QPushButton(_("Close  (Esc)"))
        self.capture_button.setAccessibleDescription(_("Captures the amount typed on the selected pre-auth"))
        close.setAccessibleDescription(_("Closes the open pre-auths"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.capture_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.amount)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.resize(640, 420)
        self.table.selectionModel().currentRowChanged.connect(self._picked)
        self.capture_button.clicked.connect(self._capture)
        close.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.load()

    @asyncSlot()
    async def load(self, status: str = "") -> None:
        """List the open pre-auths; ``status`` (the last capture's result) stays shown."""
        self.model.show(await self.counter.open_preauths())
        hint = _("Pick a pre-auth, type the final amount, Enter.") if self.model.rows else _("No open pre-auths.")
        self.message.setText(f"{status}\n{hint}" if status else hint)
        if self.model.rows:
            self.table.setCurrentIndex(self.model.index(0, 0))
        self.amount.setFocus()

    def picked(self) -> OperationResult | None:
        """The result of the pre-auth picked in the table."""
        row = self.model.row_at(self.table.currentIndex().row())
        return row.result if row is not None else None

    def _picked(self, current: QModelIndex, *__: object) -> None:
        row = self.model.row_at(current.row())
        if row is not None:
            self.amount.setText(self.money.field(row.result.amount or 0))

    @asyncSlot()
    async def _capture(self) -> None:
        preauth = self.picked()
        if preauth is None:
            return
        try:
            cents = self.money.parse(self.amount.text())
        except AmountError as error:
            self.message.setText(f"{error}.")
            return
        if not cents:
            self.message.setText(_("Type the amount to capture, more than 0, e.g. {example}.").format(
                example=self.money.example))
            return
        if cents > (preauth.amount or 0):
            self.message.setText(_("At most {amount}: the amount reserved.").format(
                amount=self.money(preauth.amount or 0)))
            return
        self.capture_button.setEnabled(False)
        self.message.setText(_("Capturing…"))
        try:
            result = await self.counter.capture(preauth, cents)
        finally:
            self.capture_button.setEnabled(True)
        said = _("{headline}: {explanation}").format(headline=_(headline(result)),
                                                     explanation=explain(result, self.money))
        self.message.setText(said)
        if result.outcome is Outcome.APPROVED:
            if result.refusal is None:
                said = f"{said} {await self.receipts.deliver_slip(result, ActedOn.of_preauth(preauth))}"
            self.load(said)
