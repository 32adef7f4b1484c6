"""The audit-trail tab of the back office: every manager action and staff change (who,
when, what, why), shown after a manager's PIN and exported as CSV."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pos_app.staff import AuditEntry, audit_csv
from pos_app.station.back_office import BackOffice
from pos_app.ui.dialogs import shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import (
    QAbstractItemView,
    QAbstractTableModel,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QModelIndex,
    QObject,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

HEADERS = ("When", "Who", "Action", "What", "Why")


class AuditModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[AuditEntry] = []

    def show(self, entries: list[AuditEntry]) -> None:
        self.beginResetModel()
        self.entries = entries
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or not 0 <= index.row() < len(self.entries):
            return None
        entry = self.entries[index.row()]
        return (entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), entry.actor, entry.action.replace("_", " "),
                entry.detail, entry.reason)[index.column()]


class AuditPanel(QWidget):
    def __init__(self, office: BackOffice, money: Callable[[int], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.office = office
        self.money = money
        self.unlocked = False
        self.model = AuditModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Audit trail")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.message = QLabel("The audit trail is shown to a manager.")
        self.message.setWordWrap(True)
        self.show_button = QPushButton("&Show (manager PIN)…")
        self.export_button = QPushButton("&Export CSV…")
        self.export_button.setEnabled(False)
        buttons = QHBoxLayout()
        for button in (self.show_button, self.export_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        self.show_button.clicked.connect(self._unlock)
        self.export_button.clicked.connect(self._export)

    @asyncSlot()
    async def _unlock(self) -> None:
        approval = ManagerApproval("Show the audit trail", "A manager's PIN shows who did what, when and why.",
                                   self.office.verify_manager, money=self.money, ask_reason=False, parent=self)
        if await shown(approval) != QDialog.DialogCode.Accepted:
            return
        self.unlocked = True
        await self.refresh()

    async def refresh(self) -> None:
        if not self.unlocked:
            return
        entries = await self.office.audit()
        self.model.show(entries)
        self.export_button.setEnabled(True)
        self.message.setText(f"{len(entries)} entries, newest first.")

    @asyncSlot()
    async def _export(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export the audit trail", "audit-trail.csv", "CSV files (*.csv)")
        if name:
            self.message.setText(await self.export_to(Path(name)))

    async def export_to(self, target: Path) -> str:
        """Write the whole trail as CSV to ``target`` (off the Qt thread, never half-written)."""
        text = audit_csv(await self.office.audit())

        def write() -> None:
            partial = target.with_name(target.name + ".partial")
            partial.write_text(text, encoding="utf-8", newline="")
            partial.replace(target)

        try:
            await self.office.counter.disk(write)
        except OSError as error:
            return f"The audit trail could not be saved to {target}: {error.strerror or error}."
        return f"The audit trail was saved to {target}."
