"""The payments tab of the back office (F9): today's payments, filters, and for the
selected one void, refund, refund all and either receipt. The list and every action come
from ``BackOffice`` (Qt-free); this module only shows them and asks the manager. An
approved void or refund's slip goes out through the counter's ``ReceiptDesk`` (printed, or
previewed when no printer is set), its sentence under the list."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pos_app.api.errors import PaymentsError
from pos_app.i18n import N_, _, ngettext
from pos_app.journal import JournalError, Outcome
from pos_app.journal.words import operation_name
from pos_app.money import AmountError, MoneyFormat
from pos_app.staff import StaffMember
from pos_app.station.back_office import BackOffice, History
from pos_app.station.payments import PaymentFilter, PaymentMethod, PaymentRow, PaymentStatus, filtered
from pos_app.station.slip import ActedOn
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.button_rows import button_rows
from pos_app.ui.dialogs import shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QObject,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    Signal,
    asyncSlot,
)
from pos_app.ui.return_dialog import ReturnDialog
from pos_app.ui.sentences import explain, headline
from pos_app.ui.table_model import RowsModel

ALL = N_("All")
STATUS_WORDS = {PaymentStatus.APPROVED: N_("approved"), PaymentStatus.PREAUTH: N_("pre-auth"),
                PaymentStatus.PARTLY_REFUNDED: N_("partly refunded"), PaymentStatus.REFUNDED: N_("refunded"),
                PaymentStatus.VOIDED: N_("voided"), PaymentStatus.DECLINED: N_("declined"),
                PaymentStatus.FAILED: N_("failed"), PaymentStatus.UNKNOWN: N_("unknown")}
"""What the list and its filter say of each status (the enum's values are the station's)."""


def status_words(status: PaymentStatus) -> str:
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else str(status)


class PaymentsModel(RowsModel[PaymentRow]):
    HEADERS = (N_("Time"), N_("Terminal"), N_("Cashier"), N_("Amount"), N_("Surcharge"), N_("Card"), N_("Status"),
               N_("Settled"))
    RIGHT_ALIGNED = frozenset({3, 4})

    def __init__(self, money: Callable[[int], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def extra(self, row: PaymentRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and row.conflict:
            return _("Marked not paid, but the service charged the card: give the money back or keep the sale.")
        return None

    def cells(self, row: PaymentRow) -> tuple[str, ...]:
        status = status_words(row.status)
        if row.conflict:
            status = _("{status} ⚠ charged after 'not paid'").format(status=status)
        settled = {True: _("yes"), False: _("no"), None: "?"}[row.settled]
        terminal = row.terminal_id or ("?" if row.method is PaymentMethod.TERMINAL else "—")  # no terminal took it
        return (row.at.astimezone().strftime("%H:%M:%S") if row.at else "?", terminal,
                row.cashier or "—", self.money(row.total), self.money(row.surcharge) if row.surcharge else "",
                row.card or "—", status, settled)


class PaymentsPanel(QWidget):
    """Filters above the table, the selected payment's actions below it."""

    changed = Signal()
    """A void or refund went through: other tabs (needs attention) may refresh."""

    def __init__(self, office: BackOffice, money: MoneyFormat, receipts: Any,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.office = office
        self.money = money
        self.receipts = receipts
        self.history = History((), True)
        self.day_read = False
        """Whether the whole day has been read once (not only a first page): the rows can be acted on."""
        self.pending: str | None = None
        self.terminal = QComboBox()
        self.terminal.setAccessibleName(_("Terminal filter"))
        self.terminal.addItem(_(ALL), None)
        self.status = QComboBox()
        self.status.setAccessibleName(_("Status filter"))
        self.status.addItem(_(ALL), None)
        for payment_status in PaymentStatus:
            self.status.addItem(status_words(payment_status), payment_status)
        self.min_total = QLineEdit()
        self.min_total.setPlaceholderText(_("from {symbol}").format(symbol=money.symbol))
        self.min_total.setAccessibleName(_("Smallest amount"))
        self.max_total = QLineEdit()
        self.max_total.setPlaceholderText(_("to {symbol}").format(symbol=money.symbol))
        self.max_total.setAccessibleName(_("Largest amount"))
        self.text = QLineEdit()
        self.text.setPlaceholderText(_("Search: card last 4, cashier, payment id…"))
        self.text.setAccessibleName(_("Search payments"))
        self.model = PaymentsModel(money, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(_("Payments"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setMinimumHeight(self.detail.fontMetrics().lineSpacing() * 2 + 6)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # ids for support
        self.detail.setAccessibleName(_("Selected payment"))
        self.message = QLabel(_("Loading today's payments…"))
        self.message.setWordWrap(True)
        self.message.setAccessibleName(_("Payments status"))
        self.refresh_button = QPushButton(_("Refresh  (F5)"))
        self.void_button = QPushButton(_("&Void…"))
        self.refund_button = QPushButton(_("&Refund…"))
        self.refund_all_button = QPushButton(_("Refund &all…"))
        self.return_button = QPushButton(_("Return &items…"))
        self.slip_button = QPushButton(_("&Customer receipt"))
        self.merchant_button = QPushButton(_("&Merchant copy"))
        for widget, description in (
                (self.table, _("Today's payments, newest first; pick one to void, refund or reprint it")),
                (self.void_button, _("Gives the whole payment back before it is settled (a manager's PIN)")),
                (self.refund_button, _("Gives part of a settled payment back to its card (a manager's PIN)")),
                (self.refund_all_button, _("Gives all of a settled payment back to its card (a manager's PIN)")),
                (self.return_button, _("Gives back the money of some of the sale's items, to the tenders they "
                                       "came from (a manager's PIN)")),
                (self.slip_button, _("Prints the customer's receipt of this payment again")),
                (self.merchant_button, _("Prints the store's copy of this payment's receipt")),
                (self.refresh_button, _("Reads today's payments again")),
                (self.terminal, _("Shows only the payments of one terminal")),
                (self.status, _("Shows only the payments with one outcome"))):
            widget.setAccessibleDescription(description)
        search = QHBoxLayout()
        search.addWidget(self.text, 1)
        search.addWidget(self.refresh_button)
        filters = QHBoxLayout()
        for label, widget in ((_("Terminal"), self.terminal), (_("Status"), self.status)):
            named = QLabel(label)
            named.setBuddy(widget)
            filters.addWidget(named)
            filters.addWidget(widget)
        amount = QLabel(_("Amount"))
        amount.setBuddy(self.min_total)
        filters.addWidget(amount)
        filters.addWidget(self.min_total)
        filters.addWidget(self.max_total)
        filters.addStretch(1)
        actions = button_rows((self.void_button, self.refund_button, self.refund_all_button, self.return_button,
                               self.slip_button, self.merchant_button))
        layout = QVBoxLayout(self)
        layout.addLayout(search)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addLayout(actions)
        layout.addWidget(self.message)
        for box in (self.terminal, self.status):
            box.currentIndexChanged.connect(self.apply_filter)
        for field in (self.min_total, self.max_total, self.text):
            field.textChanged.connect(self.apply_filter)
        self.table.selectionModel().currentRowChanged.connect(self._selected)
        # Tab: the search, the list, its actions in their row's order, then the refresh and the filters
        order = (self.text, self.table, self.void_button, self.refund_button, self.refund_all_button,
                 self.return_button, self.slip_button, self.merchant_button, self.refresh_button, self.terminal,
                 self.status, self.min_total, self.max_total)
        for before, after in itertools.pairwise(order):
            QWidget.setTabOrder(before, after)
        self.refresh_button.clicked.connect(self.refresh)
        self.void_button.clicked.connect(self._void)
        self.refund_button.clicked.connect(lambda: self._refund(everything=False))
        self.refund_all_button.clicked.connect(lambda: self._refund(everything=True))
        self.return_button.clicked.connect(self._return_items)
        self.slip_button.clicked.connect(lambda: self._slip(for_merchant=False))
        self.merchant_button.clicked.connect(lambda: self._slip(for_merchant=True))
        self._selected()

    # the list ---------------------------------------------------------------------------

    @asyncSlot()
    async def refresh(self, said: str = "") -> None:
        """Read today's payments again (``said``: the last action's result, kept shown). A
        first read of the day shows the journal's newest payments at once, then the whole day."""
        self.refresh_button.setEnabled(False)
        today = datetime.now().date()
        try:
            if not self.office.is_warm(today):
                self.show_history(await self.office.first_page(today), said)
            self.show_history(await self.office.payments(today), said)
        finally:
            self.refresh_button.setEnabled(True)

    def show_history(self, history: History, said: str = "") -> None:
        """``history`` in the table, filtered as the fields say; a first page is shown to look
        at, its actions off until the whole day is read."""
        self.history = history
        terminals = sorted({row.terminal_id for row in history.rows if row.terminal_id})
        current = self.terminal.currentData()
        self.terminal.blockSignals(True)
        self.terminal.clear()
        self.terminal.addItem(_(ALL), None)
        for terminal in terminals:
            self.terminal.addItem(terminal, terminal)
        self.terminal.setCurrentIndex(terminals.index(current) + 1 if current in terminals else 0)
        self.terminal.blockSignals(False)
        self.apply_filter()
        self.day_read = self.day_read or not history.first_page
        if history.first_page:
            newest = len(history.rows)
            self.message.setText(ngettext("The newest {count} payment; reading the rest of today's…",
                                          "The newest {count} payments; reading the rest of today's…",
                                          newest).format(count=newest))
            return
        if self.pending is not None:
            if not self.select(self.pending):
                said = " ".join(part for part in (
                    _("That payment is not in today's list (it may be from another day)."), said) if part)
            self.pending = None
        note = history.problem or ("" if history.complete else
                                   _("The service's list was not read to the end: some payments may be missing."))
        count = len(history.rows)
        self.message.setText(" ".join(part for part in (said, note) if part) or ngettext(
            "{count} payment today. Type to search; Tab to the list; Alt+V void, Alt+R refund, Alt+A refund all, "
            "Alt+I return items.",
            "{count} payments today. Type to search; Tab to the list; Alt+V void, Alt+R refund, Alt+A refund all, "
            "Alt+I return items.", count).format(count=count))
        if not said:
            self.text.setFocus()

    def current_filter(self) -> PaymentFilter:
        """The filter the fields describe, amounts read the store's way; an amount that does not
        parse is ignored (its field framed red, the reason in its tooltip)."""
        bounds: list[int | None] = []
        for field in (self.min_total, self.max_total):
            try:
                bounds.append(self.money.parse(field.text()))
                field.setStyleSheet("")
                field.setToolTip("")
            except AmountError as error:
                bounds.append(None)
                field.setStyleSheet("border: 2px solid #c0392b;")
                field.setToolTip(f"{str(error)[:1].upper()}{str(error)[1:]}.")
        terminal = self.terminal.currentData()
        status = self.status.currentData()
        return PaymentFilter(terminal_id=terminal or None, status=status,
                             min_total=bounds[0], max_total=bounds[1], text=self.text.text())

    def apply_filter(self) -> None:
        chosen = self.selected()
        self.model.show(filtered(self.history.rows, self.current_filter()))
        if (chosen is None or not self.select(chosen.key)) and self.model.rows:
            self.table.setCurrentIndex(self.model.index(0, 0))  # the newest: Alt+V/Alt+R act at once
            self.table.selectRow(0)
        self._selected()

    def selected(self) -> PaymentRow | None:
        index = self.table.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

    def select(self, key: str) -> bool:
        """Make the row of ``key`` (a payment key or an attempt id) current; False if not listed."""
        for number, row in enumerate(self.model.rows):
            if row.key == key or row.attempt_id == key:
                self.table.setCurrentIndex(self.model.index(number, 0))
                self.table.selectRow(number)
                return True
        return False

    def show_when_listed(self, key: str) -> None:
        """Select ``key`` now, or once the list (still loading) has it."""
        if not self.select(key):
            self.pending = key

    def _selected(self, *__: object) -> None:
        row = self.selected()
        if self.history.first_page:  # rows to look at, not to act on, until the whole day is read
            row = None
        self.void_button.setEnabled(row is not None and row.voidable)
        self.refund_button.setEnabled(row is not None and row.refundable > 0)
        self.refund_all_button.setEnabled(row is not None and row.refundable > 0)
        self.return_button.setEnabled(row is not None and (row.attempt_id or row.payment_id) is not None
                                      and row.status in (PaymentStatus.APPROVED, PaymentStatus.PARTLY_REFUNDED))
        self.slip_button.setEnabled(row is not None and row.payment_id is not None)
        self.merchant_button.setEnabled(row is not None and row.payment_id is not None)
        if self.history.first_page:
            self.detail.setText(_("Void, refund and reprint are ready once the rest of today's payments is read."))
        elif row is None:
            self.detail.setText(_("Pick a payment to void, refund or reprint."))
        else:
            self.detail.setText(self._describe(row))

    def _describe(self, row: PaymentRow) -> str:
        parts = [_("{operation} of {amount}").format(operation=operation_name(row.operation),
                                                     amount=self.money(row.total))]
        if row.surcharge:
            parts.append(_("({base} + {surcharge} surcharge)").format(base=self.money(row.base or 0),
                                                                     surcharge=self.money(row.surcharge)))
        if row.refunded:
            parts.append(_("— {amount} refunded").format(amount=self.money(row.refunded)))
        if row.voidable:
            parts.append(_("— not settled yet: a void returns everything"))
        elif row.refundable:
            parts.append(_("— settled: up to {amount} can be refunded").format(amount=self.money(row.refundable)))
        ids = ", ".join(v for v in (row.payment_id, row.transaction_id, row.attempt_id) if v)
        return " ".join(parts) + ("\n" + _("Ids: {ids}").format(ids=ids) if ids else "")

    # actions ----------------------------------------------------------------------------

    @asyncSlot()
    async def _void(self) -> None:
        row = self.selected()
        if row is None or not row.voidable:
            return
        if row.card:
            summary = _("Void {card} of {amount}: the customer gets everything back, surcharge included.").format(
                card=row.card, amount=self.money(row.total))
        else:
            summary = _("Void the payment of {amount}: the customer gets everything back, surcharge included.").format(
                amount=self.money(row.total))
        approval = ManagerApproval(_("Void"), summary, self.office.verify_manager, money=self.money, parent=self)
        if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
            return
        manager = approval.manager
        result = await self._guarded(lambda: self.office.void(row, manager=manager, reason=approval.reason_text),
                                     row)
        await self._done(result, row, manager)

    @asyncSlot()
    async def _refund(self, everything: bool) -> None:
        row = self.selected()
        if row is None or row.refundable <= 0:
            return
        left, total = self.money(row.refundable), self.money(row.total)
        if everything:
            summary = (_("Refund all that is left, {amount}, to {card}.").format(amount=left, card=row.card)
                       if row.card else _("Refund all that is left, {amount}, to the card.").format(amount=left))
            summary = f"{summary} {self._surcharge_note(row)}"
        elif row.card:
            summary = _("Refund up to {amount} of this {total} payment to {card}.").format(
                amount=left, total=total, card=row.card)
        else:
            summary = _("Refund up to {amount} of this {total} payment to the card.").format(amount=left, total=total)
        approval = ManagerApproval(_("Refund"), summary, self.office.verify_manager, money=self.money,
                                   max_amount=row.refundable, parent=self)
        if everything:
            approval.amount.setReadOnly(True)
        if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
            return
        amount = row.refundable if everything else approval.amount_cents
        assert amount is not None
        manager = approval.manager
        result = await self._guarded(lambda: self.office.refund(row, amount, manager=manager,
                                                               reason=approval.reason_text), row)
        extra = self._surcharge_note(row) if everything and result and result.outcome is Outcome.APPROVED else ""
        await self._done(result, row, manager, extra)

    @asyncSlot()
    async def _return_items(self) -> None:
        """The sale's order: pick lines (``ReturnDialog``), a manager approves, the plan runs."""
        row = self.selected()
        if row is None:
            return
        self.message.setText(_("Reading the sale's items…"))
        try:
            order = await self.office.order_for_return(row)
        except (ValueError, PaymentsError, JournalError) as error:
            self.message.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        picking = ReturnDialog(order, self.money, parent=self)
        if await shown(picking) != QDialog.DialogCode.Accepted or picking.plan is None:
            self.message.setText(_("Nothing was returned."))
            return
        plan = picking.plan
        summary = _("Return {amount}: {what}.").format(amount=self.money(plan.amount),
                                                       what="; ".join(plan.sentences(self.money)))
        if plan.customer_presents_card:
            summary = f"{summary} {_('Tell the customer: the card is charged again for what they keep.')}"
        approval = ManagerApproval(_("Return"), summary, self.office.verify_manager, money=self.money, parent=self)
        if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
            self.message.setText(_("Nothing was returned."))
            return
        self.message.setText(_("Giving the money back…"))
        try:
            done = await self.office.return_items(plan, manager=approval.manager, reason=approval.reason_text)
        except (ValueError, JournalError) as error:
            self.message.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        said = done.sentence(self.money) + (f" {done.drawer}" if done.drawer else "")
        if done.given_back:
            self.changed.emit()
        self.refresh(said)

    def _surcharge_note(self, row: PaymentRow) -> str:
        kept = row.surcharge - row.surcharge_returned
        if kept <= 0:
            return ""
        if row.method is PaymentMethod.TERMINAL:
            note = _("The terminal refund returns the amount of the sale; the {surcharge} card surcharge is returned "
                     "only if the service reverses it (the list shows it after the refund). If it does not, give it "
                     "back by store policy.")
        else:
            note = _("The refund returns the amount of the sale; the {surcharge} card surcharge is returned only if "
                     "the service reverses it (the list shows it after the refund). If it does not, give it back by "
                     "store policy.")
        return note.format(surcharge=self.money(kept))

    async def _guarded(self, action: Callable[[], Any], row: PaymentRow) -> OperationResult | None:
        self.message.setText(_("Sending to the terminal…") if row.method is PaymentMethod.TERMINAL
                             else _("Sending to the payment service…"))
        try:
            result: OperationResult = await action()
        except ValueError as error:
            self.message.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return None
        return result

    async def _done(self, result: OperationResult | None, row: PaymentRow, manager: StaffMember,
                    extra: str = "") -> None:
        """The result said; an approved void or refund's slip printed (or previewed), and said too."""
        if result is None:
            return
        said = f"{headline(result)}: {explain(result, self.money)} {extra}".strip()
        if result.outcome is Outcome.APPROVED:
            self.changed.emit()
            if result.refusal is None:
                self.message.setText(said)  # while the slip prints, or its preview is open
                said = f"{said} {await self.receipts.deliver_slip(result, ActedOn.of_row(row), manager=manager.name)}"
        self.refresh(said)

    @asyncSlot()
    async def _slip(self, for_merchant: bool) -> None:
        row = self.selected()
        if row is None or row.payment_id is None:
            return
        self.message.setText(await self.receipts.card_slip(row.payment_id, for_merchant=for_merchant))
