"""The payment dialog: what the terminal is doing, live, then the outcome.

Never "retry" after an unknown: keep waiting, check again, or a manager decides (paid /
not paid, with a reason, checked against the service). After an approval that pays the
order, Enter closes the dialog; the cart is already a new, empty sale. A partial approval
says what was charged and what is still due, and the sale stays open.
"""

from __future__ import annotations

from pos_app.i18n import _
from pos_app.journal import Outcome
from pos_app.station.counter import Counter
from pos_app.terminal.outcomes import OperationResult, Phase, Progress
from pos_app.ui.bridge import StationBridge
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.manager import ManagerDialog
from pos_app.ui.qt import (
    QDialog,
    QElapsedTimer,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
    asyncSlot,
)
from pos_app.ui.sentences import PHASES, explain, headline

KEEP_WAITING = 60.0
"""Seconds "keep waiting" polls an unknown payment's message again."""
OUTCOME_ICONS = {
    "approved": QStyle.StandardPixmap.SP_DialogApplyButton,
    "partially_approved": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "declined": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "failed": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "refused": QStyle.StandardPixmap.SP_MessageBoxCritical,
}
"""The icon beside the outcome's word (the word says it; the icon and the colour repeat it)."""
UNKNOWN_ICON = QStyle.StandardPixmap.SP_MessageBoxQuestion


class PaymentDialog(QDialog):
    card_slip = Signal(str)  # the payment id whose service receipt to show

    def __init__(
        self, counter: Counter, bridge: StationBridge, *, preauth: bool, amount: int | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``amount``: the part of the balance to charge (None: all of it)."""
        super().__init__(parent)
        self.counter = counter
        self.preauth = preauth
        self.amount = amount
        self.result: OperationResult | None = None
        self.setObjectName("payment")
        self.setWindowTitle(_("Pre-auth") if preauth else _("Card payment"))
        shown = counter.money(amount if amount is not None else counter.payments.due(counter.totals().total))
        self.heading = QLabel((_("Pre-auth {amount}") if preauth else _("Card payment {amount}")).format(amount=shown))
        self.heading.setObjectName("dialogHeading")
        self.heading.setWordWrap(True)
        self.outcome_icon = QLabel()
        """The outcome's icon beside its word (never its colour alone): hidden while waiting."""
        self.outcome_icon.setObjectName("outcomeIcon")
        self.outcome_icon.hide()
        self.phase = QLabel(_(PHASES[Phase.SENDING]))
        self.phase.setObjectName("phase")
        self.phase.setWordWrap(True)
        self.phase.setAccessibleName(_("Terminal status"))
        self.elapsed = QLabel("")
        self.detail = QLabel("")
        self.detail.setObjectName("detail")
        self.detail.setWordWrap(True)
        self.detail.hide()
        self.phase.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the keys' home while waiting (Tab reaches Stop)
        self.stop_button = QPushButton(_("Stop waiting"))
        self.stop_button.setAutoDefault(False)
        self.keep_button = QPushButton(_("Keep waiting"))
        self.check_button = QPushButton(_("Check again"))
        self.manager_button = QPushButton(_("Manager decides…"))
        self.details_button = QPushButton(_("Details"))
        self.slip_button = QPushButton(_("Card slip"))
        self.close_button = QPushButton(_("New sale  (Enter)"))
        for button, description in (
                (self.stop_button, _("Stops waiting on this screen; the payment may still complete at the terminal")),
                (self.keep_button, _("Goes on waiting for the terminal's result")),
                (self.check_button, _("Asks the payment service for this payment's result now; never charges again")),
                (self.manager_button, _("A manager marks the payment paid or not paid, with a reason")),
                (self.details_button, _("Shows the payment's ids and what the service answered")),
                (self.slip_button, _("Prints the card slip of this payment")),
                (self.close_button, _("Closes this payment and starts a new sale"))):
            button.setAccessibleDescription(description)
        buttons = QHBoxLayout()
        for button in (self.stop_button, self.keep_button, self.check_button, self.manager_button,
                       self.details_button, self.slip_button, self.close_button):
            buttons.addWidget(button)
        top = QHBoxLayout()
        top.addWidget(self.outcome_icon)
        top.addWidget(self.heading, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.phase)
        layout.addWidget(self.elapsed)
        layout.addWidget(self.detail)
        layout.addLayout(buttons)
        self.resize(720, 300)
        self._clock = QElapsedTimer()
        self._ticker = QTimer(self)
        self._ticker.setInterval(500)
        self._ticker.timeout.connect(self._tick)
        self.stop_button.clicked.connect(self._stop)
        self.keep_button.clicked.connect(lambda: self._check(KEEP_WAITING))
        self.check_button.clicked.connect(lambda: self._check(0.0))
        self.manager_button.clicked.connect(self._manager)
        self.details_button.clicked.connect(lambda: self.detail.setVisible(not self.detail.isVisible()))
        self.close_button.clicked.connect(self.accept)
        self.slip_button.clicked.connect(self._card_slip)
        bridge.progress.connect(self._progress)
        self._show_buttons(waiting=True)
        enter_presses_focused_button(self)

    @asyncSlot()
    async def start(self) -> None:
        """Send the payment (called once the dialog shows)."""
        self._clock.start()
        self._ticker.start()
        order_key = self.counter.cart.order_key
        try:
            result = await self._send()
        except (ValueError, RuntimeError) as error:  # nothing payable, or a payment already running
            self.phase.setText(str(error))
            self._show_buttons(waiting=False)
            return
        finally:
            self._ticker.stop()
        paid = self.counter.last_paid
        earlier = paid.result if paid is not None else None
        if (result.refusal is not None and earlier is not None and earlier.attempt_id == result.blocked_by
                and earlier.order_key == order_key):
            result = earlier  # this cart's earlier, lost payment went through: it is the approval
        self._show(result)

    async def _send(self) -> OperationResult:
        """The payment this dialog follows (a card on file's dialog sends its own)."""
        return await self.counter.pay(preauth=self.preauth, amount=self.amount)

    def _progress(self, progress: Progress) -> None:
        if self.result is None or progress.attempt_id == self.result.attempt_id:
            if progress.phase in PHASES:
                self.phase.setText(_(PHASES[progress.phase]))

    def _tick(self) -> None:
        self.elapsed.setText(_("{seconds} s").format(seconds=self._clock.elapsed() // 1000))

    def _show(self, result: OperationResult) -> None:
        self.result = result
        said_outcome = _(headline(result))
        outcome = str(result.outcome) if result.refusal is None else "refused"  # not for people
        self.heading.setText(said_outcome)
        self.heading.setProperty("outcome", outcome)
        self.heading.style().unpolish(self.heading)
        self.heading.style().polish(self.heading)
        self.outcome_icon.setPixmap(self.style().standardIcon(OUTCOME_ICONS.get(outcome, UNKNOWN_ICON)).pixmap(32, 32))
        self.outcome_icon.setAccessibleName(said_outcome)
        self.outcome_icon.show()
        said = explain(result, self.counter.money)
        if not result.saved:
            said += " " + _("This computer could not save it yet (disk full or not writable): it is kept and saved "
                            "as soon as the disk allows.")
        self.phase.setText(said)
        self.detail.setText(" · ".join(part for part in (
            result.message, _("attempt {id}").format(id=result.attempt_id) if result.attempt_id else "",
            _("payment {id}").format(id=result.payment_id) if result.payment_id else "") if part))
        self._show_buttons(waiting=False)

    def _show_buttons(self, *, waiting: bool) -> None:
        result = self.result
        unknown = result is not None and result.outcome is Outcome.UNKNOWN and result.attempt_id is not None
        self.stop_button.setVisible(waiting)
        for button in (self.keep_button, self.check_button, self.manager_button):
            button.setVisible(unknown and not waiting)
        self.details_button.setVisible(not waiting and result is not None)
        self.close_button.setVisible(not waiting)
        charged = result is not None and result.charged is not None
        paid = charged and self.counter.last_paid is not None and self.counter.last_paid.result is result
        self.slip_button.setVisible(charged and not waiting and bool(result and result.payment_id))
        self.close_button.setText(_("New sale  (Enter)") if paid else _("Back to the sale  (Enter)"))
        if not waiting:
            self.close_button.setDefault(True)
            self.close_button.setFocus()
        else:  # Enter from habit while the terminal works must not stop the wait: the status has the keys
            self.phase.setFocus()

    def _card_slip(self) -> None:
        """Show the service's receipt; once it closes, Enter is "New sale" again."""
        if self.result and self.result.payment_id:
            self.close_button.setFocus()
            self.card_slip.emit(self.result.payment_id)

    def _stop(self) -> None:
        self.phase.setText(_("Stopping… the payment is recorded as not known yet."))
        self.counter.station.stop_waiting()

    @asyncSlot()
    async def _check(self, wait: float) -> None:
        if self.result is None or self.result.attempt_id is None:
            return
        self.phase.setText(_(PHASES[Phase.CHECKING]))
        self._show_buttons(waiting=True)
        self.stop_button.hide()
        self._show(await self.counter.station.check_again(self.result.attempt_id, wait_limit=wait))

    @asyncSlot()
    async def _manager(self) -> None:
        if self.result is None or self.result.attempt_id is None:
            return
        dialog = ManagerDialog(self.counter, self.result, parent=self)
        if await shown(dialog) and dialog.decision is not None:
            self._show(dialog.decision)

    def reject(self) -> None:
        if self.counter.station.paying:
            return  # Esc never abandons a payment in flight: "Stop waiting" records it
        super().reject()
