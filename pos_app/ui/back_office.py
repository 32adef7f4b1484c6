"""The back office (F9): today's payments, what needs attention, and the audit trail, as
tabs of one window over the Qt-free ``BackOffice``. Esc closes it; F5 refreshes the tab."""

from __future__ import annotations

from typing import Any

from pos_app.i18n import _
from pos_app.money import MoneyFormat
from pos_app.station.back_office import BackOffice
from pos_app.ui.attention_view import AttentionPanel
from pos_app.ui.audit_view import AuditPanel
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.payments_view import PaymentsPanel
from pos_app.ui.qt import QDialog, QKeySequence, QShortcut, QTabWidget, QVBoxLayout, QWidget, asyncSlot


class BackOfficeDialog(QDialog):
    def __init__(self, office: BackOffice, money: MoneyFormat, receipts: Any,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Back office — payments, needs attention, audit trail"))
        self.office = office
        self.tabs = QTabWidget()
        self.payments = PaymentsPanel(self.office, money, receipts, self)
        self.attention = AttentionPanel(self.office, money, self)
        self.audit = AuditPanel(self.office, money, self)
        self.tabs.addTab(self.payments, _("&Payments"))  # Alt+P, Alt+N, Alt+T; Ctrl+Tab cycles
        self.tabs.addTab(self.attention, _("&Needs attention"))
        self.tabs.addTab(self.audit, _("Audit &trail"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        self.resize(1000, 640)  # fits a 1024×768 screen with its frame
        self.attention.show_payment.connect(self._show_payment)
        self.attention.changed.connect(lambda: self.payments.refresh())
        self.payments.changed.connect(lambda: self.attention.refresh())
        QShortcut(QKeySequence("F5"), self, activated=self._refresh)
        QShortcut(QKeySequence("Ctrl+Tab"), self, activated=lambda: self._turn(1))
        QShortcut(QKeySequence("Ctrl+Shift+Tab"), self, activated=lambda: self._turn(-1))
        self.payments.refresh()
        self.attention.refresh()
        enter_presses_focused_button(self)

    @asyncSlot()
    async def _refresh(self) -> None:
        current = self.tabs.currentWidget()
        if current is self.payments:
            self.payments.refresh()
        elif current is self.attention:
            self.attention.refresh()
        else:
            await self.audit.refresh()

    def _turn(self, step: int) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def _show_payment(self, attempt_id: str) -> None:
        self.tabs.setCurrentWidget(self.payments)
        self.payments.show_when_listed(attempt_id)
        self.payments.refresh()  # the charge may be newer than the list on screen
