"""The sale screen: scan or search, the cart, its totals, and the keys that pay.

The scan/search field has focus whenever no dialog is open. A scanned or typed SKU or
barcode followed by Enter adds the item at once; other text searches the local catalog
as it is typed (results picked with the arrow keys and Enter). ``3*`` first adds 3 of
what is scanned or picked next. Quick keys list a category's items.

The line just added is the selected one; ↑ and ↓ in the scan field move the selection.
``+``/``-`` change the selected line's quantity wherever the focus is (never typed into
the field: no UPC/EAN code holds them), F2 edits its Qty cell (Enter applies it), Delete
removes it. The counter records in the audit trail what is lowered or removed after a
payment attempt; a change it refuses is said on the status line. F3 (the misc key) rings up
what the catalog lacks, at a price the cashier types (``pos_app.ui.open_price``).
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

from pos_app.cart import CartError
from pos_app.cart.entry import LINE_KEYS, Entry, read_entry, read_quantity
from pos_app.catalog import CatalogItem
from pos_app.i18n import _
from pos_app.staff import StaffError
from pos_app.station.counter import Counter
from pos_app.ui.bridge import StationBridge
from pos_app.ui.cart_model import QTY_COLUMN, CartModel
from pos_app.ui.dialogs import shown
from pos_app.ui.open_price import OpenPriceDialog
from pos_app.ui.payment_panel import PaymentPanel
from pos_app.ui.qt import (
    QAbstractItemView,
    QEvent,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QObject,
    QPushButton,
    QSize,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    Signal,
    asyncSlot,
)
from pos_app.ui.theme import icon

log = logging.getLogger(__name__)
QUICK_KEYS = 8
LINE_STEPS = {Qt.Key.Key_Plus: (+1, "+"), Qt.Key.Key_Minus: (-1, "-")}
"""The keys that change the selected line's quantity (the main and the number pad's), and
the character each types."""
PAIR_CHARS = 40
"""The pre-auth keys' texts together, in characters, beyond which they stack (English: 34)."""


class SaleScreen(QWidget):
    pay_requested = Signal(bool)  # True: a pre-auth
    cash_requested = Signal()  # F8
    part_requested = Signal()  # F7: a part of the balance by card
    message = Signal(str)  # a sentence for the status line

    def __init__(self, counter: Counter, bridge: StationBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self._let_go = False
        self._search_serial = 0
        self.codes_with_line_keys: frozenset[str] = frozenset()
        """Which of ``+``/``-`` some SKU holds: typed into a field that has text already."""
        self.scan = QLineEdit()
        self.scan.setObjectName("scanField")
        self.scan.setPlaceholderText(_("Scan a barcode, or type to search"))
        self.scan.setAccessibleName(_("Scan or search"))
        self.results = QListWidget()
        self.results.setObjectName("results")
        self.results.setAccessibleName(_("Search results"))
        self.results.hide()
        self.quick = QGridLayout()
        self.cart_model = CartModel(counter.money, self)
        self.table = QTableView()
        self.table.setObjectName("cart")
        self.table.setAccessibleName(_("Cart"))
        self.table.setModel(self.cart_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)  # F2, from anywhere: _edit
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # a flag's line
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.subtotal = QLabel()
        self.tax = QLabel()
        self.total = QLabel()
        self.total.setObjectName("grandTotal")
        self.total.setAccessibleName(_("Total"))
        self.payments = PaymentPanel(counter.money)
        self.pay_button = QPushButton(_("Pay by card  (F12)"))
        self.pay_button.setObjectName("payButton")
        self.cash_button = QPushButton(_("Cash  (F8)"))
        self.part_button = QPushButton(_("Part card  (F7)"))
        for button in (self.cash_button, self.part_button):
            button.setObjectName("tenderButton")
        self.preauth_button = QPushButton(_("Pre-auth  (F11)"))
        self.preauths_button = QPushButton(_("Pre-auths  (Ctrl+T)"))
        self.preauths_button.setToolTip(_("The open pre-auths: capture the final amount"))
        self.minus = QPushButton("−")
        self.plus = QPushButton("+")
        self.quantity_button = QPushButton(_("Qty (F2)"))
        self.remove_button = QPushButton(_("Remove (Del)"))
        self.misc_button = QPushButton(_("Misc item  (F3)"))
        self.misc_button.setAccessibleName(_("Misc item: an item the catalog lacks, at a typed price"))
        for widget, description in (
                (self.scan, _("Type or scan a barcode and press Enter; type a name to search the catalog")),
                (self.table, _("The sale's lines: the selected one changes with + and -, Delete removes it")),
                (self.pay_button, _("Charges the balance due on the payment terminal, after the surcharge notice")),
                (self.cash_button, _("Takes cash for the balance due and shows the change")),
                (self.part_button, _("Charges part of the balance by card; the rest by another tender")),
                (self.preauth_button, _("Holds an amount on the card, to capture the final amount later")),
                (self.preauths_button, _("The open pre-auths, to capture or release them")),
                (self.minus, _("Takes one off the selected line; on a line of one, removes it")),
                (self.plus, _("Adds one to the selected line")),
                (self.quantity_button, _("Types the selected line's quantity; 0 removes the line")),
                (self.remove_button, _("Removes the selected line from the sale")),
                (self.misc_button, _("Rings up an item the catalog lacks, at a price typed the store's way"))):
            widget.setAccessibleDescription(description)
        self._ringing_open_price = False
        for button, name in ((self.minus, _("One less")), (self.plus, _("One more")),
                             (self.quantity_button, _("Change the quantity")), (self.remove_button, _("Remove line"))):
            button.setAccessibleName(name)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for button in (self.pay_button, self.cash_button, self.part_button, self.preauth_button, self.preauths_button,
                       self.misc_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for button, name in ((self.pay_button, "card"), (self.remove_button, "remove")):
            button.setIcon(icon(name))
            button.setIconSize(QSize(28, 28))
        self._layout()
        self.scan.returnPressed.connect(self._enter)
        self.scan.textEdited.connect(self._search)
        for widget in (self.scan, self.table, self.results):
            widget.installEventFilter(self)
        self.results.itemActivated.connect(self._pick)
        self.cart_model.quantity_typed.connect(self._quantity_typed)
        self.table.itemDelegate().closeEditor.connect(lambda *_: self.focus_scan())
        self.pay_button.clicked.connect(lambda: self.pay_requested.emit(False))
        self.preauth_button.clicked.connect(lambda: self.pay_requested.emit(True))
        self.cash_button.clicked.connect(self.cash_requested.emit)
        self.part_button.clicked.connect(self.part_requested.emit)
        self.plus.clicked.connect(lambda: self._change_quantity(+1))
        self.minus.clicked.connect(lambda: self._change_quantity(-1))
        self.quantity_button.clicked.connect(self._edit)
        self.remove_button.clicked.connect(self._remove)
        self.misc_button.clicked.connect(self.ring_open_price)
        # bound methods, not lambdas: a screen built again in another language is let go of
        bridge.cart_changed.connect(self._cart_changed)
        bridge.catalog_synced.connect(self._catalog_synced)
        self.refresh()
        self._load_catalog()  # from the local catalog at once; again after each sync

    def _layout(self) -> None:
        left = QVBoxLayout()
        left.addWidget(self.scan)
        left.addWidget(self.results, 3)
        keys = QWidget()
        keys.setLayout(self.quick)
        left.addWidget(QLabel(_("Quick keys")))
        left.addWidget(keys, 2)
        # the tabs and deposits under the keys, side by side: the cart keeps its rows, and the
        # window fits a 1024×768 screen in width and in height; one above the other when their
        # words are long (es, fr): side by side they would widen the window past 1024
        side_by_side = len(self.preauth_button.text() + self.preauths_button.text()) <= PAIR_CHARS
        preauth_row = QHBoxLayout() if side_by_side else QVBoxLayout()
        preauth_row.addWidget(self.preauth_button)
        preauth_row.addWidget(self.preauths_button)
        left.addLayout(preauth_row)
        totals = QGridLayout()
        for row, (name, label) in enumerate(((_("Subtotal"), self.subtotal), (_("Tax"), self.tax),
                                             (_("Total"), self.total))):
            caption = QLabel(name)
            if label is self.total:
                caption.setObjectName("grandTotalCaption")
            totals.addWidget(caption, row, 0)
            label.setAlignment(Qt.AlignmentFlag.AlignRight)
            totals.addWidget(label, row, 1)
        line_buttons = QHBoxLayout()
        for button in (self.minus, self.plus, self.quantity_button, self.remove_button, self.misc_button):
            line_buttons.addWidget(button)
        right = QVBoxLayout()
        right.addWidget(self.table, 1)
        right.addLayout(line_buttons)
        right.addLayout(totals)
        right.addWidget(self.payments)
        tender_row = QHBoxLayout()  # one row: the cart keeps its height on a 1024×768 screen
        tender_row.addWidget(self.pay_button, 2)
        tender_row.addWidget(self.cash_button, 1)
        tender_row.addWidget(self.part_button, 1)
        right.addLayout(tender_row)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 2)
        layout.addLayout(right, 3)

    # showing -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the cart. The line that just grew (added, scanned again, raised) is selected;
        else the selected one stays; else the last."""
        cart = self.counter.cart
        shown = {line.line_id: line.quantity for line in self.cart_model.rows}
        grown = [line.line_id for line in cart.lines if line.quantity > shown.get(line.line_id, 0)]
        selected = grown[-1] if grown else self.selected_line_id()
        totals = self.counter.totals()
        self.cart_model.show_lines(cart.lines, totals.flagged)
        self.subtotal.setText(self.money(totals.subtotal))
        self.tax.setText(self.money(totals.tax))
        self.total.setText(self.money(totals.total))
        self.payments.show_order(self.counter.payments, totals.total)
        self.pay_button.setEnabled(totals.payable)
        self.preauth_button.setEnabled(totals.payable and not self.counter.payments.paid)
        for button in (self.cash_button, self.part_button):
            button.setEnabled(totals.payable)
        row = self.cart_model.row_of(selected) if selected is not None else -1
        self._select_row(row if row >= 0 else len(cart.lines) - 1)

    def money(self, cents: int) -> str:
        return self.counter.money(cents)

    def _cart_changed(self, cart: object) -> None:
        self.refresh()

    def _catalog_synced(self, result: object) -> None:
        self._load_catalog()

    def focus_scan(self) -> None:
        self.scan.setFocus()

    def let_go(self) -> None:
        """This screen is being replaced (built again in another language): work under way
        for it stops at its next step instead of filling a deleted widget."""
        self._let_go = True

    @asyncSlot()
    async def _load_catalog(self) -> None:
        """The quick keys (the first categories), and whether a SKU needs ``+`` or ``-``."""
        codes = await self.counter.disk(self.counter.catalog.codes_containing, LINE_KEYS)
        categories = await self.counter.categories()
        if self._let_go:
            return
        self.codes_with_line_keys = codes
        while self.quick.count():
            item = self.quick.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        for index, name in enumerate(categories[:QUICK_KEYS]):
            button = QPushButton(name.replace("&", "&&"))  # "&" would mark a shortcut letter
            button.setObjectName("quickKey")
            button.setAccessibleDescription(_("Shows the catalog's items of this category, to pick one"))
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda checked=False, category=name: self._show_category(category))
            self.quick.addWidget(button, index // 2, index % 2)

    # scanning and searching -------------------------------------------------------------------

    def _entry(self) -> Entry | None:
        """The scan field read (``3*`` and what follows); None, and the status line says why,
        for a quantity that cannot be."""
        try:
            return read_entry(self.scan.text())
        except ValueError as error:
            self.message.emit(f"{error}.")
            return None

    @asyncSlot()
    async def _enter(self) -> None:
        """Enter in the field: the exact code scanned or typed, else the picked search result.

        The field is emptied at once (a scanner may already be typing the next code)."""
        entry = self._entry()
        if entry is None or not entry.text:
            if entry is not None and entry.quantity > 1:
                self.message.emit(_("Quantity {quantity}: scan the item, or type its name and pick it.").format(
                    quantity=entry.quantity))
            return
        current = self.results.currentItem() if self.results.isVisible() else None
        picked: CatalogItem | None = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self._search_serial += 1  # a search still running for this text is dropped
        self.scan.clear()
        self.results.clear()
        self.results.hide()
        try:
            line = await self.counter.scan(entry.text, entry.quantity)
        except ValueError as error:  # the line would hold too many, or the item's tax has no rate
            said = str(error).rstrip(".")
            self.message.emit(f"{said[:1].upper()}{said[1:]}.")
            return
        if line is not None:
            self.message.emit(self._added(entry.quantity, line.name))
        elif picked is not None:
            await self._add(picked, entry.quantity)
        else:
            self.message.emit(_("No item has the code or name “{text}”.").format(text=entry.text))

    @asyncSlot(str)
    async def _search(self, text: str) -> None:
        self._search_serial += 1
        serial = self._search_serial
        entry = self._entry()
        if entry is not None and entry.quantity > 1 and not entry.text:
            self.message.emit(_("Quantity {quantity}: scan the item, or type its name and pick it.").format(
                quantity=entry.quantity))
        words = entry.text if entry is not None else ""
        items = await self.counter.search(words) if words else []
        if serial == self._search_serial:  # an older search that finished late is dropped
            self._show_results(items)

    @asyncSlot(str)
    async def _show_category(self, category: str) -> None:
        self._show_results(await self.counter.in_category(category))
        self.results.setFocus()

    def _show_results(self, items: list[CatalogItem]) -> None:
        self.results.clear()
        for item in items:
            entry = QListWidgetItem(f"{item.name}    {self.money(item.price_cents)}")
            entry.setData(Qt.ItemDataRole.UserRole, item)
            self.results.addItem(entry)
        self.results.setVisible(bool(items))
        if items:
            self.results.setCurrentRow(0)

    @asyncSlot(QListWidgetItem)
    async def _pick(self, entry: QListWidgetItem) -> None:
        typed = self._entry()
        if typed is not None:
            await self._add(entry.data(Qt.ItemDataRole.UserRole), typed.quantity)

    async def _add(self, item: CatalogItem, quantity: int = 1) -> None:
        try:
            line = await self.counter.add(item, quantity)
        except ValueError as error:
            self.message.emit(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        self._done_adding(self._added(quantity, line.name))

    @staticmethod
    def _added(quantity: int, name: str) -> str:
        if quantity > 1:
            return _("Added {quantity} × {name}").format(quantity=quantity, name=name)
        return _("Added {name}").format(name=name)

    def _done_adding(self, text: str) -> None:
        self.scan.clear()
        self.results.clear()
        self.results.hide()
        self.message.emit(text)
        self.scan.setFocus()

    @asyncSlot()
    async def ring_open_price(self) -> None:
        """F3: the misc item dialog; its line, once added, is the selected one (as a scan's)."""
        if self._ringing_open_price:  # a second F3 while the first one's dialog opens
            return
        self._ringing_open_price = True
        try:
            dialog = OpenPriceDialog(self.counter, await self.counter.open_price_taxes(), self)
            await shown(dialog)
        finally:
            self._ringing_open_price = False
        self.window().activateWindow()  # the keys (F3, F12...) are the main window's again
        if dialog.line is not None:
            self._done_adding(_("Added {name}, {price}").format(name=dialog.line.name,
                                                                 price=self.money(dialog.line.unit_cents)))
        else:
            self.focus_scan()

    # the selected line ------------------------------------------------------------------------

    def selected_line_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        line = self.cart_model.line_at(rows[0].row()) if rows else None
        return line.line_id if line else None

    def _select_row(self, row: int) -> None:
        if 0 <= row < self.cart_model.rowCount():
            self.table.setCurrentIndex(self.cart_model.index(row, 0))
            self.table.selectRow(row)

    def _selected_row(self) -> int:
        line_id = self.selected_line_id()
        return -1 if line_id is None else self.cart_model.row_of(line_id)

    def _move_selection(self, step: int) -> None:
        self._select_row(min(max(self._selected_row() + step, 0), self.cart_model.rowCount() - 1))

    @asyncSlot()
    async def _change_quantity(self, step: int) -> None:
        line_id = self.selected_line_id()
        if line_id is not None:
            await self._apply(self.counter.step_quantity(line_id, step))

    @asyncSlot()
    async def _remove(self) -> None:
        line_id = self.selected_line_id()
        if line_id is not None:
            name = self.counter.cart.line(line_id).name
            if await self._apply(self.counter.remove(line_id)):
                self.message.emit(_("Removed {name}").format(name=name))

    def _edit(self) -> None:
        """F2: the selected line's Qty cell becomes a field; Enter applies, Esc leaves it."""
        row = self._selected_row()
        if row >= 0:
            self.table.edit(self.cart_model.index(row, QTY_COLUMN))

    @asyncSlot(int, str)
    async def _quantity_typed(self, line_id: int, text: str) -> None:
        try:
            quantity = read_quantity(text)
        except ValueError as error:
            self.message.emit(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        await self._apply(self.counter.set_quantity(line_id, quantity))

    async def _apply(self, change: Coroutine[Any, Any, object]) -> bool:
        """Await a change of the cart; a refusal is said on the status line (the cart stays)."""
        try:
            await change
        except (ValueError, CartError) as error:  # out of range; a line gone meanwhile
            self.message.emit(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return False
        except StaffError as error:
            self.message.emit(_("Not changed: the change could not be written to the audit trail ({error}).").format(
                error=error))
            return False
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        in_scan = watched is self.scan
        if in_scan and key == Qt.Key.Key_Down and self.results.isVisible():
            self.results.setFocus()
            return True
        if in_scan and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            self._move_selection(-1 if key == Qt.Key.Key_Up else +1)
            return True
        if (line_step := LINE_STEPS.get(Qt.Key(key))) is not None:
            step, char = line_step
            if in_scan and self.scan.text() and char in self.codes_with_line_keys:
                return False  # part of a code this store has
            self._change_quantity(step)
            return True
        if key == Qt.Key.Key_F2:
            self._edit()
            return True
        if key == Qt.Key.Key_Delete and (watched is self.table or not self.scan.text()):
            self._remove()
            return True
        return False
