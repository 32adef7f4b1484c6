"""F8, cash received; F7, the part of the balance a card pays.

Both open on an amount field that has the focus, prefilled with the balance and all
selected (typing replaces it), read by the store's locale. Cash: Enter takes the amount
(the counter journals it before the drawer opens); covering the balance shows a large
"Change due" page, Enter then starts the new sale; less leaves the rest due. Quick buttons
give the exact amount and the next notes up. F7 only asks the amount: the card payment
itself runs as F12's does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.i18n import _, in_store_language
from pos_app.journal import JournalError
from pos_app.money import AmountError
from pos_app.station.notes import cash_suggestions
from pos_app.ui.acknowledgment import CustomerDisplay
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.qt import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.station.till import CashTaken


class AmountPage(QWidget):
    """A heading, the balance, the amount field (focused, prefilled, selected) and a line
    that says what is wrong with a typed amount."""

    def __init__(self, heading: str, counter: Counter, due: int) -> None:
        super().__init__()
        self.money = counter.money
        self.due = due
        title = QLabel(heading)
        title.setObjectName("dialogHeading")
        balance = QLabel(_("Balance due: {amount}").format(amount=self.money(due)))
        balance.setObjectName("balanceDue")
        self.amount = QLineEdit(self.money.field(due))
        self.amount.setAccessibleName(heading)
        self.amount.setObjectName("tenderAmount")
        self.problem = QLabel("")
        self.problem.setObjectName("problem")
        self.problem.setWordWrap(True)
        self.layout_ = QVBoxLayout(self)
        for widget in (title, balance, self.amount, self.problem):
            self.layout_.addWidget(widget)

    def focus(self) -> None:
        self.amount.setFocus()
        self.amount.selectAll()

    def cents(self, *, at_most_due: bool) -> int | None:
        """The typed amount, or None (the problem line says why; the field keeps the focus)."""
        try:
            cents = self.money.parse(self.amount.text())
        except AmountError as error:
            return self.refuse(f"{error}.")
        if not cents:
            return self.refuse(_("Type an amount above 0, e.g. {example}.").format(example=self.money.example))
        if at_most_due and cents > self.due:
            return self.refuse(_("At most the balance, {amount}.").format(amount=self.money(self.due)))
        self.problem.setText("")
        return cents

    def refuse(self, sentence: str) -> None:
        self.problem.setText(sentence)
        self.focus()
        return None


class CardPartDialog(QDialog):
    """F7: how much of the balance this card pays (Enter), at most the balance."""

    def __init__(self, counter: Counter, due: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Part by card"))
        self.cents: int | None = None
        self.page = AmountPage(_("Amount to charge by card"), counter, due)
        ok = QPushButton(_("Charge this part  (Enter)"))
        ok.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        for widget, description in (
                (self.page.amount, _("The part of the balance this card pays, typed the store's way")),
                (ok, _("Charges this part on the payment terminal; the rest stays due")),
                (cancel, _("Closes without charging the card"))):
            widget.setAccessibleDescription(description)
        row = QHBoxLayout()
        row.addWidget(ok)
        row.addWidget(cancel)
        self.page.layout_.addLayout(row)
        QVBoxLayout(self).addWidget(self.page)
        ok.clicked.connect(self._confirm)
        cancel.clicked.connect(self.reject)
        self.page.amount.returnPressed.connect(self._confirm)
        self.page.focus()

    def _confirm(self) -> None:
        cents = self.page.cents(at_most_due=True)
        if cents is not None:
            self.cents = cents
            self.accept()


class CashDialog(QDialog):
    """F8: cash received (see the module docstring)."""

    def __init__(self, counter: Counter, due: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Cash received"))
        self.setObjectName("cash")
        self.counter = counter
        self.taken: CashTaken | None = None
        self.customer_display: CustomerDisplay | None = None
        self.page = AmountPage(_("Cash received"), counter, due)
        quick = QHBoxLayout()
        for index, cents in enumerate(cash_suggestions(due, counter.money.currency)):
            text = _("Exact {amount}").format(amount=counter.money(cents)) if index == 0 else counter.money(cents)
            button = QPushButton(text)
            button.setAccessibleDescription(_("Takes exactly the balance due in cash") if index == 0 else
                                            _("Takes this amount in cash and shows the change"))
            button.setAutoDefault(False)
            button.clicked.connect(lambda checked=False, amount=cents: self._quick(amount))
            quick.addWidget(button)
        self.take_button = QPushButton(_("Take cash  (Enter)"))
        self.take_button.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        for widget, description in (
                (self.page.amount, _("The cash the customer hands over, typed the store's way")),
                (self.take_button, _("Takes the cash typed and shows the change to give")),
                (cancel, _("Closes without taking any cash"))):
            widget.setAccessibleDescription(description)
        row = QHBoxLayout()
        row.addWidget(self.take_button)
        row.addWidget(cancel)
        self.page.layout_.addLayout(quick)
        self.page.layout_.addLayout(row)

        self.change_page = QWidget()
        self.change = QLabel("")
        self.change.setObjectName("changeDue")
        self.change.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drawer = QLabel("")
        self.drawer.setWordWrap(True)
        self.drawer.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.new_sale = QPushButton(_("New sale  (Enter)"))
        self.new_sale.setDefault(True)
        self.new_sale.setAccessibleDescription(_("Closes the change and starts the next sale"))
        change_layout = QVBoxLayout(self.change_page)
        for widget in (self.change, self.drawer, self.new_sale):
            change_layout.addWidget(widget)

        self.pages = QStackedWidget()
        self.pages.addWidget(self.page)
        self.pages.addWidget(self.change_page)
        QVBoxLayout(self).addWidget(self.pages)
        self.take_button.clicked.connect(self._take)
        self.page.amount.returnPressed.connect(self._take)
        cancel.clicked.connect(self.reject)
        self.new_sale.clicked.connect(self.accept)
        enter_presses_focused_button(self)
        self.resize(520, 300)
        self.page.focus()

    def _quick(self, cents: int) -> None:
        self.page.amount.setText(self.counter.money.field(cents))
        self._take()

    @asyncSlot()
    async def _take(self) -> None:
        if self.taken is not None or not self.take_button.isEnabled():
            return
        cents = self.page.cents(at_most_due=False)
        if cents is None:
            return
        self.take_button.setEnabled(False)
        try:
            self.taken = await self.counter.pay_cash(cents)
        except (ValueError, JournalError) as error:
            self.page.refuse(_("{error}. No cash was recorded.").format(error=error))
            return
        finally:
            self.take_button.setEnabled(True)
        if self.taken.paid is None:
            self.accept()  # a part in cash: the balance remains on the sale screen
            return
        money = self.counter.money
        change = self.taken.entry.change or 0
        self.change.setText(_("Change due {amount}").format(amount=money(change)) if change else _("No change due"))
        self.drawer.setText(_("Opening the cash drawer…"))
        self.pages.setCurrentWidget(self.change_page)
        self.new_sale.setFocus()
        with in_store_language():  # the customer's screen speaks the store's language
            self.customer_display = CustomerDisplay.on_second_screen(
                [_("Cash {amount}").format(amount=money(self.taken.entry.tendered or 0))], money(change),
                self.parentWidget(), caption=_("Change due"), prompt=_("Thank you!"), customer=self._customer_name())
        self.finished.connect(self._close_display)
        self.drawer.setText(await self.taken.drawer)

    def _customer_name(self) -> str:
        """The customer the paid order was attached to (F6), else the sale's now."""
        paid = self.taken.paid if self.taken is not None else None
        customer = paid.customer if paid is not None else self.counter.cart.customer
        return customer.name if customer is not None else ""

    def _close_display(self) -> None:
        if self.customer_display is not None:
            self.customer_display.close()

    def reject(self) -> None:
        if self.taken is not None and self.taken.paid is not None:
            self.accept()  # the order is paid: Esc on the change page is the new sale too
            return
        super().reject()


async def take_cash(counter: Counter, due: int, parent: QWidget) -> str | None:
    """F8: the cash dialog for ``due``; the status line's sentence, or None once the order
    is paid (the change was shown; its receipt says the rest)."""
    dialog = CashDialog(counter, due, parent)
    await shown(dialog)
    taken = dialog.taken
    if taken is None:
        return _("Cash cancelled: nothing was recorded.")
    if taken.paid is not None:
        return None
    still_due = counter.payments.due(counter.totals().total)
    still = _("Cash {amount} taken; {due} still due (F12 card, F7 part by card, F8 cash).").format(
        amount=counter.money(taken.entry.amount), due=counter.money(still_due))
    return f"{still} {await taken.drawer}"


async def ask_card_part(counter: Counter, due: int, parent: QWidget) -> int | None:
    """F7: how much of ``due`` the card pays; None when cancelled."""
    prompt = CardPartDialog(counter, due, parent)
    return prompt.cents if await shown(prompt) == QDialog.DialogCode.Accepted else None
