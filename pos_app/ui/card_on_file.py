"""F4, the attached customer's card on file, as the cashier drives it.

F4 pays the balance, or the part typed in the scan field first ("5.00", then F4), with the
customer's card: their cards are read from the service; with several, a list picks one (the
default first and highlighted, ↑ ↓, Enter; Esc backs out); then the surcharge notice with
the quote for that card (nothing is sent before the customer accepts: Enter), then the
same payment dialog as a terminal sale (Stop waiting, Check again, a manager's decision).
No customer, no card, a part that is no amount: a sentence on the status line, nothing
sent. The logic is ``pos_app.station.card_on_file`` and ``Till.pay_on_file``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from pos_app.api.errors import PaymentsError
from pos_app.i18n import N_, _
from pos_app.station.card_on_file import StoredCard, quote, read_part, stored_cards
from pos_app.terminal.outcomes import OperationResult, Phase, Progress
from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)
from pos_app.ui.sentences import PHASES

if TYPE_CHECKING:
    from pos_app.money import MoneyFormat
    from pos_app.station.counter import Counter
    from pos_app.ui.bridge import StationBridge
    from pos_app.ui.qt import QLabel
    from pos_app.ui.sale_screen import SaleScreen

log = logging.getLogger(__name__)
ON_FILE_PHASES = {Phase.SENDING: N_("Charging the card on file…"), Phase.CHECKING: PHASES[Phase.CHECKING]}
"""What the dialog says while the service works (no terminal, no card to present); shown through ``_()``."""
CANCELLED = N_("Card on file cancelled: nothing was charged.")


class CashierWindow(Protocol):
    """What F4 uses of the cashier's window (``MainWindow``)."""

    counter: Counter
    bridge: StationBridge
    sale: SaleScreen
    status: QLabel
    payment: PaymentDialog | None
    """The payment dialog open (or being prepared): the payment keys wait while it is set."""

    def activateWindow(self) -> None: ...  # noqa: N802 (Qt's name)

    def window(self) -> QWidget:
        """Itself, as the parent of F4's dialogs (Qt's ``QWidget.window``)."""


class StoredCardPicker(QDialog):
    """Which of the customer's cards pays: ↑ ↓ and Enter (the default first); ``card`` once accepted."""

    def __init__(self, cards: list[StoredCard], customer: str, amount: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Card on file"))
        self.setObjectName("cardOnFile")
        self.cards = cards
        self.card: StoredCard | None = None
        heading = QLabel((_("Charge {amount} to which card of {customer}?") if customer else
                          _("Charge {amount} to which card of the customer?")).format(amount=amount, customer=customer))
        heading.setObjectName("dialogHeading")
        heading.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName(_("Cards on file of {customer}").format(customer=customer) if customer else
                                     _("The customer's cards on file"))
        for card in cards:
            QListWidgetItem(card.said, self.list)
        self.list.setCurrentRow(0)
        self.list.itemActivated.connect(lambda item: self.accept())
        hint = QLabel(_("↑ ↓ pick a card, Enter charges it (the surcharge notice comes first); Esc backs out."))
        hint.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.pick_button = buttons.addButton(_("Use this card  (Enter)"), QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = buttons.addButton(_("Cancel  (Esc)"), QDialogButtonBox.ButtonRole.RejectRole)
        self.pick_button.setAccessibleDescription(_("Charges the balance on the selected card"))
        cancel.setAccessibleDescription(_("Closes without charging a card"))
        self.pick_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.list, 1)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.resize(680, 400)
        enter_presses_focused_button(self)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.list.setFocus()

    def accept(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.cards):
            self.card = self.cards[row]
            super().accept()


class OnFilePaymentDialog(PaymentDialog):
    """The payment dialog of a card-on-file charge: the same outcomes and keys as a terminal
    sale's. Made at F4 (it holds the window's payment keys); ``card`` is set once picked."""

    def __init__(self, counter: Counter, bridge: StationBridge, amount: int, parent: QWidget | None = None) -> None:
        super().__init__(counter, bridge, preauth=False, amount=amount, parent=parent)
        self.card: StoredCard | None = None
        self.setWindowTitle(_("Card on file"))
        self.phase.setText(_(ON_FILE_PHASES[Phase.SENDING]))

    def charge(self, card: StoredCard) -> None:
        """Charge ``card``: the heading names it; ``start`` sends it."""
        self.card = card
        self.heading.setText(_("{card} (card on file) {amount}").format(card=card.label,
                                                                          amount=self.counter.money(self.amount or 0)))

    async def _send(self) -> OperationResult:
        if self.card is None:
            raise ValueError(_("no card on file was picked: nothing was charged"))  # shown in the dialog
        return await self.counter.pay_on_file(self.card, amount=self.amount)

    def _progress(self, progress: Progress) -> None:
        if self.result is None or progress.attempt_id == self.result.attempt_id:
            if progress.phase in ON_FILE_PHASES:
                self.phase.setText(_(ON_FILE_PHASES[progress.phase]))


async def pay_on_file(window: CashierWindow, due: int, card_slip: Callable[[str], object]) -> None:
    """F4 (see the module docstring) for ``window``'s sale, ``due`` cents still to pay;
    ``card_slip`` shows a payment's service receipt. The window's payment keys wait until it ends."""
    counter = window.counter
    money = counter.money
    try:
        amount = read_part(money, window.sale.scan.text(), due)
    except ValueError as error:
        window.status.setText(str(error))
        return
    charged = due if amount is None else amount
    dialog = OnFilePaymentDialog(counter, window.bridge, charged, window.window())
    window.payment = dialog  # holds F12, F4... now
    try:
        window.status.setText(_("Reading the customer's cards on file…"))
        try:
            card = await _card(window, await stored_cards(counter.station.client, counter.cart.customer),
                               money(charged))
        except ValueError as error:
            window.status.setText(str(error))
            return
        if card is None:
            window.status.setText(_(CANCELLED))
            return
        window.status.setText("")
        if not await _accepted(window, card, charged, money):
            return
        window.sale.scan.clear()  # the part typed is being paid
        dialog.charge(card)
        dialog.card_slip.connect(card_slip)
        dialog.start()
        await shown(dialog)
    finally:
        window.payment = None
        window.sale.refresh()
        window.activateWindow()  # the keys are the main window's again
        window.sale.focus_scan()


async def _card(window: CashierWindow, cards: list[StoredCard], amount: str) -> StoredCard | None:
    """The one card, or the one picked from several (None: the cashier backed out)."""
    if len(cards) == 1:
        return cards[0]
    customer = window.counter.cart.customer
    picker = StoredCardPicker(cards, customer.name if customer else "", amount, window.window())
    return picker.card if await shown(picker) == QDialog.DialogCode.Accepted else None


async def _accepted(window: CashierWindow, card: StoredCard, amount: int, money: MoneyFormat) -> bool:
    """The surcharge notice with the card's quote, accepted (a sentence on the status line if not)."""
    counter = window.counter
    try:
        paragraphs = await counter.acknowledgment()
    except PaymentsError as error:
        window.status.setText(_("The card surcharge notice could not be loaded ({error}); nothing was charged. "
                                "Try F4 again.").format(error=error))
        return False
    quoted = await quote(counter.station.client, card, amount)
    if quoted.surcharge is None:
        log.info("no surcharge quote for the card on file %s: %s", card.label, quoted.why_not)
    notice = AcknowledgmentDialog(paragraphs, money(amount), window.window(), quote=quoted.sentence(money),
                                  customer=counter.cart.customer.name if counter.cart.customer is not None else "")
    if await shown(notice) != QDialog.DialogCode.Accepted:
        window.status.setText(_(CANCELLED))
        return False
    return True

