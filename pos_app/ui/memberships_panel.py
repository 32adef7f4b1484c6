"""The memberships part of F6, the customer dialog: the subscriptions of the customer
highlighted in the search results (else of the one attached to the sale), each with its
plan, amount, next payment and status; Alt+E enrolls the customer in one of the store's
plans (↑ ↓ and Enter in the plan list, Esc backs out); Alt+P, Alt+R and Alt+C pause,
resume or cancel the membership selected (Tab reaches the list, ↑ ↓ select), each after a
manager's PIN and reason. What is sent, refused and audited is
``pos_app.station.memberships``'; this widget only shows it and takes the keys. Reading
and sending run on the event loop, never the screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.api.errors import PaymentsError
from pos_app.i18n import N_, _
from pos_app.staff import StaffError
from pos_app.station.memberships import (
    Membership,
    MembershipChange,
    change_membership,
    enroll,
    memberships_of,
    plan_words,
)
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QShortcut,
    QTimer,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

if TYPE_CHECKING:
    from pos_app.cart import OrderCustomer
    from pos_app.membership_plans import MembershipPlan
    from pos_app.station.counter import Counter

READ_DELAY_MS = 250
"""The pause after the highlight moves before that customer's memberships are read."""
CHANGE_KEYS = {MembershipChange.PAUSE: "Alt+P", MembershipChange.RESUME: "Alt+R", MembershipChange.CANCEL: "Alt+C"}
CHANGE_BUTTONS = {MembershipChange.PAUSE: N_("Pause  (Alt+P)"), MembershipChange.RESUME: N_("Resume  (Alt+R)"),
                  MembershipChange.CANCEL: N_("Cancel membership  (Alt+C)")}
CHANGE_DESCRIPTIONS = {MembershipChange.PAUSE: N_("Pauses the selected membership (a manager's PIN)"),
                       MembershipChange.RESUME: N_("Resumes the selected membership (a manager's PIN)"),
                       MembershipChange.CANCEL: N_("Cancels the selected membership (a manager's PIN)")}
CHANGE_TITLES = {MembershipChange.PAUSE: N_("Pause the membership"),
                 MembershipChange.RESUME: N_("Resume the membership"),
                 MembershipChange.CANCEL: N_("Cancel the membership")}
CHANGE_SUMMARIES = {
    MembershipChange.PAUSE: N_("Pause the membership {plan} of {customer} ({line}): no payment is taken until it is "
                               "resumed. A manager approves it; it is recorded in the audit trail."),
    MembershipChange.RESUME: N_("Resume the membership {plan} of {customer} ({line}): payments start again from "
                                "tomorrow; those of the pause are skipped. A manager approves it; it is recorded in "
                                "the audit trail."),
    MembershipChange.CANCEL: N_("Cancel the membership {plan} of {customer} ({line}): no further payment is taken; "
                                "this cannot be undone. A manager approves it; it is recorded in the audit trail."),
}
CHANGE_FIRST = {MembershipChange.PAUSE: N_("Select a membership first (Tab, then ↑ ↓), then Alt+P."),
                MembershipChange.RESUME: N_("Select a membership first (Tab, then ↑ ↓), then Alt+R."),
                MembershipChange.CANCEL: N_("Select a membership first (Tab, then ↑ ↓), then Alt+C.")}
CHANGE_DONE = {MembershipChange.PAUSE: N_("{plan} paused by {manager}."),
               MembershipChange.RESUME: N_("{plan} resumed by {manager}."),
               MembershipChange.CANCEL: N_("{plan} cancelled by {manager}.")}
CHANGE_NOT_AUDITED = {
    MembershipChange.PAUSE: N_("{plan} was paused, but the audit trail could not record it: {error}"),
    MembershipChange.RESUME: N_("{plan} was resumed, but the audit trail could not record it: {error}"),
    MembershipChange.CANCEL: N_("{plan} was cancelled, but the audit trail could not record it: {error}"),
}
CHANGE_UNANSWERED = {
    MembershipChange.PAUSE: N_("The service did not answer ({error}): read again below whether it was paused."),
    MembershipChange.RESUME: N_("The service did not answer ({error}): read again below whether it was resumed."),
    MembershipChange.CANCEL: N_("The service did not answer ({error}): read again below whether it was cancelled."),
}
"""Whole sentences for each change (the words around a change differ in each language)."""


def _sentence(error: Exception) -> str:
    text = str(error)
    return f"{text[:1].upper()}{text[1:]}."


class MembershipsPanel(QWidget):
    """A customer's memberships and the keys that change them."""

    def __init__(self, counter: Counter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self.customer: OrderCustomer | None = None
        self.memberships: list[Membership] = []
        self.title = QLabel(_("Memberships"))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.list = QListWidget()
        self.list.setAccessibleName(_("Memberships"))
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAccessibleName(_("Memberships result"))
        self.enroll_button = QPushButton(_("Enroll  (Alt+E)"))
        self.change_buttons = {change: QPushButton(_(CHANGE_BUTTONS[change])) for change in CHANGE_KEYS}
        self.enroll_button.setAccessibleDescription(_("Enrolls the customer in one of the store's memberships"))
        for change, button in self.change_buttons.items():
            button.setAccessibleDescription(_(CHANGE_DESCRIPTIONS[change]))
        buttons = QHBoxLayout()
        buttons.addWidget(self.enroll_button)
        for button in self.change_buttons.values():
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        layout.addWidget(line)
        layout.addWidget(self.title)
        layout.addWidget(self.list, 1)
        self.list.setMinimumHeight(self.fontMetrics().lineSpacing() * 4 + 12)  # two memberships
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(READ_DELAY_MS)
        self._timer.timeout.connect(self._read)
        self.list.currentRowChanged.connect(lambda row: self._show_buttons())
        self.enroll_button.clicked.connect(self._enroll)
        QShortcut(QKeySequence("Alt+E"), self, self._enroll)
        for change, button in self.change_buttons.items():
            button.clicked.connect(lambda checked=False, chosen=change: self._change(chosen))
            QShortcut(QKeySequence(CHANGE_KEYS[change]), self, lambda chosen=change: self._change(chosen))
        self._show_buttons()

    def show_customer(self, customer: OrderCustomer | None) -> None:
        """The memberships of ``customer`` (None: nobody), read a moment after the last call."""
        if customer == self.customer:
            return
        self.customer = customer
        self.memberships = []
        self.list.clear()
        self.title.setText(_("Memberships of {customer}").format(customer=customer.name) if customer
                           else _("Memberships"))
        self.message.setText(_("Reading…") if customer else _("Find a customer to see their memberships."))
        self._show_buttons()
        if customer is not None:
            self._timer.start()

    def _show_buttons(self) -> None:
        self.enroll_button.setEnabled(self.customer is not None)
        selected = self.selected()
        for change, button in self.change_buttons.items():
            button.setEnabled(selected is not None and selected.status in change.allowed_from)

    def selected(self) -> Membership | None:
        row = self.list.currentRow()
        return self.memberships[row] if 0 <= row < len(self.memberships) else None

    @asyncSlot()
    async def _read(self) -> None:
        await self.reload()

    async def reload(self, said: str = "") -> None:
        """Read the customer's memberships again; ``said`` is the sentence to keep showing."""
        customer = self.customer
        if customer is None:
            return
        try:
            found = await memberships_of(self.counter.station.client, customer.id, self.counter.config.memberships)
        except PaymentsError as error:
            if customer == self.customer:
                trouble = _("The memberships could not be read: {error}").format(error=error)
                self.message.setText(f"{said} {trouble}".strip())
            return
        if customer != self.customer:  # the highlight moved on meanwhile: that read follows
            return
        self.memberships = found
        self.list.clear()
        for membership in found:
            money = self.counter.money
            QListWidgetItem(f"{membership.heading(money)}\n    {membership.standing(money)}", self.list)
        if found:
            self.list.setCurrentRow(0)
        none = _("{customer} has no membership: Alt+E enrolls them.").format(customer=customer.name)
        self.message.setText(said or (none if not found else _("Tab, then ↑ ↓ select one; Alt+P pause, Alt+R "
                                                                "resume, Alt+C cancel (a manager).")))
        self._show_buttons()

    # enrolling --------------------------------------------------------------------------

    @asyncSlot()
    async def _enroll(self) -> None:
        customer, plans = self.customer, self.counter.config.memberships
        if customer is None:
            self.message.setText(_("Find a customer first, then Alt+E enrolls them."))
            return
        if not plans:
            self.message.setText(_("This store has no membership plans: a manager adds them to store.toml "
                                   "([[memberships]])."))
            return
        choice = PlanChoice(customer, plans, self.counter, self.window())
        if await shown(choice) != QDialog.DialogCode.Accepted or choice.plan is None:
            return
        self.message.setText(_("Enrolling {customer} in {plan}…").format(customer=customer.name,
                                                                        plan=choice.plan.name))
        try:
            made = await enroll(self.counter.station.client, customer, choice.plan, plans)
        except ValueError as error:
            self.message.setText(_sentence(error))
            return
        except PaymentsError as error:
            self.message.setText(_("The service did not answer ({error}): the membership may or may not have "
                                   "been made; the list below is read again.").format(error=error))
            await self.reload(self.message.text())
            return
        when = made.next_payment_words(self.counter.money)
        if when:
            said = _("{customer} is enrolled in {plan}: {when}.").format(customer=customer.name, plan=made.name,
                                                                         when=when)
        else:
            said = _("{customer} is enrolled in {plan}.").format(customer=customer.name, plan=made.name)
        await self.reload(said)

    # pause, resume, cancel --------------------------------------------------------------

    @asyncSlot()
    async def _change(self, change: MembershipChange) -> None:
        customer, membership = self.customer, self.selected()
        if customer is None or membership is None:
            self.message.setText(_(CHANGE_FIRST[change]))
            return
        summary = _(CHANGE_SUMMARIES[change]).format(plan=membership.name, customer=customer.name,
                                                     line=membership.line(self.counter.money))
        approval = ManagerApproval(_(CHANGE_TITLES[change]), summary,
                                   lambda pin: self.counter.disk(self.counter.staff.check_manager, pin),
                                   money=self.counter.money, parent=self.window())
        if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
            return
        try:
            moved = await change_membership(self.counter, customer, membership, change, approval.manager,
                                            approval.reason_text)
        except ValueError as error:
            self.message.setText(_sentence(error))
            return
        except StaffError as error:
            await self.reload(_(CHANGE_NOT_AUDITED[change]).format(plan=membership.name, error=error))
            return
        except PaymentsError as error:
            await self.reload(_(CHANGE_UNANSWERED[change]).format(error=error))
            return
        await self.reload(_(CHANGE_DONE[change]).format(plan=moved.name, manager=approval.manager.name))


class PlanChoice(QDialog):
    """The store's plans (↑ ↓, Enter enrolls, Esc backs out); ``plan`` once chosen."""

    def __init__(self, customer: OrderCustomer, plans: tuple[MembershipPlan, ...], counter: Counter,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plans = plans
        self.plan: MembershipPlan | None = None
        self.setWindowTitle(_("Enroll"))
        intro = QLabel(_("Enroll {customer} in a plan: ↑ ↓ pick, Enter enrolls. Each payment is charged to their "
                         "card on file; the schedule starts tomorrow.").format(customer=customer.name))
        intro.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName(_("Membership plans"))
        for plan in plans:
            QListWidgetItem(plan_words(plan, counter.money), self.list)
        self.list.setCurrentRow(0)
        enroll_button = QPushButton(_("Enroll  (Enter)"))
        enroll_button.setDefault(True)
        back = QPushButton(_("Back  (Esc)"))
        enroll_button.setAccessibleDescription(_("Enrolls the customer in the plan picked, charged to their card on "
                                                 "file"))
        back.setAccessibleDescription(_("Back to the customer; nobody is enrolled"))
        buttons = QHBoxLayout()
        buttons.addWidget(enroll_button)
        buttons.addWidget(back)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self.list.setMaximumHeight(self.list.sizeHintForRow(0) * min(max(len(plans), 3), 10) + 8)
        self.resize(560, self.sizeHint().height())
        enroll_button.clicked.connect(self._choose)
        back.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.list.setFocus()

    def _choose(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.plans):
            self.plan = self.plans[row]
            self.accept()
