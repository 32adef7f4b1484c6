"""The cart as a table: item, quantity, unit price, line total (and its tax). A line with a
tax the merchant no longer lists says so under its name (⚠), the whole sentence as its tooltip.

The Qty cell is editable (F2 on the sale screen): what is typed there is handed on as text
(``quantity_typed``) for the sale screen to read and the counter to apply; the table shows
the cart as the counter has it, never a value it refused."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pos_app.cart import CartLine, FlaggedTax
from pos_app.i18n import N_, _
from pos_app.ui.qt import QModelIndex, QObject, Qt, Signal
from pos_app.ui.table_model import RowsModel

QTY_COLUMN = 1


class CartModel(RowsModel[CartLine]):
    HEADERS = (N_("Item"), N_("Qty"), N_("Price"), N_("Total"))
    RIGHT_ALIGNED = frozenset({1, 2, 3})
    quantity_typed = Signal(int, str)  # line id, the text typed in its Qty cell

    def __init__(self, money: Callable[[int], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money
        self.flagged: Mapping[int, tuple[FlaggedTax, ...]] = {}

    def show_lines(self, lines: Sequence[CartLine], flagged: Mapping[int, tuple[FlaggedTax, ...]]) -> None:
        """The cart's lines, with the flags of its totals (``Totals.flagged``)."""
        self.flagged = flagged
        self.show(lines)

    def line_at(self, row: int) -> CartLine | None:
        return self.row_at(row)

    def row_of(self, line_id: int) -> int:
        return next((row for row, line in enumerate(self.rows) if line.line_id == line_id), -1)

    def cells(self, line: CartLine) -> tuple[str, ...]:
        return ("\n".join((line.name, *self._notes(line))), str(line.quantity), self.money(line.unit_cents),
                self.money(line.unit_cents * line.quantity))

    def extra(self, line: CartLine, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.AccessibleTextRole:
            count = _("{quantity} at {price}").format(quantity=line.quantity, price=self.money(line.unit_cents))
            return ", ".join((line.name, *self._notes(line), count))
        if role == Qt.ItemDataRole.ToolTipRole and line.line_id in self.flagged:
            return " ".join(tax.sentence for tax in self.flagged[line.line_id])
        if role == Qt.ItemDataRole.EditRole and column == QTY_COLUMN:
            return str(line.quantity)  # text: a line edit, whose input the sale screen reads and explains
        return None

    def _notes(self, line: CartLine) -> tuple[str, ...]:
        """One line under the item's name for each flagged tax."""
        return tuple(f"⚠ {tax.label}" for tax in self.flagged.get(line.line_id, ()))

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsEditable if index.column() == QTY_COLUMN else flags

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        line = self.line_at(index.row())
        if line is None or index.column() != QTY_COLUMN or role != Qt.ItemDataRole.EditRole:
            return False
        self.quantity_typed.emit(line.line_id, str(value))
        return True
