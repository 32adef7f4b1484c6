"""The cart as a table: item, quantity, unit price, line total (and its tax)."""

from __future__ import annotations

from typing import Any

from pos_app.cart import Cart, CartLine
from pos_app.receipts import format_money
from pos_app.ui.qt import QAbstractTableModel, QModelIndex, QObject, Qt

HEADERS = ("Item", "Qty", "Price", "Total")


class CartModel(QAbstractTableModel):
    def __init__(self, currency: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.currency = currency
        self._lines: tuple[CartLine, ...] = ()

    def show(self, cart: Cart) -> None:
        self.beginResetModel()
        self._lines = cart.lines
        self.endResetModel()

    def line_at(self, row: int) -> CartLine | None:
        return self._lines[row] if 0 <= row < len(self._lines) else None

    def row_of(self, line_id: int) -> int:
        return next((row for row, line in enumerate(self._lines) if line.line_id == line_id), -1)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._lines)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        line = self.line_at(index.row())
        if line is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (line.name, str(line.quantity), format_money(line.unit_cents, self.currency),
                    format_money(line.unit_cents * line.quantity, self.currency))[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{line.name}, {line.quantity} at {format_money(line.unit_cents, self.currency)}"
        return None
