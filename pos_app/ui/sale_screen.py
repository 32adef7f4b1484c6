"""The sale screen: scan or search, the cart, its totals, and the keys that pay.

The scan/search field has focus whenever no dialog is open. A scanned or typed SKU or
barcode followed by Enter adds the item at once; other text searches the local catalog
as it is typed (results picked with the arrow keys and Enter). Quick keys list a
category's items. ``+``/``-`` change the selected line's quantity, Delete removes it.
"""

from __future__ import annotations

import logging

from pos_app.catalog import CatalogItem
from pos_app.receipts import format_money
from pos_app.station.counter import Counter
from pos_app.ui.bridge import StationBridge
from pos_app.ui.cart_model import CartModel
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


class SaleScreen(QWidget):
    pay_requested = Signal(bool)  # True: a pre-auth
    message = Signal(str)  # a sentence for the status line

    def __init__(self, counter: Counter, bridge: StationBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self._search_serial = 0
        self.scan = QLineEdit()
        self.scan.setObjectName("scanField")
        self.scan.setPlaceholderText("Scan a barcode, or type to search")
        self.scan.setAccessibleName("Scan or search")
        self.results = QListWidget()
        self.results.setObjectName("results")
        self.results.setAccessibleName("Search results")
        self.results.hide()
        self.quick = QGridLayout()
        self.cart_model = CartModel(counter.config.currency, self)
        self.table = QTableView()
        self.table.setObjectName("cart")
        self.table.setAccessibleName("Cart")
        self.table.setModel(self.cart_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.subtotal = QLabel()
        self.tax = QLabel()
        self.total = QLabel()
        self.total.setObjectName("grandTotal")
        self.total.setAccessibleName("Total")
        self.charged = QLabel()
        self.charged.setAccessibleName("Charged by card so far")
        self.due = QLabel()
        self.due.setObjectName("stillDue")
        self.due.setAccessibleName("Still due")
        self.due_caption = QLabel("Still due")
        self.due_caption.setObjectName("stillDueCaption")
        self.charged_caption = QLabel("Charged by card")
        self.pay_button = QPushButton("Pay by card  (F12)")
        self.pay_button.setObjectName("payButton")
        self.preauth_button = QPushButton("Pre-auth  (F11)")
        self.preauths_button = QPushButton("Open pre-auths  (Ctrl+T)")
        self.minus = QPushButton("−")
        self.plus = QPushButton("+")
        self.remove_button = QPushButton("Remove (Del)")
        for button, name in ((self.minus, "One less"), (self.plus, "One more"), (self.remove_button, "Remove line")):
            button.setAccessibleName(name)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for button in (self.pay_button, self.preauth_button, self.preauths_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for button, name in ((self.pay_button, "card"), (self.preauths_button, "tab"), (self.remove_button, "remove")):
            button.setIcon(icon(name))
            button.setIconSize(QSize(28, 28))
        self._layout()
        self.scan.returnPressed.connect(self._enter)
        self.scan.textEdited.connect(self._search)
        self.scan.installEventFilter(self)
        self.table.installEventFilter(self)
        self.results.itemActivated.connect(self._pick)
        self.pay_button.clicked.connect(lambda: self.pay_requested.emit(False))
        self.preauth_button.clicked.connect(lambda: self.pay_requested.emit(True))
        self.plus.clicked.connect(lambda: self._change_quantity(+1))
        self.minus.clicked.connect(lambda: self._change_quantity(-1))
        self.remove_button.clicked.connect(self._remove)
        bridge.cart_changed.connect(lambda cart: self.refresh())
        bridge.catalog_synced.connect(lambda result: self._load_quick_keys())
        self.refresh()
        self._load_quick_keys()  # from the local catalog at once; again after each sync

    def _layout(self) -> None:
        left = QVBoxLayout()
        left.addWidget(self.scan)
        left.addWidget(self.results, 3)
        keys = QWidget()
        keys.setLayout(self.quick)
        left.addWidget(QLabel("Quick keys"))
        left.addWidget(keys, 2)
        totals = QGridLayout()
        for row, (name, label) in enumerate((("Subtotal", self.subtotal), ("Tax", self.tax), ("Total", self.total))):
            caption = QLabel(name)
            if name == "Total":
                caption.setObjectName("grandTotalCaption")
            totals.addWidget(caption, row, 0)
            label.setAlignment(Qt.AlignmentFlag.AlignRight)
            totals.addWidget(label, row, 1)
        for row, (caption, label) in enumerate(((self.charged_caption, self.charged), (self.due_caption, self.due)),
                                               start=3):  # shown while a partial approval leaves money due
            totals.addWidget(caption, row, 0)
            label.setAlignment(Qt.AlignmentFlag.AlignRight)
            totals.addWidget(label, row, 1)
        line_buttons = QHBoxLayout()
        for button in (self.minus, self.plus, self.remove_button):
            line_buttons.addWidget(button)
        right = QVBoxLayout()
        right.addWidget(self.table, 1)
        right.addLayout(line_buttons)
        right.addLayout(totals)
        right.addWidget(self.pay_button)
        preauth_row = QHBoxLayout()
        preauth_row.addWidget(self.preauth_button)
        preauth_row.addWidget(self.preauths_button)
        right.addLayout(preauth_row)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 2)
        layout.addLayout(right, 3)

    # showing -------------------------------------------------------------------------------

    def refresh(self) -> None:
        cart = self.counter.cart
        selected = self._selected_line_id()
        self.cart_model.show(cart.lines)
        totals = self.counter.totals()
        self.subtotal.setText(self.money(totals.subtotal))
        self.tax.setText(self.money(totals.tax))
        self.total.setText(self.money(totals.total))
        charges = self.counter.charges
        for widget in (self.charged_caption, self.charged, self.due_caption, self.due):
            widget.setVisible(charges.total > 0)
        self.charged.setText(self.money(charges.total))
        self.due.setText(self.money(charges.due(totals.total)))
        self.pay_button.setEnabled(totals.payable)
        self.preauth_button.setEnabled(totals.payable)
        row = self.cart_model.row_of(selected) if selected is not None else -1
        if row < 0 and cart.lines:
            row = len(cart.lines) - 1
        if row >= 0:
            self.table.selectRow(row)

    def money(self, cents: int) -> str:
        return format_money(cents, self.counter.config.currency)

    def focus_scan(self) -> None:
        self.scan.setFocus()

    @asyncSlot()
    async def _load_quick_keys(self) -> None:
        while self.quick.count():
            item = self.quick.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        for index, name in enumerate((await self.counter.categories())[:QUICK_KEYS]):
            button = QPushButton(name.replace("&", "&&"))  # "&" would mark a shortcut letter
            button.setObjectName("quickKey")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda checked=False, category=name: self._show_category(category))
            self.quick.addWidget(button, index // 2, index % 2)

    # scanning and searching -------------------------------------------------------------------

    @asyncSlot()
    async def _enter(self) -> None:
        """Enter in the field: the exact code scanned or typed, else the picked search result.

        The field is emptied at once (a scanner may already be typing the next code)."""
        text = self.scan.text().strip()
        current = self.results.currentItem() if self.results.isVisible() else None
        picked: CatalogItem | None = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self._search_serial += 1  # a search still running for this text is dropped
        self.scan.clear()
        self.results.clear()
        self.results.hide()
        if not text:
            return
        line = await self.counter.scan(text)
        if line is not None:
            self.message.emit(f"Added {line.name}")
        elif picked is not None:
            await self._add(picked)
        else:
            self.message.emit(f"No item has the code or name “{text}”.")

    @asyncSlot(str)
    async def _search(self, text: str) -> None:
        self._search_serial += 1
        serial = self._search_serial
        items = await self.counter.search(text) if text.strip() else []
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
        await self._add(entry.data(Qt.ItemDataRole.UserRole))

    async def _add(self, item: CatalogItem) -> None:
        try:
            line = await self.counter.add(item)
        except ValueError as error:
            self.message.emit(str(error))
            return
        self._done_adding(f"Added {line.name}")

    def _done_adding(self, text: str) -> None:
        self.scan.clear()
        self.results.clear()
        self.results.hide()
        self.message.emit(text)
        self.scan.setFocus()

    # the selected line ------------------------------------------------------------------------

    def _selected_line_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        line = self.cart_model.line_at(rows[0].row()) if rows else None
        return line.line_id if line else None

    @asyncSlot()
    async def _change_quantity(self, step: int) -> None:
        line_id = self._selected_line_id()
        if line_id is None:
            return
        try:
            await self.counter.set_quantity(line_id, self.counter.cart.line(line_id).quantity + step)
        except ValueError as error:
            self.message.emit(str(error))

    @asyncSlot()
    async def _remove(self) -> None:
        line_id = self._selected_line_id()
        if line_id is not None:
            await self.counter.remove(line_id)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        if watched is self.scan and key == Qt.Key.Key_Down and self.results.isVisible():
            self.results.setFocus()
            return True
        if watched is self.scan and not self.scan.text() and key in (Qt.Key.Key_Plus, Qt.Key.Key_Minus):
            self._change_quantity(+1 if key == Qt.Key.Key_Plus else -1)
            return True
        if key == Qt.Key.Key_Delete and (watched is self.table or not self.scan.text()):
            self._remove()
            return True
        return False
