"""The cashier's window: sign-in, then the sale screen; the keys that pay and print.

F12 pays the balance by card, F7 a part of it by card, F4 with the customer's card on file,
F8 takes cash (the change shown),
F11 takes a pre-auth, F3 rings up a misc item (one the catalog lacks, at a typed price),
Ctrl+P reprints the last document (receipt, slip or report: whatever ``ReceiptDesk`` output
last), F1 lists the keys, Esc goes back (clears the search), Ctrl+L signs out. In training
mode a permanent banner says that no real money moves.

The window opens first, in three steps, so that a cashier never waits on the payment
stack's imports: the sign-in screen takes the PIN at once; ``attach_counter`` brings the
counter (catalog, cart, staff file: the sale screen and the keys) and checks the PIN;
``attach_station`` brings the payment side (card payments, receipts, the manager's
windows). A payment key pressed before that says so on the status line. The ui modules
of each step are imported there, on the Qt thread (the first screen imports only what it
shows: each Qt class costs its set-up at first use, and PySide6 sets its types and enums
up unsafely from two threads at once); ``pos_app.ui.app`` has imported the Qt-free
modules under them off the Qt thread.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pos_app.i18n import N_, _, ngettext, store_language_in_force, use_store_language
from pos_app.ui.language import show_screens_in
from pos_app.ui.qt import QHBoxLayout, QLabel, QMainWindow, QStackedWidget, QVBoxLayout, QWidget, asyncSlot
from pos_app.ui.sign_in import SignInScreen

if TYPE_CHECKING:
    import asyncio

    from pos_app.catalog import SyncResult
    from pos_app.station.back_office import BackOffice
    from pos_app.station.counter import Counter
    from pos_app.station.order import PaidCart
    from pos_app.station.station import Station
    from pos_app.ui.bridge import StationBridge
    from pos_app.ui.customer_dialog import CustomerDialog
    from pos_app.ui.payment_dialog import PaymentDialog
    from pos_app.ui.qt import QCloseEvent
    from pos_app.ui.receipt_desk import ReceiptDesk
    from pos_app.ui.sale_screen import SaleScreen

log = logging.getLogger(__name__)

WARM_BACK_OFFICE_MS = 15_000
"""After start-up (recovery, catalog sync), the day's payments are read ahead of F9."""
TRAINING_BANNER = N_("TRAINING MODE — no real money moves; receipts say TRAINING")
PAYMENTS_STARTING = N_("Card payments are still starting: press the key again in a moment.")


class MainWindow(QMainWindow):
    # set by attach(): the window is shown (sign-in) before the station has opened
    station: Station
    counter: Counter
    office: BackOffice
    bridge: StationBridge
    receipts: ReceiptDesk
    sale: SaleScreen

    def __init__(self, *, training: bool = False) -> None:
        super().__init__()
        self._closed: asyncio.Event | None = None
        self.was_closed = False
        self.attached = False  # the counter: sign-in and the sale screen
        self.payments_ready = False  # the station: card payments, receipts, the manager's windows
        self.payment: PaymentDialog | None = None
        self.setWindowTitle(_("pos-app — starting"))
        self.banner = QLabel(_(TRAINING_BANNER))
        self.banner.setObjectName("trainingBanner")
        self.store = QLabel("")
        self.store.setAccessibleName(_("Store"))
        self.who = QLabel(_("Not signed in"))
        self.customer = QLabel("")
        self.customer.setObjectName("orderCustomer")
        self.customer.setAccessibleName(_("Customer of the sale"))
        self.sync_age = QLabel(_("Catalog: opening…"))
        self.sync_age.setObjectName("syncAge")
        self.status = QLabel("")
        self.status.setObjectName("statusLine")
        self.status.setAccessibleName(_("Status"))
        self.status.setWordWrap(True)  # a long sentence (a cart kept aside, with its path) never widens the window
        self.sign_in = SignInScreen()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.sign_in)
        header = QHBoxLayout()
        header.addWidget(self.store)
        header.addStretch(1)
        header.addWidget(self.customer)
        header.addWidget(self.sync_age)
        header.addWidget(self.who)
        body = QVBoxLayout()
        body.addWidget(self.banner)
        body.addLayout(header)
        body.addWidget(self.stack, 1)
        body.addWidget(self.status)
        central = QWidget()
        central.setLayout(body)
        self.setCentralWidget(central)
        self.banner.setVisible(training)  # once in the window: shown alone, it would open as a window of its own
        self.resize(1000, 700)  # fits a 1024×768 screen with its frame (a lane PC)
        self.sign_in.signed_in.connect(self._signed_in)

    def attach_counter(self, counter: Counter) -> None:
        """The counter is open (catalog, cart, staff file): the sign-in takes it first (a PIN
        typed meanwhile is worked out at once: its hash runs on the PIN thread while the rest
        is built, 25-45 ms of the Qt thread; one entered is checked once this returns), then
        the sale screen and the keys join the window. Card payments follow with
        ``attach_station``."""
        self.sign_in.attach(counter)
        from pos_app.ui.bridge import StationBridge
        from pos_app.ui.field_keys import leave_ctrl_u_to
        from pos_app.ui.qt import QKeySequence, QShortcut, QTimer
        from pos_app.ui.theme import icon

        self.setWindowIcon(icon("app"))
        self.counter = counter
        self.bridge = StationBridge(counter.events, self)
        config = counter.config
        # the app's name, the store's and the lane's: no words to translate
        self.setWindowTitle(f"pos-app — {config.store_name or config.store_id} — {config.station_id}")  # not for people
        self.store.setText(config.store_name or config.store_id)
        self.banner.setVisible(counter.training)
        if counter.config.language:  # the settings checked whole (launch read them lightly, or setup wrote them)
            use_store_language(counter.config.language)
        self._speak(store_language_in_force())
        self._build_sale()
        self.bridge.catalog_synced.connect(lambda result: self._show_sync_age())
        self.bridge.catalog_synced.connect(self._say_left_out)
        self.bridge.catalog_sync_failed.connect(
            lambda error: self.status.setText(
                _("The catalog could not be refreshed ({error}); using the last copy.").format(error=error)))
        self.bridge.recovered.connect(self._recovered)
        self.bridge.conflict.connect(lambda attempt: self.status.setText(
            _("Attention: payment {payment} was charged after it was marked not paid. Tell a manager.").format(
                payment=attempt.id)))
        self.bridge.order_paid.connect(self._order_paid)
        self.bridge.cart_changed.connect(self._show_customer)
        self._show_customer(self.counter.cart)  # a restored sale's customer
        self.bridge.save_trouble.connect(lambda trouble: self.status.setText(trouble.sentence))
        for key, action in (("F12", lambda: self._pay(False)), ("F11", lambda: self._pay(True)),
                            ("F7", self._pay_part), ("F8", self._cash), ("Ctrl+Del", self._cancel_order),
                            ("Ctrl+D", self._drawer),
                            ("F1", self._help), ("Ctrl+P", self._reprint), ("Escape", self._back),
                            ("Ctrl+L", self._sign_out), ("Ctrl+T", self._preauths),
                            ("F9", self._back_office), ("F10", self._shift_end), ("F3", self._open_price),
                            ("F6", self._customer), ("Ctrl+U", self._update_link), ("F4", self._pay_on_file)):
            QShortcut(QKeySequence(key), self, activated=action)
        leave_ctrl_u_to(self)
        self._age_timer = QTimer(self)
        self._age_timer.setInterval(30_000)
        self._age_timer.timeout.connect(self._show_sync_age)
        self._age_timer.start()
        self._show_sync_age()
        self.attached = True
        if counter.restore_notice:
            self.status.setText(counter.restore_notice)

    def attach_station(self, station: Station) -> None:
        """The payment side is open (client, journal, terminal service): card payments,
        receipts and the manager's windows work from now on."""
        from pos_app.station.back_office import BackOffice
        from pos_app.ui.parked_links import ParkedLinks
        from pos_app.ui.qt import QTimer
        from pos_app.ui.receipt_desk import ReceiptDesk

        self.station = station
        self.counter.attach(station)
        self.office = BackOffice(self.counter)
        self.receipts = ReceiptDesk(self.counter, self)
        self.parked_links = ParkedLinks(self, self)  # Ctrl+K, Ctrl+W and the link watcher
        self._warm_timer = QTimer(self)  # the day's payments read ahead of the first F9, once start-up is done
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(WARM_BACK_OFFICE_MS)
        self._warm_timer.timeout.connect(self._warm_back_office)
        self._warm_timer.start()
        self.payments_ready = True
        if self.status.text() == _(PAYMENTS_STARTING):
            self.status.setText("")

    def _payments_ready(self) -> bool:
        """Whether the payment side is open; if not, the status line says so (a key pressed
        in the first moments of a start)."""
        if not self.payments_ready:
            self.status.setText(_(PAYMENTS_STARTING))
        return self.payments_ready

    @property
    def closed(self) -> asyncio.Event:
        """Set once the window has closed: the start awaits it. Made at first use (the
        window is shown before asyncio is imported)."""
        if self._closed is None:
            import asyncio

            self._closed = asyncio.Event()
            if self.was_closed:
                self._closed.set()
        return self._closed

    # screens -------------------------------------------------------------------------

    def _build_sale(self) -> None:
        """The sale screen, in the screens' language now: built again (the cart is the
        counter's) when a cashier with a language of their own signs in or out."""
        from pos_app.ui.sale_screen import SaleScreen

        old = self.sale if hasattr(self, "sale") else None
        self.sale = SaleScreen(self.counter, self.bridge)
        self.stack.addWidget(self.sale)
        self.sale.pay_requested.connect(self._pay)
        self.sale.cash_requested.connect(self._cash)
        self.sale.part_requested.connect(self._pay_part)
        self.sale.message.connect(self.status.setText)
        self.sale.preauths_button.clicked.connect(self._preauths)
        if old is not None:
            if self.stack.currentWidget() is old:
                self.stack.setCurrentWidget(self.sale)
            old.let_go()
            self.stack.removeWidget(old)
            old.deleteLater()

    def _speak(self, language: str) -> bool:
        """The screens in ``language`` from now on: the window's own words at once, the sale
        screen built again; whether the language changed."""
        if not show_screens_in(language):
            return False
        self.banner.setText(_(TRAINING_BANNER))
        self.store.setAccessibleName(_("Store"))
        self.customer.setAccessibleName(_("Customer of the sale"))
        self.status.setAccessibleName(_("Status"))
        self.status.setText("")
        self.sign_in.say_texts()
        if self.attached:
            self._build_sale()
            self._show_customer(self.counter.cart)
            self._show_sync_age()
        return True

    def _signed_in(self, member: object) -> None:
        own = getattr(member, "language", None)
        self._speak(own or store_language_in_force())
        name = getattr(member, "name", member)  # not for people (an attribute)
        self.who.setText(_("Cashier: {name}").format(name=name))
        self.stack.setCurrentWidget(self.sale)
        self.sale.refresh()
        self.sale.focus_scan()

    def _sign_out(self) -> None:
        if self.payment is not None:
            return
        self.counter.sign_out()
        self._speak(store_language_in_force())
        self.who.setText(_("Not signed in"))
        self.stack.setCurrentWidget(self.sign_in)
        self.sign_in.reset()

    def _back(self) -> None:
        if self.stack.currentWidget() is self.sale:
            self.sale.scan.clear()
            self.sale.results.hide()
            self.sale.focus_scan()

    def _help(self) -> None:
        from pos_app.ui.help import HelpDialog

        HelpDialog(self).open()

    def _open_price(self) -> None:
        """F3: a misc item into the cart (the cart only: no need of the payment side)."""
        if self.stack.currentWidget() is self.sale and self.payment is None:
            self.sale.ring_open_price()

    def _customer(self) -> None:
        """F6: find or add the sale's customer and attach them (or detach the one attached)."""
        from pos_app.ui.customer_dialog import CustomerDialog

        if self.stack.currentWidget() is self.sale and self.payment is None and self._payments_ready():
            dialog = CustomerDialog(self.counter, self)
            dialog.accepted.connect(lambda: self._customer_chosen(dialog))
            dialog.finished.connect(lambda code: (self.activateWindow(), self.sale.focus_scan()))
            dialog.open()

    @asyncSlot()
    async def _update_link(self) -> None:
        """Ctrl+U: the attached customer gets a link to add or update their card."""
        from pos_app.ui.update_link_dialog import ask_update_link

        if self.stack.currentWidget() is self.sale and self.payment is None and self._payments_ready():
            await ask_update_link(self.counter, self, self.status.setText)
            self.activateWindow()
            self.sale.focus_scan()

    def _customer_chosen(self, dialog: CustomerDialog) -> None:
        if dialog.attached is not None:
            name = dialog.attached.customer.name
            if dialog.attached.card:
                self.status.setText(_("Customer {name} attached to this sale (card on file: {card}).").format(
                    name=name, card=dialog.attached.card))
            else:
                self.status.setText(_("Customer {name} attached to this sale.").format(name=name))
        elif dialog.detached:
            self.status.setText(_("No customer on this sale now."))

    def _show_customer(self, cart: object) -> None:
        customer = getattr(cart, "customer", None)
        self.customer.setText(_("Customer: {name}  ·").format(name=customer.name) if customer is not None else "")

    def _preauths(self) -> None:
        from pos_app.ui.preauths import PreauthsDialog

        if self.stack.currentWidget() is self.sale and self.payment is None and self._payments_ready():
            PreauthsDialog(self.counter, self.counter.money, self, receipts=self.receipts).open()

    def _back_office(self) -> None:
        """F9: today's payments (void, refund, receipts), what needs attention, the audit trail."""
        from pos_app.ui.back_office import BackOfficeDialog

        if self.stack.currentWidget() is self.sale and self.payment is None and self._payments_ready():
            BackOfficeDialog(self.office, self.counter.money, self.receipts, self).open()

    @asyncSlot()
    async def _warm_back_office(self) -> None:
        from pos_app.journal import JournalError

        try:
            await self.office.warm(datetime.now().date())
        except JournalError as error:  # F9 reads it again, and says so if it still cannot
            log.warning("the day's payments could not be read ahead: %s", error)

    def _shift_end(self) -> None:
        """F10: a manager closes a terminal's batch and gets the end-of-shift report."""
        from pos_app.ui.shift_end import ShiftEndDialog

        if self.payment is None and self._payments_ready():
            ShiftEndDialog(self.counter, self, receipts=self.receipts).open()

    def _say_left_out(self, result: SyncResult) -> None:
        if result.left_out:  # items or taxes with values that cannot be used: a manager has them fixed
            self.status.setText(result.left_out)

    def _recovered(self, results: tuple) -> None:  # type: ignore[type-arg]
        if results:
            self.status.setText(ngettext("{count} payment(s) interrupted earlier were checked with the service.",
                                         "{count} payment(s) interrupted earlier were checked with the service.",
                                         len(results)).format(count=len(results)))

    @asyncSlot()
    async def _show_sync_age(self) -> None:
        synced = await self.counter.synced_at()
        if synced is None:
            self.sync_age.setText(_("Catalog: not synced yet"))
            return
        minutes = int((datetime.now(UTC) - synced).total_seconds() // 60)
        self.sync_age.setText(_("Catalog: just synced") if minutes < 1
                              else _("Catalog: synced {minutes} min ago").format(minutes=minutes))

    # paying --------------------------------------------------------------------------

    @asyncSlot()
    async def _pay_part(self) -> None:
        """F7: the amount of the balance this card pays, then the card payment as F12's."""
        from pos_app.ui.cash_dialog import ask_card_part

        due = self._due()
        if due is None:
            return
        cents = await ask_card_part(self.counter, due, self)
        if cents is not None:
            await self._pay(False, cents)
        else:
            self.sale.focus_scan()

    @asyncSlot()
    async def _pay_on_file(self) -> None:
        """F4: the attached customer's card on file (``pos_app.ui.card_on_file``)."""
        from pos_app.ui.card_on_file import pay_on_file

        due = self._due()
        if due is not None:
            await pay_on_file(self, due, self._card_slip)

    @asyncSlot()
    async def _cash(self) -> None:
        """F8: cash received; once the order is paid the change is shown and the receipt prints."""
        from pos_app.ui.cash_dialog import take_cash

        due = self._due()
        if due is None:
            return
        said = await take_cash(self.counter, due, self)
        if said is not None:
            self.status.setText(said)
        self.sale.refresh()
        self.activateWindow()
        self.sale.focus_scan()

    @asyncSlot()
    async def _cancel_order(self) -> None:
        """Ctrl+Del: a manager gives back what this sale took (``ui/cancel_order.py``)."""
        from pos_app.ui.cancel_order import ask_cancel_order

        if self.stack.currentWidget() is self.sale and self.payment is None and self._payments_ready():
            await ask_cancel_order(self.counter, self.sale, self, self.status.setText)

    @asyncSlot()
    async def _drawer(self) -> None:
        """Ctrl+D: cash in, cash out or no sale (a manager's)."""
        from pos_app.ui.drawer_dialog import move_drawer_cash

        if self.stack.currentWidget() is not self.sale or self.payment is not None or not self._payments_ready():
            return
        said = await move_drawer_cash(self.counter, self)
        if said:
            self.status.setText(said)
        self.sale.focus_scan()

    def _due(self) -> int | None:
        """The balance a payment key may take now; None (the status line says why) when none."""
        if self.stack.currentWidget() is not self.sale or self.payment is not None or not self._payments_ready():
            return None
        total = self.counter.totals().total
        due = self.counter.payments.due(total)
        if total <= 0 or due <= 0:
            self.status.setText(_("Add items first: the total must be above zero to take a payment."))
            return None
        return due

    @asyncSlot()
    async def _pay(self, preauth: bool, amount: int | None = None) -> None:
        from pos_app.api.errors import PaymentsError
        from pos_app.ui.acknowledgment import AcknowledgmentDialog
        from pos_app.ui.dialogs import shown
        from pos_app.ui.payment_dialog import PaymentDialog
        from pos_app.ui.qt import QDialog

        if self.stack.currentWidget() is not self.sale or self.payment is not None:
            return  # not signed in, or a payment dialog is already open (a double F12)
        if not self._payments_ready():
            return
        totals = self.counter.totals()
        if not totals.payable:
            self.status.setText(_("Add items first: the total must be above zero to pay by card."))
            return
        self.payment = PaymentDialog(self.counter, self.bridge, preauth=preauth, amount=amount,
                                     parent=self)  # holds F12 now
        try:
            try:
                paragraphs = await self.counter.acknowledgment()
            except PaymentsError as error:
                self.status.setText(_("The card surcharge notice could not be loaded ({error}); no card payment "
                                      "was started. Try again.").format(error=error))
                return
            charged = amount if amount is not None else self.counter.payments.due(totals.total)
            attached = self.counter.cart.customer
            notice = AcknowledgmentDialog(paragraphs, self.sale.money(charged), self,
                                          customer=attached.name if attached is not None else "")
            if await shown(notice) != QDialog.DialogCode.Accepted:
                self.status.setText(_("Card payment cancelled: nothing was sent to the terminal."))
                return
            self.payment.card_slip.connect(self._card_slip)
            self.payment.start()
            await shown(self.payment)
        finally:
            self.payment = None
            self.sale.refresh()
            self.activateWindow()  # the keys (F12, Ctrl+T...) are the main window's again
            self.sale.focus_scan()

    @asyncSlot(object)
    async def _order_paid(self, paid: PaidCart) -> None:
        """This counter's order is paid (by its payment dialog, a check again, a manager's
        decision or start-up recovery): its receipt. One found paid at start is offered."""
        if paid.restored:
            self.status.setText(_("The last sale ({total}) was paid before the app stopped; a new sale has begun. "
                                  "Ctrl+P prints its receipt.").format(total=self.sale.money(paid.totals.total)))
            return
        self.status.setText(await self.receipts.deliver(paid))

    @asyncSlot(str)
    async def _card_slip(self, payment_id: str) -> None:
        self.status.setText(await self.receipts.card_slip(payment_id))

    @asyncSlot()
    async def _reprint(self) -> None:
        if self._payments_ready():
            self.status.setText(await self.receipts.reprint())

    # closing -------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.payments_ready and self.station.paying:
            self.status.setText(_("A card payment is in progress: stop waiting first (it is then recorded)."))
            event.ignore()
            return
        if self.attached:
            self.bridge.detach()
            self._age_timer.stop()
        if self.payments_ready:
            self._warm_timer.stop()
        self.was_closed = True
        self.closed.set()
        event.accept()
