"""``RowsModel``: a read-only table of rows for a ``QTableView`` (cart lines, payments, the
audit trail). A subclass names its headers and says what each row shows (``cells``); it
may add other roles (alignment, tooltips) in ``extra``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos_app.i18n import _
from pos_app.ui.qt import QAbstractTableModel, QModelIndex, QObject, Qt


class RowsModel[Row](QAbstractTableModel):
    HEADERS: tuple[str, ...] = ()
    """The columns' headings, each marked ``N_()``: shown with ``_()``, in the language in force."""
    RIGHT_ALIGNED: frozenset[int] = frozenset()
    """Columns of amounts, right-aligned."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: Sequence[Row] = ()

    def show(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def row_at(self, number: int) -> Row | None:
        return self.rows[number] if 0 <= number < len(self.rows) else None

    def cells(self, row: Row) -> tuple[str, ...]:
        raise NotImplementedError

    def extra(self, row: Row, column: int, role: int) -> Any:
        """Any role but display and alignment (None: nothing)."""
        return None

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return _(self.HEADERS[section])
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index.row())
        if row is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(row)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.RIGHT_ALIGNED:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return self.extra(row, index.column(), role)
