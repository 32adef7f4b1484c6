"""F10, end of shift, the Z: a manager's PIN (forgotten at every attempt; after a wrong one
the field keeps the keyboard), then per terminal the shift checked against the payment
service (its figures: gross, voids, refunds, net, surcharge, tax, held; the differences
shown) and the drawer's expected cash with its parts; the manager counts the drawer
(``cash_count``: a total, or by notes and coins) and sees over/short as it is typed. A
difference beyond ``cash_difference_limit`` needs a manager's PIN and a reason
(``ManagerApproval``) before the close. Then the close batch (never without its own
confirmation, whatever the check found), and only once the batch closed, the Z: numbered,
its PDF saved (``station.drawer_count.close_z``). The result in a sentence, and the Z (or,
without one, the end-of-shift report) to preview, print (the configured printer, else the
preview) or save. Printed through the counter's ``ReceiptDesk``, a report is its last
document: Ctrl+P prints it again. Alt+X: the X report, the shift so far with nothing closed.

Everything slow (the PIN check, the service, the journal, the PDF) is awaited on the
station's and counter's workers; this dialog only shows what they answer.
"""

from __future__ import annotations

from pos_app.api.errors import PaymentsError
from pos_app.i18n import N_, _
from pos_app.journal import JournalError
from pos_app.receipts import PrintJob
from pos_app.staff import AuditAction, StaffError
from pos_app.station.cash_shift import CashShift
from pos_app.station.counter import Counter
from pos_app.station.drawer_count import CountCheck, close_z, saved_sentence
from pos_app.station.figures import sentence as figures_sentence
from pos_app.station.shift import CloseState, ShiftCheck, ShiftEnd
from pos_app.station.z_report import ZClose, ZState, x_report, z_pdf, z_sentence
from pos_app.ui.cash_count import CashCountPanel
from pos_app.ui.close_question import confirmed_close
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QShortcut,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.receipt_desk import Document, ReceiptDesk
from pos_app.ui.sentences import pin_refused, shift_check_summary
from pos_app.ui.x_report import XReportDialog

HEADLINES = {
    CloseState.CLOSED: (N_("Batch closed"), "approved"),
    CloseState.FAILED: (N_("Batch NOT closed"), "declined"),
    CloseState.UNKNOWN: (N_("Batch result not known"), "unknown"),
    CloseState.NOT_SENT: (N_("Close not sent"), "refused"),
}
"""The headline of each close state (``_()`` it where shown), and the colour it takes (the
payment dialog's)."""
CHECK_WITH_SERVICE = N_("Check with the service  (Enter)")
ENTER_KEY = "  (Enter)"  # not for people: the key's name as printed on the keyboard, in every language
STORE_READ_FAILED = N_("This station's payment record could not be read ({error}). Call support.")


class ShiftEndDialog(QDialog):
    def __init__(self, counter: Counter, parent: QWidget | None = None, *, receipts: ReceiptDesk) -> None:
        super().__init__(parent)
        self.counter = counter
        self.receipts = receipts
        self.station = counter.station
        self.manager: str | None = None
        self.check: ShiftCheck | None = None
        self.end: ShiftEnd | None = None
        self.shift: CashShift | None = None
        self.z_close: ZClose | None = None
        self.printed: PrintJob | None = None
        self.x_dialog: XReportDialog | None = None
        self.approval: ManagerApproval | None = None
        self._approved: tuple[int, str, str] | None = None
        """A difference accepted: for this counted amount, by whom, why."""
        self._said = ""
        self._result = ""
        """What the close did, as the sentence shows it (a print's outcome is said below it)."""
        config = self.station.config
        self.setWindowTitle(_("End of shift (Z)"))
        self.setObjectName("shiftEnd")
        heading = QLabel(_("End of shift: count the drawer, close the batch (Z)"))
        heading.setObjectName("dialogHeading")
        self.terminal = QComboBox()
        self.terminal.setAccessibleName(_("Terminal"))
        self.terminal.setEditable(True)
        if self.station.config.terminal_id:
            self.terminal.addItem(self.station.config.terminal_id)
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText(_("Manager PIN"))
        self.pin.setAccessibleName(_("Manager PIN"))
        self.check_button = QPushButton(_(CHECK_WITH_SERVICE))
        self.check_button.setDefault(True)
        self.summary = QLabel(_("Type a manager's PIN, then Enter: the shift is checked with the payment service, "
                                "and the drawer's expected cash shown to count. Alt+X: the X report (nothing "
                                "closed)."))
        self.summary.setWordWrap(True)
        self.figures = QLabel("")
        self.figures.setObjectName("shiftFigures")
        self.figures.setAccessibleName(_("Shift figures"))
        self.figures.setWordWrap(True)
        self.figures.hide()
        self.differences = QListWidget()
        self.differences.setAccessibleName(_("Differences with the service"))
        self.differences.setWordWrap(True)
        self.differences.setMaximumHeight(110)
        self.differences.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.differences.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.differences.hide()
        self.count = CashCountPanel(self.station.money, limit=config.cash_difference_limit,
                                    opening_float=config.opening_float)
        self.count.hide()
        self.close_button = QPushButton(_("Close shift (Z)…"))
        self.close_button.setEnabled(False)
        self.x_button = QPushButton(_("X report  (Alt+X)"))
        self.headline = QLabel("")
        self.headline.setObjectName("dialogHeading")
        self.sentence = QLabel("")
        self.sentence.setWordWrap(True)
        self.sentence.setAccessibleName(_("Close batch result"))
        self.show_button = QPushButton(_("Show report"))
        self.print_button = QPushButton(_("Print report"))
        self.batch_button = QPushButton(_("Batch report"))
        self.batch_button.setToolTip(_("The end-of-shift report of the card batch: every card payment"))
        done = QPushButton(_("Done  (Esc)"))
        for widget, description in (
                (self.terminal, _("The terminal whose card batch this shift closes")),
                (self.pin, _("A manager's PIN: the shift is then checked with the service")),
                (self.check_button, _("Checks the shift with the payment service and shows the cash expected "
                                      "in the drawer")),
                (self.close_button, _("Closes the card batch and writes the Z report, once the drawer is "
                                      "counted")),
                (self.x_button, _("Shows the X report: the shift's figures so far, nothing closed")),
                (self.show_button, _("Shows the end-of-shift report")),
                (self.print_button, _("Prints the end-of-shift report")),
                (self.batch_button, self.batch_button.toolTip()),
                (done, _("Closes this screen"))):
            widget.setAccessibleDescription(description)
        top = QHBoxLayout()
        terminal_label = QLabel(_("Terminal"))
        terminal_label.setBuddy(self.terminal)
        top.addWidget(terminal_label)
        top.addWidget(self.terminal, 1)
        top.addWidget(self.pin, 1)
        top.addWidget(self.check_button)
        self.buttons = QGridLayout()
        self._row = (self.close_button, self.x_button, self.show_button, self.print_button, self.batch_button, done)
        self._places = [(button, 0, column) for column, button in enumerate(self._row)]
        for button, row, column in self._places:
            self.buttons.addWidget(button, row, column)
        layout = self.column = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.figures)
        layout.addWidget(self.differences)
        layout.addWidget(self.count)
        layout.addWidget(self.headline)
        layout.addWidget(self.sentence)
        layout.addStretch(1)
        layout.addLayout(self.buttons)
        self._report_shown(False)
        self.resize(1000, 700)
        self._arrange_buttons()
        self.check_button.clicked.connect(self._check)  # Enter too: the default button until checked
        self.terminal.currentTextChanged.connect(self._terminal_changed)
        self.close_button.clicked.connect(self._close_shift)
        self.x_button.clicked.connect(self._x_report)
        QShortcut(QKeySequence("Alt+X"), self, activated=self.x_button.click)
        self.show_button.clicked.connect(self._show_report)
        self.print_button.clicked.connect(self._print_report)
        self.batch_button.clicked.connect(self._show_batch_report)
        done.clicked.connect(self.accept)
        self.pin.setFocus()
        enter_presses_focused_button(self)
        self._load_terminals()

    def money(self, cents: int) -> str:
        return self.station.money(cents)

    @asyncSlot()
    async def _load_terminals(self) -> None:
        """The merchant's active terminals, for a store whose lanes close one another's."""
        try:
            listing = await self.station.client.list_terminals()
        except PaymentsError:
            return  # the station's own terminal is listed; another can be typed
        for terminal in listing.data:
            if terminal.is_active is not False and self.terminal.findText(terminal.id) < 0:
                self.terminal.addItem(terminal.id)

    def _terminal_changed(self) -> None:
        """Another terminal: its shift must be checked before it can be closed."""
        self.check = None
        self.close_button.setEnabled(False)
        self._enter_presses(self.check_button)
        self.differences.hide()
        self.figures.hide()
        self.count.hide()
        if self.manager:
            self.summary.setText(_("Check the shift of this terminal with the service first."))

    @asyncSlot()
    async def _check(self) -> None:
        terminal = self.terminal.currentText().strip()
        if not terminal:
            self.summary.setText(_("Pick the terminal whose batch to close."))
            return
        # the audit trail's detail: kept as written, in the app's own words
        if not await self._manager_checked(f"end of shift (F10) on terminal {terminal}"):  # not for people
            return
        self._busy(_("Checking the shift of {terminal} with the payment service…").format(terminal=terminal))
        try:
            check = await self.station.shift_check(terminal)
            shift = await self.station.cash_shift()
        except JournalError as error:
            self.check = None  # an earlier check does not stand for this one
            self.summary.setText(_(STORE_READ_FAILED).format(error=error))
            return
        finally:
            self._idle()
        self.check, self.shift = check, shift  # both read, or neither: the close needs the two
        self._show_check(check)
        self._show_shift(shift)

    async def _manager_checked(self, what: str) -> bool:
        """The manager's PIN, checked once per dialog (recorded in the audit trail as ``what``)."""
        if self.manager is not None:
            return True
        pin = self.pin.text()
        self.pin.clear()  # forgotten at every attempt, taken or not
        for button in (self.check_button, self.x_button):  # one PIN check at a time: a double Enter is not two
            button.setEnabled(False)
        try:
            member = await self.counter.check_manager(pin, action=AuditAction.OVERRIDE, detail=what)
        except StaffError as error:  # not a manager's, wrong, locked out, file trouble
            self.summary.setText(pin_refused(error))
            self.pin.setFocus()
            return False
        finally:
            for button in (self.check_button, self.x_button):
                button.setEnabled(True)
        self.manager = member.name
        self.pin.setEnabled(False)
        self.pin.setPlaceholderText(_("Manager: {name}").format(name=member.name))
        return True

    def _show_shift(self, shift: CashShift) -> None:
        """The drawer's shift to count against: the count's field has the keyboard, Enter closes."""
        self.count.show_shift(shift)
        self.count.set_editable(True)
        self.count.show()
        self.count.focus()  # Enter asks first (ConfirmClose): a second Enter on the PIN closes nothing
        self._enter_presses(self.close_button)

    def _enter_presses(self, button: QPushButton) -> None:
        """Enter in a field presses ``button`` (the check, then once checked the close)."""
        self.check_button.setDefault(button is self.check_button)
        self.close_button.setDefault(button is self.close_button)
        self.check_button.setText(_(CHECK_WITH_SERVICE) if button is self.check_button else _("Check again"))
        self.close_button.setText(self.close_button.text().replace(ENTER_KEY, "") +
                                  (ENTER_KEY if button is self.close_button else ""))
        self._arrange_buttons()

    def _arrange_buttons(self) -> None:
        """The shown buttons on one row, or on two when their labels (a language with longer
        words) would make the window wider than it is (1000 pixels: a 1024×768 screen)."""
        shown_buttons = [button for button in self._row if not button.isHidden()]
        margins = self.column.contentsMargins()
        room = self.width() - margins.left() - margins.right()
        spacing = max(self.buttons.horizontalSpacing(), 0)
        needed = sum(button.sizeHint().width() + spacing for button in shown_buttons) - spacing
        per_row = max(len(shown_buttons) if needed <= room else (len(shown_buttons) + 1) // 2, 1)
        places = [(button, index // per_row, index % per_row) for index, button in enumerate(shown_buttons)]
        if places == self._places:
            return  # a widget taken out of a layout and put back loses the keyboard's focus
        self._places = places
        for button in self._row:
            self.buttons.removeWidget(button)
        for button, row, column in places:
            self.buttons.addWidget(button, row, column)

    def _show_check(self, check: ShiftCheck) -> None:
        # TRANSLATORS: where the differences are listed, in "3 differences with the service (below)"
        self.summary.setText(shift_check_summary(check, _("below")))
        self.figures.setText(figures_sentence(check.figures, self.money))
        self.figures.show()
        self.end = None
        self._report_shown(False)
        self.differences.clear()
        for difference in check.differences:
            self.differences.addItem(difference.sentence(self.money))
        self.differences.setVisible(bool(check.differences))
        self.close_button.setText(_("Close anyway (Z)…") if not check.clean else _("Close shift (Z)…"))
        self.close_button.setEnabled(True)
        self.close_button.show()
        self._arrange_buttons()

    @asyncSlot()
    async def _close_shift(self) -> None:
        """The count checked (a difference beyond the limit accepted by a manager), the close
        confirmed, then the batch closed and, once it closed, the Z written."""
        if self.check is None or self.manager is None or self.shift is None or not self.close_button.isEnabled():
            return
        counted_left = self._count_to_close()
        if counted_left is None:
            return
        counted, left, found = counted_left
        accepted = await self._difference_accepted(found) if found.beyond_limit else None
        if found.beyond_limit and accepted is None:
            self.count.refuse(_("{problem} Nothing was closed.").format(problem=found.sentence(self.money)))
            return
        terminal = self.check.terminal_id
        if not await confirmed_close(self.check, self, self._count_said(found, left)):
            self.close_button.setFocus()
            return
        self._busy(_("Closing the batch of {terminal}, then the Z…").format(terminal=terminal))
        try:
            done, audit_error = await close_z(
                self.counter, terminal_id=terminal, counted=counted, left_in_drawer=left, by=self.manager,
                reason=accepted[1] if accepted else None, approved_by=accepted[0] if accepted else None)
        except ValueError as error:  # the count refused after all (a sentence): nothing was closed
            self.count.refuse(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        except JournalError as error:
            self.summary.setText(_(STORE_READ_FAILED).format(error=error))
            return
        finally:
            self._idle()
        self._show_close(done, audit_error)

    def _count_to_close(self) -> tuple[int, int, CountCheck] | None:
        """The cash counted, the cash left and their check; None (the panel says why)."""
        found = self.count.check()
        if found is None:
            self.count.refuse(self.count.problem.text() or _("Count the drawer first."))
            return None
        if found.counted is None:
            self.count.refuse(_("Type the cash counted (or count it by notes and coins: Alt+N), then close."))
            return None
        left = self.count.left_cents()
        if left > found.counted:
            self.count.refuse(_("{left} cannot be left in the drawer: only {counted} was counted.").format(
                left=self.money(left), counted=self.money(found.counted)), self.count.left)
            return None
        return found.counted, left, found

    async def _difference_accepted(self, found: CountCheck) -> tuple[str, str] | None:
        """A manager's PIN and the reason for a count beyond the limit (asked again for
        another count): who accepted it and why, or None."""
        assert found.counted is not None and found.over_short is not None
        if self._approved is not None and self._approved[0] == found.counted:
            return self._approved[1:]
        z_label = f"Z-{self.shift.z_next:04d}" if self.shift is not None else None
        # the audit trail's detail: kept as written, in the app's own words
        detail = (f"accepted a count {found.state} {self.money(abs(found.over_short))} (expected "  # not for people
                  f"{self.money(found.expected)}, counted {self.money(found.counted)}) "  # not for people
                  f"for {z_label or 'the Z'}")  # not for people
        approval = ManagerApproval(
            _("Accept the difference"),
            _("Counted {counted} against {expected} expected: {difference}, more than the {limit} allowed.\n\n"
              "A manager accepts the difference with a PIN and the reason (written on {z} and in the audit trail), "
              "or Cancel (Esc) and count again.").format(
                counted=self.money(found.counted), expected=self.money(found.expected),
                difference=found.difference(self.money), limit=self.money(found.limit), z=z_label or _("the Z")),
            lambda pin: self.counter.check_manager(pin, action=AuditAction.OVERRIDE, detail=detail,
                                                   reason=approval.reason.text().strip()),
            money=self.station.money, parent=self)
        self.approval = approval
        await shown(approval)
        self.activateWindow()
        if approval.manager is None:
            return None
        self._approved = (found.counted, approval.manager.name, approval.reason_text)
        return self._approved[1:]

    def _count_said(self, found: CountCheck, left: int) -> str:
        z_label = f"Z-{self.shift.z_next:04d}" if self.shift is not None else _("The Z")
        return _("Once the batch closed, {z} is written: counted {counted} against {expected} expected "
                 "({difference}); {left} stays in the drawer.").format(
            z=z_label, counted=self.money(found.counted or 0), expected=self.money(found.expected),
            difference=found.difference(self.money), left=self.money(left))

    def _show_close(self, done: ZClose, audit_error: str | None) -> None:
        self.z_close, self.end = done, done.end
        if self.check is not None:  # what the check found stays in view
            # TRANSLATORS: where the differences are listed, in "3 differences with the service (in the batch report)"
            self.summary.setText(shift_check_summary(self.check, _("in the batch report")))
        close = done.end.report.close
        if done.z is not None:
            title, colour = _("{z} closed").format(z=done.z.label), "approved"
        elif done.state is ZState.CLOSED_MEANWHILE:
            title, colour = _("Batch closed, this count not kept"), "unknown"
        else:
            headline, colour = HEADLINES[close.state]
            title = _(headline)
        self.headline.setText(title)
        self.headline.setProperty("outcome", colour)
        self.headline.style().unpolish(self.headline)
        self.headline.style().polish(self.headline)
        said = [z_sentence(done, self.money)]
        if done.z is not None:
            said.append(close.sentence)
        said.append(saved_sentence(done))
        if audit_error:
            said.append(f"{audit_error[:1].upper()}{audit_error[1:]}.")
        self._result = "\n".join(said)
        self.sentence.setText(self._result)
        self.check = None  # a second close needs a fresh check
        self._approved = None
        self.close_button.setEnabled(False)
        self.close_button.setVisible(done.z is None)  # closed: the reports' buttons need the room
        self.differences.hide()  # the end-of-shift report lists them; the summary still counts them
        self._enter_presses(self.check_button)
        self.count.by_pieces.setChecked(False)  # the total counted stays; the result needs the room
        self.count.set_editable(done.z is None)
        self.count.quiet()
        self._report_shown(True)
        self.batch_button.setVisible(done.z is not None)
        self.show_button.setText(_("Show Z report") if done.z is not None else _("Show report"))
        self.print_button.setText(_("Print Z report") if done.z is not None else _("Print report"))
        self._arrange_buttons()
        self.show_button.setFocus()

    async def _report(self) -> tuple[bytes, str, str] | None:
        """The report of the close: the Z's when one was written, else the end-of-shift report."""
        if self.z_close is not None and self.z_close.z is not None:
            return await z_pdf(self.z_close.z), _("Z report"), f"{self.z_close.z.label}.pdf"
        if self.end is not None:
            name = self.end.path.name if self.end.path is not None else "end-of-shift-report.pdf"
            return self.end.pdf, _("End-of-shift report"), name
        return None

    @asyncSlot()
    async def _show_report(self) -> None:
        found = await self._report()
        if found is not None:
            pdf, title, name = found
            await self.receipts.preview(pdf, title=title, file_name=name)

    @asyncSlot()
    async def _show_batch_report(self) -> None:
        if self.end is not None:
            name = self.end.path.name if self.end.path is not None else "end-of-shift-report.pdf"
            await self.receipts.preview(self.end.pdf, title=_("End-of-shift report"), file_name=name)

    @asyncSlot()
    async def _print_report(self) -> None:
        """The Z (or the end-of-shift report) on the station's printer, else previewed, through
        the counter's ``ReceiptDesk``: Ctrl+P prints it again."""
        found = await self._report()
        if found is None:
            return
        pdf, title, name = found
        said = await self.receipts.output(Document(pdf, title[:1].lower() + title[1:], "", name))
        self.printed = self.receipts.printed or self.printed
        self.sentence.setText(f"{self._result}\n{said}")

    @asyncSlot()
    async def _x_report(self) -> None:
        """Alt+X: the X report of the shift so far (a manager's PIN first); nothing closed."""
        terminal = self.terminal.currentText().strip() or None
        # the audit trail's detail: kept as written, in the app's own words
        if not await self._manager_checked(f"X report (F10) on terminal {terminal or '-'}"):  # not for people
            return
        self._busy(_("Reading the shift so far (X report)…"))
        try:
            x = await x_report(self.station, terminal)
        except JournalError as error:
            self._said = _(STORE_READ_FAILED).format(error=error)
            return
        finally:
            self._idle()
            self.summary.setText(self._said)
        self.x_dialog = XReportDialog(self.station, x, self, receipts=self.receipts)
        await shown(self.x_dialog)
        self.activateWindow()
        if self.count.isVisible() and self.close_button.isEnabled():
            self.count.focus()

    def _report_shown(self, ready: bool) -> None:
        self.show_button.setEnabled(ready)
        self.print_button.setEnabled(ready)
        self.batch_button.setVisible(False)
        self.headline.setVisible(ready)
        self.sentence.setVisible(ready)

    def _busy(self, text: str) -> None:
        self._said = self.summary.text()
        self.summary.setText(text)
        for widget in (self.check_button, self.close_button, self.x_button, self.terminal):
            widget.setEnabled(False)

    def _idle(self) -> None:
        for widget in (self.check_button, self.x_button, self.terminal):
            widget.setEnabled(True)
        self.close_button.setEnabled(self.check is not None)
