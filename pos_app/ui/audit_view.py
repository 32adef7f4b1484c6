"""The audit-trail tab of the back office: every manager action, staff change and cart line
lowered after a payment attempt (who, when, what, why), shown after a manager's PIN and
exported as CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pos_app.i18n import N_, _, ngettext
from pos_app.money import MoneyFormat
from pos_app.staff import AuditAction, AuditEntry, audit_csv
from pos_app.station.back_office import BackOffice
from pos_app.ui.dialogs import shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.table_model import RowsModel

ACTIONS: dict[str, str] = {
    AuditAction.STAFF_ADDED: N_("staff added"),
    AuditAction.STAFF_REMOVED: N_("staff removed"),
    AuditAction.SIGN_IN_LOCKED: N_("sign in locked"),
    AuditAction.SIGN_IN_UNLOCKED: N_("sign in unlocked"),
    AuditAction.VOID: N_("void"),
    AuditAction.REFUND: N_("refund"),
    AuditAction.RESOLVE: N_("resolve"),
    AuditAction.CLOSE_BATCH: N_("close batch"),
    AuditAction.Z_REPORT: N_("z report"),
    AuditAction.SETTINGS_CHANGED: N_("settings changed"),
    AuditAction.LINE_REMOVED: N_("line removed"),
    AuditAction.QUANTITY_LOWERED: N_("quantity lowered"),
    AuditAction.ORDER_CANCELLED: N_("order cancelled"),
    AuditAction.RETURN: N_("return"),
    AuditAction.RETURN_TO_CASH: N_("return to cash"),
    AuditAction.CASH_IN: N_("cash in"),
    AuditAction.CASH_OUT: N_("cash out"),
    AuditAction.NO_SALE: N_("no sale"),
    AuditAction.MEMBERSHIP_PAUSED: N_("membership paused"),
    AuditAction.MEMBERSHIP_RESUMED: N_("membership resumed"),
    AuditAction.MEMBERSHIP_CANCELLED: N_("membership cancelled"),
    AuditAction.OVERRIDE: N_("override"),
}
"""The action column's words (the trail keeps the value; one a newer app wrote shows as it is)."""


def action_label(action: str) -> str:
    known = ACTIONS.get(action)
    return _(known) if known else action.replace("_", " ")


class AuditModel(RowsModel[AuditEntry]):
    HEADERS = (N_("When"), N_("Who"), N_("Action"), N_("What"), N_("Why"))

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        text = super().headerData(section, orientation, role)
        return _(text) if isinstance(text, str) else text

    def cells(self, entry: AuditEntry) -> tuple[str, ...]:
        return (entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), entry.actor, action_label(entry.action),
                entry.detail, entry.reason)

    def extra(self, entry: AuditEntry, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and column in (3, 4):  # the whole text of a cut cell
            return entry.detail if column == 3 else entry.reason
        return None


class AuditPanel(QWidget):
    def __init__(self, office: BackOffice, money: MoneyFormat, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.office = office
        self.money = money
        self.unlocked = False
        self.model = AuditModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(_("Audit trail"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # what: cut to fit, whole in its tooltip
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.message = QLabel(_("The audit trail is shown to a manager."))
        self.message.setWordWrap(True)
        self.show_button = QPushButton(_("&Show (manager PIN)…"))
        self.export_button = QPushButton(_("&Export CSV…"))
        self.export_button.setEnabled(False)
        self.show_button.setAccessibleDescription(_("Shows who did what, when and why, after a manager's PIN"))
        self.export_button.setAccessibleDescription(_("Saves the audit trail shown as a CSV file"))
        buttons = QHBoxLayout()
        for button in (self.show_button, self.export_button):
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
        approval = ManagerApproval(_("Show the audit trail"), _("A manager's PIN shows who did what, when and why."),
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
        self.message.setText(ngettext("{count} entry, newest first.", "{count} entries, newest first.",
                                       len(entries)).format(count=len(entries)))

    @asyncSlot()
    async def _export(self) -> None:
        name, __ = QFileDialog.getSaveFileName(self, _("Export the audit trail"), "audit-trail.csv",
                                               _("CSV files (*.csv)"))
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
            return _("The audit trail could not be saved to {path}: {error}.").format(path=target,
                                                                                    error=error.strerror or error)
        return _("The audit trail was saved to {path}.").format(path=target)
