"""The cart as a table: item, quantity, unit price, line total (and its tax). A line with a
tax the merchant no longer lists says so under its name (⚠), the whole sentence as its tooltip."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pos_app.cart import CartLine, FlaggedTax
from pos_app.receipts import format_money
from pos_app.ui.qt import QObject, Qt
from pos_app.ui.table_model import RowsModel


class CartModel(RowsModel[CartLine]):
    HEADERS = ("Item", "Qty", "Price", "Total")
    RIGHT_ALIGNED = frozenset({1, 2, 3})

    def __init__(self, currency: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.currency = currency
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
        money = format_money(line.unit_cents, self.currency)
        return ("\n".join((line.name, *self._notes(line))), str(line.quantity), money,
                format_money(line.unit_cents * line.quantity, self.currency))

    def extra(self, line: CartLine, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.AccessibleTextRole:
            money = format_money(line.unit_cents, self.currency)
            return ", ".join((line.name, *self._notes(line), f"{line.quantity} at {money}"))
        if role == Qt.ItemDataRole.ToolTipRole and line.line_id in self.flagged:
            return " ".join(tax.sentence for tax in self.flagged[line.line_id])
        return None

    def _notes(self, line: CartLine) -> tuple[str, ...]:
        """One line under the item's name for each flagged tax."""
        return tuple(f"⚠ {tax.label}" for tax in self.flagged.get(line.line_id, ()))
