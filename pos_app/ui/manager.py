"""A manager's decision on a payment whose result is not known: their PIN, a reason,
paid or not paid. The decision is checked against the payment service first; what the
service refuses is shown. "Paid" needs the service's evidence (the attempt's own charge,
or the one whose slip reference the manager types); "not paid" may be decided anyway when
the service cannot tell, recorded as forced."""

from __future__ import annotations

from pos_app.staff import AuditAction, StaffError
from pos_app.station.counter import Counter
from pos_app.terminal.outcomes import OperationResult, Refusal
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.sentences import REFUSALS, pin_refused

FORCEABLE = frozenset({Refusal.TOO_EARLY, Refusal.SERVICE_UNREACHABLE, Refusal.POSSIBLE_MATCH})
"""Refusals of "not paid" a manager may override (recorded as forced)."""
UNPROVEN = frozenset({Refusal.NO_CHARGE_FOUND, Refusal.SERVICE_UNREACHABLE})
"""Refusals of "paid": the service did not show the charge; no override, only a reference."""


class ManagerDialog(QDialog):
    def __init__(self, counter: Counter, result: OperationResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        assert result.attempt_id is not None
        self.counter = counter
        self.attempt_id = result.attempt_id
        self.decision: OperationResult | None = None
        self._force = False
        self.setWindowTitle("Manager decision")
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText("Manager PIN")
        self.pin.setAccessibleName("Manager PIN")
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason (what the terminal or its printout showed)")
        self.reason.setAccessibleName("Reason")
        self.reference = QLineEdit()
        self.reference.setPlaceholderText("For \"paid\": the reference on the terminal's slip (if the service "
                                          "does not show the charge)")
        self.reference.setAccessibleName("Reference of the charge")
        self.message = QLabel("Decide only after looking at the terminal's screen or printout.")
        self.message.setWordWrap(True)
        self.paid = QPushButton("Mark paid")
        self.not_paid = QPushButton("Mark not paid")
        cancel = QPushButton("Cancel  (Esc)")
        buttons = QHBoxLayout()
        for button in (self.paid, self.not_paid, cancel):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Attempt {self.attempt_id}"))
        layout.addWidget(self.pin)
        layout.addWidget(self.reason)
        layout.addWidget(self.reference)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.paid.clicked.connect(lambda: self._decide(True))
        self.not_paid.clicked.connect(lambda: self._decide(False))
        cancel.clicked.connect(self.reject)
        enter_presses_focused_button(self)

    @asyncSlot()
    async def _decide(self, paid: bool) -> None:
        reason = self.reason.text().strip()
        if not reason:
            self.message.setText("Give a reason: it is recorded with the decision.")
            return
        try:
            manager = await self.counter.check_manager(
                self.pin.text(), action=AuditAction.RESOLVE, reason=reason,
                detail=f"{self.attempt_id}: {'paid' if paid else 'not paid'}")
        except StaffError as error:  # not a manager's, wrong, locked out, file trouble
            self.message.setText(pin_refused(error))
            return
        result = await self.counter.station.resolve(self.attempt_id, paid=paid, reason=reason, by=manager.name,
                                                    force=self._force and not paid,
                                                    reference=self.reference.text().strip() or None)
        if paid and result.refusal in UNPROVEN:  # "paid" is never forced: the reference may prove it
            self.message.setText(f"{REFUSALS[result.refusal]} ({result.message})")
            self.reference.setFocus()
            return
        if not paid and result.refusal in FORCEABLE and not self._force:
            self._force = True
            self.message.setText(f"{REFUSALS[result.refusal]} Press the button again to decide anyway "
                                 "(recorded as forced).")
            return
        self.decision = result
        self.accept()
