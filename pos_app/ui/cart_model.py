"""The cart as a table: item, quantity, unit price, line total (and its tax)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pos_app.cart import CartLine
from pos_app.ui.qt import QObject, Qt
from pos_app.ui.table_model import RowsModel


class CartModel(RowsModel[CartLine]):
    HEADERS = ("Item", "Qty", "Price", "Total")
    RIGHT_ALIGNED = frozenset({1, 2, 3})

    def __init__(self, money: Callable[[int], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def line_at(self, row: int) -> CartLine | None:
        return self.row_at(row)

    def row_of(self, line_id: int) -> int:
        return next((row for row, line in enumerate(self.rows) if line.line_id == line_id), -1)

    def cells(self, line: CartLine) -> tuple[str, ...]:
        return (line.name, str(line.quantity), self.money(line.unit_cents), self.money(line.unit_cents * line.quantity))

    def extra(self, line: CartLine, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{line.name}, {line.quantity} at {self.money(line.unit_cents)}"
        return None
