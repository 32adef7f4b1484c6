"""A manager's decision on a payment whose result is not known: their PIN, a reason,
paid or not paid. The decision is checked against the payment service first; what the
service refuses is shown. "Paid" needs the service's evidence (the attempt's own charge,
or the one whose slip reference the manager types); "not paid" may be decided anyway when
the service cannot tell ("Decide anyway", a box offered after such a refusal), recorded
as forced.

The dialog forgets the PIN and unticks "Decide anyway" at every press of a decision
button, whatever comes of it: a PIN left in the field, or a box left ticked, would let
anyone decide in the manager's name once they step away."""

from __future__ import annotations

from pos_app.i18n import _
from pos_app.staff import AuditAction, StaffError
from pos_app.station.counter import Counter
from pos_app.terminal.outcomes import OperationResult, Refusal
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QCheckBox,
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
        self.setWindowTitle(_("Manager decision"))
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText(_("Manager PIN"))
        self.pin.setAccessibleName(_("Manager PIN"))
        self.reason = QLineEdit()
        self.reason.setPlaceholderText(_("Reason (what the terminal or its printout showed)"))
        self.reason.setAccessibleName(_("Reason"))
        self.reference = QLineEdit()
        self.reference.setPlaceholderText(_("For \"paid\": the reference on the terminal's slip (if the service "
                                            "does not show the charge)"))
        self.reference.setAccessibleName(_("Reference of the charge"))
        self.force = QCheckBox(_("&Decide anyway (recorded as forced)"))
        self.force.hide()  # offered after a refusal of "not paid" that allows it
        self.message = QLabel(_("Decide only after looking at the terminal's screen or printout."))
        self.message.setWordWrap(True)
        self.paid = QPushButton(_("Mark &paid"))
        self.not_paid = QPushButton(_("Mark &not paid"))
        cancel = QPushButton(_("Cancel  (Esc)"))
        for widget, description in (
                (self.paid, _("Records that the customer paid this attempt (a manager's PIN and a reason)")),
                (self.not_paid, _("Records that this attempt charged nothing (a manager's PIN and a reason)")),
                (cancel, _("Closes without a decision: the attempt stays unknown"))):
            widget.setAccessibleDescription(description)
        buttons = QHBoxLayout()
        for button in (self.paid, self.not_paid, cancel):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(_("Attempt {id}").format(id=self.attempt_id)))
        layout.addWidget(self.pin)
        layout.addWidget(self.reason)
        layout.addWidget(self.reference)
        layout.addWidget(self.force)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.paid.clicked.connect(lambda: self._decide(True))
        self.not_paid.clicked.connect(lambda: self._decide(False))
        cancel.clicked.connect(self.reject)
        # the reference's placeholder (the longest text, longer still in es and fr) shown whole
        needed = self.reference.fontMetrics().horizontalAdvance(self.reference.placeholderText()) + 48
        self.setMinimumWidth(min(max(520, needed), 960))
        self.reference.setToolTip(self.reference.placeholderText())
        self.pin.setFocus()
        enter_presses_focused_button(self)

    @asyncSlot()
    async def _decide(self, paid: bool) -> None:
        pin, force = self.pin.text(), self.force.isChecked() and not paid
        self.pin.clear()
        self.force.setChecked(False)
        reason = self.reason.text().strip()
        if not reason:
            self._refused(_("Give a reason: it is recorded with the decision. Then type your PIN again."))
            return
        self._enable(False)  # one decision at a time
        try:
            try:
                manager = await self.counter.check_manager(
                    pin, action=AuditAction.RESOLVE, reason=reason,
                    detail=f"{self.attempt_id}: {'paid' if paid else 'not paid'}")  # not for people: the audit record
                result = await self.counter.station.resolve(self.attempt_id, paid=paid, reason=reason,
                                                            by=manager.name, force=force,
                                                            reference=self.reference.text().strip() or None)
            finally:
                self._enable(True)  # before the focus goes back: a disabled field cannot take it
        except StaffError as error:  # not a manager's, wrong, locked out, file trouble
            self._refused(pin_refused(error))
            return
        if paid and result.refusal in UNPROVEN:  # "paid" is never forced: the reference may prove it
            self._refused(_("{refusal} ({message}) Then type your PIN again.").format(
                refusal=_(REFUSALS[result.refusal]), message=result.message))
            self.reference.setFocus()
            return
        if not paid and result.refusal in FORCEABLE and not force:
            self.force.show()
            # TRANSLATORS: "Decide anyway" is the check box's text ("&Decide anyway (recorded as forced)")
            self._refused(_("{refusal} To decide anyway, type your PIN again, tick \"Decide anyway\" and press the "
                            "button again.").format(refusal=_(REFUSALS[result.refusal])))
            return
        self.decision = result
        self.accept()

    def _refused(self, text: str) -> None:
        self.message.setText(text)
        self.adjustSize()  # the sentence (and the box) shown whole
        self.pin.setFocus()

    def _enable(self, enabled: bool) -> None:
        for widget in (self.pin, self.reason, self.reference, self.force, self.paid, self.not_paid):
            widget.setEnabled(enabled)
