"""Ctrl+D, the cash drawer's own movements: cash in, cash out, or the drawer opened for no
sale. Each is a manager's (PIN and reason, in the audit trail), journaled in the cash ledger
before the drawer opens, and counted in the shift's expected cash (no sale counts nothing).
The choice is a key (I, O, N); the manager's approval then asks the amount, PIN and reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.config import MAX_CASH_CENTS
from pos_app.i18n import N_, _
from pos_app.journal import CashKind
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from pos_app.station.counter import Counter

# TRANSLATORS: the & marks the Alt key of each choice (Alt+I, Alt+O, Alt+N): keep it on the same letter
CHOICES = ((CashKind.CASH_IN, N_("Cash &in: put cash into the drawer")),
           (CashKind.CASH_OUT, N_("Cash &out: take cash out of the drawer")),
           (CashKind.NO_SALE, N_("&No sale: open the drawer, no money moves")))
"""Shown through ``_()``."""
TITLES = {CashKind.CASH_IN: N_("Cash in"), CashKind.CASH_OUT: N_("Cash out"), CashKind.NO_SALE: N_("No sale")}


class DrawerChoice(QDialog):
    """Which movement (Alt+I, Alt+O, Alt+N, or the arrows and Enter)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Cash drawer"))
        self.kind: CashKind | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(_("What is the drawer opened for? A manager approves it.")))
        for kind, text in CHOICES:
            button = QPushButton(_(text))
            button.setAccessibleDescription(_("A manager approves it"))
            button.clicked.connect(lambda checked=False, chosen=kind: self._choose(chosen))
            layout.addWidget(button)
        cancel = QPushButton(_("Cancel  (Esc)"))
        cancel.setAccessibleDescription(_("Closes; the drawer stays shut"))
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
    title = _(TITLES[kind])
    summary = (_("Opens the drawer with no money moving; recorded in the audit trail.") if kind is CashKind.NO_SALE
               else _("{action}: the amount is recorded in the cash ledger and counted in the shift's expected "
                      "cash.").format(action=title))
    approval = ManagerApproval(title, summary, lambda pin: counter.disk(counter.staff.check_manager, pin),
                               money=money, max_amount=None if kind is CashKind.NO_SALE else MAX_CASH_CENTS,
                               prefill=False, parent=parent)
    if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
        return None
    try:
        entry, drawer = await counter.move_drawer_cash(kind, approval.amount_cents or 0, manager=approval.manager,
                                                       reason=approval.reason_text)
    except ValueError as error:
        return _("{action} not recorded: {error}.").format(action=title, error=error)
    if entry.amount:
        return _("{action} {amount} recorded by {manager}. {drawer}").format(
            action=title, amount=money(entry.amount), manager=approval.manager.name, drawer=drawer)
    return _("{action} recorded by {manager}. {drawer}").format(action=title, manager=approval.manager.name,
                                                               drawer=drawer)
