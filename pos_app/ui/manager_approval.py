"""A manager's approval of one action (void, refund, audit export): PIN, reason and, for a
refund, the amount. The PIN is checked here (wrong PINs count toward the lockout) and
forgotten at every attempt, whatever comes of it; after a refusal the PIN field has the
keyboard. The action itself runs after the dialog closes, so it is never sent twice by a
double Enter."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pos_app.i18n import _
from pos_app.money import MoneyFormat
from pos_app.staff import StaffError, StaffMember
from pos_app.staff.audit import check_reason
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.sentences import pin_refused

TEXT_WIDTH_CHARS = 72
"""How wide the summary and the messages are, in characters, before they wrap."""


class ManagerApproval(QDialog):
    """Ask for a manager's PIN and a reason (and an amount up to ``max_amount`` cents, read in
    the store's format: ``money``)."""

    def __init__(self, title: str, summary: str, verify: Callable[[str], Awaitable[StaffMember]], *,
                 money: MoneyFormat, max_amount: int | None = None, prefill: bool = True, ask_reason: bool = True,
                 parent: QWidget | None = None) -> None:
        """``prefill``: the amount field starts at ``max_amount`` (a refund of it all); else empty."""
        super().__init__(parent)
        self.verify = verify
        self.money = money
        self.max_amount = max_amount
        self.ask_reason = ask_reason
        self.manager: StaffMember | None = None
        self.reason_text = ""
        self.amount_cents: int | None = None
        self.setWindowTitle(title)
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setAccessibleName(_("Manager PIN"))
        self.pin.setPlaceholderText(_("Manager PIN"))
        self.reason = QLineEdit()
        self.reason.setAccessibleName(_("Reason"))
        self.reason.setPlaceholderText(_("Why (recorded in the audit trail)"))
        self.amount = QLineEdit()
        self.amount.setAccessibleName(_("Amount"))
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setObjectName("problem")
        self.message.setAccessibleName(_("Problem"))
        self.ok = QPushButton(_("{action}  (Enter)").format(action=title))
        self.ok.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        self.ok.setAccessibleDescription(_("Goes on once the manager's PIN is checked"))
        cancel.setAccessibleDescription(_("Closes without doing it"))
        form = QFormLayout()
        if max_amount is not None:
            if prefill:
                self.amount.setText(money.field(max_amount))
            self.amount.setPlaceholderText(_("e.g. {example}").format(example=money.example))
            form.addRow(_("Amount"), self.amount)
        form.addRow(_("Manager PIN"), self.pin)
        if ask_reason:
            form.addRow(_("Reason"), self.reason)
        buttons = QHBoxLayout()
        buttons.addWidget(self.ok)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        # as tall as its wrapped text, again whenever a message appears: sized by hand, the
        # summary or the refusal was cut at the bottom (1024×768 or not)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetFixedSize)
        self.summary.setMinimumWidth(self.fontMetrics().averageCharWidth() * TEXT_WIDTH_CHARS)
        self.ok.clicked.connect(self._approve)
        cancel.clicked.connect(self.reject)
        (self.amount if max_amount is not None else self.pin).setFocus()
        enter_presses_focused_button(self)

    @asyncSlot()
    async def _approve(self) -> None:
        pin = self.pin.text()
        self.pin.clear()  # forgotten at every attempt, taken or not: nobody else acts in the manager's name
        try:
            amount = self._amount()
            reason = check_reason(self.reason.text()) if self.ask_reason else ""
        except ValueError as error:  # an AmountError too: a sentence with an example the store's way
            problem = f"{str(error)[:1].upper()}{str(error)[1:]}"
            self.message.setText(_("{problem}. Then type the PIN again.").format(problem=problem))
            self.resize(self.width(), max(self.height(), self.heightForWidth(self.width())))  # the whole sentence
            return
        self.ok.setEnabled(False)
        try:
            manager = await self.verify(pin)
        except StaffError as error:  # not a manager's, wrong, locked out, file trouble
            self.message.setText(pin_refused(error))
            self.pin.setFocus()  # the next PIN typed goes here, wherever Enter was pressed
            return
        finally:
            self.ok.setEnabled(True)
        self.manager, self.reason_text, self.amount_cents = manager, reason, amount
        self.accept()

    def _amount(self) -> int | None:
        if self.max_amount is None:
            return None
        cents = self.money.parse(self.amount.text())
        if cents is None or not 0 < cents <= self.max_amount:
            raise ValueError(_("the amount is between {least} and {most}").format(least=self.money(1),
                                                                                 most=self.money(self.max_amount)))
        return cents

