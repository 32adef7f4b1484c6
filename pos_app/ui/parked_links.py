"""Pay by link at the counter (phone orders): Ctrl+K parks the sale on a payment link sent
to the customer's mobile or email (``LinkDialog``); Ctrl+W lists the waiting links
(``WaitingLinksDialog``: ↑ ↓, Enter shows or reprints, Delete cancels, Alt+P pays one in
training, Esc closes). ``ParkedLinks`` wires both keys into the main window, runs the link
watcher while the window is open, and prints the receipt of an order its link paid, with a
notice on the status line. The logic is the station's (``pos_app.station.parked``).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from pos_app.cart.store import decode
from pos_app.i18n import N_, _, ngettext
from pos_app.journal import JournalError, ParkedOrder, ParkStage
from pos_app.money import MoneyFormat
from pos_app.station.events import LinkOrderPaid, ParkedOrdersChanged
from pos_app.station.link_watcher import LinkWatcher
from pos_app.station.parked import ParkedOrders, contact_of, paid_cart, read_contact
from pos_app.ui.dialogs import Question, enter_presses_focused_button, shown
from pos_app.ui.qt import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QKeySequence,
    QLabel,
    QLineEdit,
    QObject,
    QPushButton,
    QShortcut,
    QTableView,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.table_model import RowsModel

if TYPE_CHECKING:
    import asyncio

    from pos_app.station.counter import Counter
    from pos_app.station.station import Station
    from pos_app.ui.bridge import StationBridge
    from pos_app.ui.qt import QStackedWidget
    from pos_app.ui.receipt_desk import ReceiptDesk
    from pos_app.ui.sale_screen import SaleScreen


class CashierWindow(Protocol):
    """What these keys use of the main window (named here: the window imports this module)."""

    counter: Counter
    station: Station
    bridge: StationBridge
    receipts: ReceiptDesk
    sale: SaleScreen
    status: QLabel
    stack: QStackedWidget
    payment: object | None
    payments_ready: bool

    @property
    def closed(self) -> asyncio.Event: ...

    def activateWindow(self) -> None: ...  # noqa: N802 - Qt's name

log = logging.getLogger(__name__)
TEXT_WIDTH_CHARS = 56
"""The link dialog's width in characters of its font: its sentence wraps to a few lines."""
STATES = {ParkStage.PARKED: N_("waiting"), ParkStage.PAID: N_("PAID"), ParkStage.RECEIPTED: N_("PAID, receipt given"),
          ParkStage.RETURNED: N_("cancelled, back at the lane")}
"""What the list says of each stage it shows (a parking still asking for its link, or one
that failed, is not a waiting link)."""


def customer_name(parking: ParkedOrder) -> str:
    customer = decode(parking.cart.encode()).customer
    return customer.name if customer is not None else ""


def items_of(parking: ParkedOrder) -> str:
    """What the parked sale holds, as a cashier recognizes it: "Oat milk ×2 +1 more"."""
    lines = decode(parking.cart.encode()).lines
    if not lines:
        return "—"
    first = f"{lines[0].name} ×{lines[0].quantity}" if lines[0].quantity > 1 else lines[0].name
    more = len(lines) - 1
    if not more:
        return first
    return ngettext("{first} +{count} more", "{first} +{count} more", more).format(first=first, count=more)


def sale_of(parking: ParkedOrder) -> str:
    """"Jane Roe's sale (Oat milk +1 more)", "the sale of Oat milk"."""
    name = customer_name(parking)
    if name:
        return _("{name}'s sale ({items})").format(name=name, items=items_of(parking))
    return _("the sale of {items}").format(items=items_of(parking))


def sale_of_capitalized(parking: ParkedOrder) -> str:
    """``sale_of`` at the head of a sentence."""
    sale = sale_of(parking)
    return f"{sale[:1].upper()}{sale[1:]}"


def age(parking: ParkedOrder, now: datetime | None = None) -> str:
    minutes = int(((now or datetime.now(UTC)) - parking.parked_at).total_seconds() // 60)
    if minutes < 1:
        return _("just now")
    if minutes < 120:
        return _("{minutes} min").format(minutes=minutes)
    return _("{hours} h {minutes} min").format(hours=minutes // 60, minutes=f"{minutes % 60:02d}")


def stage_words(stage: ParkStage) -> str:
    return _(STATES[stage]) if stage in STATES else str(stage)


class LinksModel(RowsModel[ParkedOrder]):
    HEADERS = (N_("Sale"), N_("Customer"), N_("Sent to"), N_("Amount"), N_("Age"), N_("State"))
    RIGHT_ALIGNED = frozenset({3})

    def __init__(self, money: MoneyFormat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def cells(self, row: ParkedOrder) -> tuple[str, ...]:
        return (items_of(row), customer_name(row) or "—", row.contact, self.money(row.amount), age(row),
                stage_words(row.stage))


class LinkDialog(QDialog):
    """Ctrl+K: where the link goes (prefilled from the sale's customer), Enter sends it."""

    def __init__(self, parked: ParkedOrders, money: MoneyFormat, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parked = parked
        self.parking: ParkedOrder | None = None
        counter = parked.counter
        self.setWindowTitle(_("Pay by link"))
        total = counter.totals().total
        customer = counter.cart.customer
        if customer is not None:
            intro = QLabel(_("Send a payment link for <b>{amount}</b> to {customer}. The sale then waits for it "
                             "(Ctrl+W) and the lane is free for the next customer.").format(
                amount=money(total), customer=customer.name))
        else:
            intro = QLabel(_("Send a payment link for <b>{amount}</b>. The sale then waits for it (Ctrl+W) and the "
                             "lane is free for the next customer.").format(amount=money(total)))
        intro.setWordWrap(True)
        self.contact = QLineEdit(contact_of(counter.cart))
        self.contact.setPlaceholderText(_("Mobile number, like (555) 123-4567, or email address"))
        self.contact.setAccessibleName(_("Mobile number or email"))
        self.message = QLabel("")
        self.message.setObjectName("fieldError")
        self.message.setWordWrap(True)
        self.send_button = QPushButton(_("Send link  (Enter)"))
        self.send_button.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        for widget, description in (
                (self.contact, _("The customer's mobile number or email address: the link is sent there")),
                (self.send_button, _("Sends the payment link; the sale then waits for it and the lane is free")),
                (cancel, _("Closes without sending; the sale stays on the lane"))):
            widget.setAccessibleDescription(description)
        buttons = QHBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        send_to = QLabel(_("Send it to:"))
        send_to.setBuddy(self.contact)
        layout.addWidget(send_to)
        layout.addWidget(self.contact)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        # as tall as its wrapped sentence and a refusal need (sized by hand, 480×200, both were cut)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetFixedSize)
        intro.setMinimumWidth(self.fontMetrics().averageCharWidth() * TEXT_WIDTH_CHARS)
        self.send_button.clicked.connect(self._send)
        cancel.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.contact.setFocus()
        self.contact.selectAll()

    @asyncSlot()
    async def _send(self) -> None:
        try:
            read_contact(self.contact.text())  # said at once, before anything is sent
        except ValueError as error:
            self.message.setText(str(error))
            self.contact.setFocus()
            return
        self.send_button.setEnabled(False)
        self.message.setText(_("Sending the link…"))
        try:
            self.parking = await self.parked.park(self.contact.text())
        except (ValueError, JournalError) as error:
            self.message.setText(str(error))
            self.contact.setFocus()
            return
        finally:
            self.send_button.setEnabled(True)
        self.accept()


class WaitingLinksDialog(QDialog):
    """Ctrl+W: the waiting links, and those paid or cancelled in the last hours."""

    def __init__(self, links: ParkedLinks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.links = links
        parked = links.parked
        self.setWindowTitle(_("Waiting payment links"))
        self.model = LinksModel(parked.counter.money, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(_("Waiting payment links"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the items: the rest fit whole
        self.message = QLabel(_("Loading…"))
        self.message.setWordWrap(True)
        self.message.setAccessibleName(_("Waiting links status"))
        self.show_button = QPushButton(_("Show / reprint  (Enter)"))
        self.show_button.setDefault(True)
        self.cancel_button = QPushButton(_("Cancel the link  (Delete)"))
        self.pay_button = QPushButton(_("&Pay it (training)"))
        self.pay_button.setVisible(parked.station.training)
        close = QPushButton(_("Close  (Esc)"))
        for widget, description in (
                (self.show_button, _("Says where the picked link stands; reprints a paid one's receipt")),
                (self.cancel_button, _("Cancels the picked link after a question; its sale comes back to the lane")),
                (self.pay_button, _("Pays the picked link as its customer would (training only)")),
                (close, _("Closes the list; the links keep waiting"))):
            widget.setAccessibleDescription(description)
        buttons = QHBoxLayout()
        for button in (self.show_button, self.cancel_button, self.pay_button, close):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.resize(980, 420)
        self.show_button.clicked.connect(self._show)
        self.cancel_button.clicked.connect(self._cancel)
        self.pay_button.clicked.connect(self._pay)
        close.clicked.connect(self.reject)
        QShortcut(QKeySequence("Delete"), self).activated.connect(self._cancel)
        links.window.bridge.parked_changed.connect(self._changed)
        links.window.bridge.link_paid.connect(self._changed)
        enter_presses_focused_button(self)
        self.load()

    def picked(self) -> ParkedOrder | None:
        return self.model.row_at(self.table.currentIndex().row())

    @asyncSlot()
    async def load(self, status: str = "") -> None:
        """List the links again, the same one picked; ``status`` stays shown."""
        before = self.picked()
        try:
            rows = [p for p in await self.links.parked.waiting() if p.stage in STATES]
        except JournalError as error:
            self.message.setText(_("The waiting links could not be read: {error}").format(error=error))
            return
        rows.sort(key=lambda p: (not p.waiting, p.parked_at))
        self.model.show(rows)
        waiting = sum(1 for p in rows if p.waiting)
        if waiting:
            hint = ngettext("{count} link waiting. Enter shows one (reprints a paid one's receipt), Delete cancels it.",
                            "{count} links waiting. Enter shows one (reprints a paid one's receipt), Delete cancels "
                            "it.", waiting).format(count=waiting)
        elif rows:
            hint = _("No link waiting. Those paid or cancelled lately are listed: Enter reprints a paid one's receipt.")
        else:
            hint = _("No payment links waiting. Ctrl+K on a sale sends one.")
        self.message.setText(f"{status}\n{hint}" if status else hint)
        at = next((n for n, p in enumerate(rows) if before is not None and p.parking_id == before.parking_id), 0)
        if rows:
            self.table.setCurrentIndex(self.model.index(at, 0))
        self.table.setFocus()

    def _changed(self, event: ParkedOrdersChanged | LinkOrderPaid) -> None:
        trouble = event.trouble if isinstance(event, ParkedOrdersChanged) else ""
        self.load(trouble)

    @asyncSlot()
    async def _show(self) -> None:
        parking = self.picked()
        if parking is None:
            return
        if parking.paid:
            said = await self.links.window.receipts.deliver(paid_cart(parking))
            self.load(f"{sale_of_capitalized(parking)}: {said}")
        elif parking.waiting:
            self.message.setText(_("{amount} asked of {contact} {age} ago (order {order}, link {link}). It completes "
                                   "by itself once paid: its receipt prints then.").format(
                amount=self.model.money(parking.amount), contact=parking.contact, age=age(parking),
                order=parking.order_key, link=parking.url or parking.link_id))
        else:
            self.message.setText(f"{sale_of_capitalized(parking)}: {stage_words(parking.stage)} ({parking.detail}).")

    @asyncSlot()
    async def _cancel(self) -> None:
        parking = self.picked()
        if parking is None or not parking.waiting:
            self.message.setText(_("Pick a waiting link to cancel."))
            return
        confirm = CancelLinkQuestion(parking, self.model.money, self)
        await shown(confirm)
        self.activateWindow()
        if not confirm.answered_yes:
            self.table.setFocus()
            return
        self.message.setText(_("Cancelling the link…"))
        try:
            after = await self.links.parked.cancel(parking)
        except (ValueError, JournalError) as error:
            self.load(str(error))
            return
        if after.paid:
            self.load(_("{sale} was paid before the cancel reached it: it is complete.").format(
                sale=sale_of_capitalized(after)))
        else:
            self.load(_("Link cancelled: {sale} is back on the lane.").format(sale=sale_of(after)))

    @asyncSlot()
    async def _pay(self) -> None:
        parking = self.picked()
        if parking is None or not parking.waiting:
            self.message.setText(_("Pick a waiting link to pay."))
            return
        self.message.setText(_("The training customer pays the link…"))
        try:
            await self.links.parked.pay_in_training(parking)
        except (ValueError, JournalError) as error:
            self.load(str(error))


class CancelLinkQuestion(Question):
    """Delete in the waiting links: cancel ``parking``'s link (Enter) or keep it (Esc)."""

    def __init__(self, parking: ParkedOrder, money: MoneyFormat, parent: QWidget) -> None:
        super().__init__(_("Cancel the link"),
                         _("Cancel the link of {sale}: {amount}, sent to {contact}? The customer can no longer pay "
                           "it; the sale comes back to the lane.").format(
                             sale=sale_of(parking), amount=money(parking.amount), contact=parking.contact),
                         (_("Cancel the link  (Enter)"), _("Cancels the link: the customer can no longer pay it")),
                         (_("Keep it  (Esc)"), _("Keeps the link waiting for the customer")), parent)


class ParkedLinks(QObject):
    """Ctrl+K and Ctrl+W on the main window, the link watcher while it is open, and the
    receipt of each order a link paid."""

    def __init__(self, window: CashierWindow, parent: QWidget) -> None:
        super().__init__(parent)
        self.window = window
        self.parent_widget = parent
        self.troubles: dict[str, str] = {}
        """What went wrong with a parking's link (not sent...), by parking id, as last said."""
        self.parked = ParkedOrders(window.counter)
        self.watcher = LinkWatcher(self.parked, window.station.service.scheduler)
        QShortcut(QKeySequence("Ctrl+K"), parent).activated.connect(self._park)
        QShortcut(QKeySequence("Ctrl+W"), parent).activated.connect(self._list)
        window.bridge.link_paid.connect(self._paid)
        window.bridge.parked_changed.connect(self._trouble)
        self.watcher.start()
        self._stop_with_window()

    @asyncSlot()
    async def _stop_with_window(self) -> None:
        await self.window.closed.wait()
        await self.watcher.aclose()

    def _free(self) -> bool:
        window = self.window
        return window.stack.currentWidget() is window.sale and window.payment is None and window.payments_ready

    @asyncSlot()
    async def _park(self) -> None:
        window = self.window
        if not self._free():
            return
        if window.counter.cart.is_empty:
            window.status.setText(_("Add items first: a payment link pays a sale's total."))
            return
        dialog = LinkDialog(self.parked, window.counter.money, self.parent_widget)
        await shown(dialog)
        parking = dialog.parking
        if parking is not None:
            window.status.setText(self.troubles.get(parking.parking_id) or _(
                "Link for {amount} sent to {contact}: the sale waits for it (Ctrl+W lists it). Next customer.").format(
                amount=window.sale.money(parking.amount), contact=parking.contact))
        self._back_to_sale()

    @asyncSlot()
    async def _list(self) -> None:
        if not self._free():
            return
        await shown(WaitingLinksDialog(self, self.parent_widget))
        self._back_to_sale()

    def _back_to_sale(self) -> None:
        self.window.sale.refresh()
        self.window.activateWindow()
        self.window.sale.focus_scan()

    def _trouble(self, event: ParkedOrdersChanged) -> None:
        if event.trouble:
            self.troubles[event.parking.parking_id] = event.trouble
            self.window.status.setText(event.trouble)

    @asyncSlot(object)
    async def _paid(self, event: LinkOrderPaid) -> None:
        """A parked order's link was paid: its receipt, and a notice."""
        parking, money = event.parking, self.window.sale.money
        said = await self.window.receipts.deliver(event.paid)
        self.window.status.setText(_("Paid by link: {sale}, {amount}. {said}").format(
            sale=sale_of(parking), amount=money(parking.amount), said=said))
        try:
            await self.parked.receipt_given(parking)
        except JournalError as error:  # its receipt is offered again at the next start
            log.error("the receipt of parked order %s was not recorded: %s", parking.order_key, error)
