"""The needs-attention tab of the back office: payments whose result is not known, possible
matches and conflicts, each with what to do. Keep waiting and check again never resend;
mark paid / not paid is a manager's decision, checked against the service first
(``ManagerDialog``); a conflict (charged after "not paid") leads to its payment, to be
voided or refunded."""

from __future__ import annotations

from collections.abc import Callable

from babel.dates import format_datetime

from pos_app.i18n import N_, _, babel_locale, ngettext
from pos_app.journal import Outcome
from pos_app.journal.words import operation_name
from pos_app.station.back_office import AttentionItem, BackOffice, Problem
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.button_rows import button_rows
from pos_app.ui.dialogs import shown
from pos_app.ui.manager import ManagerDialog
from pos_app.ui.qt import (
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

LABELS = {Problem.UNRESOLVED: N_("Result not known"), Problem.CONFLICT: N_("Conflict"),
          Problem.ATTENTION: N_("Check")}
"""Shown through ``_()``."""
# TRANSLATORS: an operation as the journal names it (card_charge: a charge of a card on file; ach_: a bank account's)


class AttentionPanel(QWidget):
    show_payment = Signal(str)
    """The attempt id whose payment should be shown (to void or refund it)."""
    changed = Signal()

    def __init__(self, office: BackOffice, money: Callable[[int], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.office = office
        self.money = money
        self.items = QListWidget()
        self.items.setAccessibleName(_("Payments that need attention"))
        self.message = QLabel(_("Loading…"))
        self.message.setWordWrap(True)
        self.wait_button = QPushButton(_("&Keep waiting"))
        self.check_button = QPushButton(_("C&heck again"))
        self.decide_button = QPushButton(_("&Mark paid / not paid…"))
        self.payment_button = QPushButton(_("&Show the payment (to give it back)"))
        for widget, description in (
                (self.wait_button, _("Follows the payment picked with the service a while longer")),
                (self.check_button, _("Asks the service once more now, for the payment picked")),
                (self.decide_button, _("A manager marks the payment picked paid or not paid, with a reason")),
                (self.payment_button, _("Shows the payment picked in the payments list, to void or refund it"))):
            widget.setAccessibleDescription(description)
        buttons = button_rows((self.wait_button, self.check_button, self.decide_button, self.payment_button))
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
            when = format_datetime(attempt.created_at.astimezone(), "EEE HH:mm", locale=babel_locale())
            line = _("{problem}: {operation} of {amount} on {terminal}, {when} ({cashier})").format(
                problem=_(LABELS[item.problem]), operation=operation_name(attempt.operation),
                amount=self.money(attempt.amount or 0), terminal=attempt.terminal_id, when=when,
                cashier=attempt.cashier or _("no cashier"))
            entry = QListWidgetItem(f"{line}\n    {item.note}")
            entry.setData(Qt.ItemDataRole.UserRole, item)
            self.items.addItem(entry)
        if found:
            self.items.setCurrentRow(0)
        hint = (ngettext("{count} to look at.", "{count} to look at.", len(found)).format(count=len(found)) if found
                else _("Nothing needs attention."))
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
        self.message.setText(_("Following the payment…") if wait_limit else _("Checking with the payment service…"))
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
        self.refresh(_("{headline}: {explanation}").format(headline=_(headline(result)),
                                                          explanation=explain(result, self.money)))
