"""Ctrl+D, the cash drawer's own movements: cash in, cash out, or the drawer opened for no
sale. Each is a manager's (PIN and reason, in the audit trail), journaled in the cash ledger
before the drawer opens, and counted in the shift's expected cash (no sale counts nothing).
The choice is a key (I, O, N); the manager's approval then asks the amount, PIN and reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.config import MAX_CASH_CENTS
from pos_app.journal import CashKind
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from pos_app.station.counter import Counter

CHOICES = ((CashKind.CASH_IN, "Cash &in: put cash into the drawer"),
           (CashKind.CASH_OUT, "Cash &out: take cash out of the drawer"),
           (CashKind.NO_SALE, "&No sale: open the drawer, no money moves"))


class DrawerChoice(QDialog):
    """Which movement (Alt+I, Alt+O, Alt+N, or the arrows and Enter)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cash drawer")
        self.kind: CashKind | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("What is the drawer opened for? A manager approves it."))
        for kind, text in CHOICES:
            button = QPushButton(text)
            button.clicked.connect(lambda checked=False, chosen=kind: self._choose(chosen))
            layout.addWidget(button)
        cancel = QPushButton("Cancel  (Esc)")
        cancel.clicked.connect(self.reject)
        layout.addWidget(cancel)
        enter_presses_focused_button(self)

    def _choose(self, kind: CashKind) -> None:
        self.kind = kind
        self.accept()


async def move_drawer_cash(counter: Counter, parent: QWidget) -> str | None:
    """Ask which movement and a manager's approval, then make it: the status line's sentence
    (None when cancelled)."""
    choice = DrawerChoice(parent)
    if await shown(choice) != QDialog.DialogCode.Accepted or choice.kind is None:
        return None
    kind, money = choice.kind, counter.money
    title = {CashKind.CASH_IN: "Cash in", CashKind.CASH_OUT: "Cash out", CashKind.NO_SALE: "No sale"}[kind]
    summary = ("Opens the drawer with no money moving; recorded in the audit trail." if kind is CashKind.NO_SALE
               else f"{title}: the amount is recorded in the cash ledger and counted in the shift's expected cash.")
    approval = ManagerApproval(title, summary, lambda pin: counter.disk(counter.staff.check_manager, pin),
                               money=money, max_amount=None if kind is CashKind.NO_SALE else MAX_CASH_CENTS,
                               prefill=False, parent=parent)
    if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
        return None
    try:
        entry, drawer = await counter.move_drawer_cash(kind, approval.amount_cents or 0, manager=approval.manager,
                                                       reason=approval.reason_text)
    except ValueError as error:
        return f"{title} not recorded: {error}."
    said = f"{title} {money(entry.amount)}" if entry.amount else title
    return f"{said} recorded by {approval.manager.name}. {drawer}"
