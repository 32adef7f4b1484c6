"""F10, end of shift: a manager's PIN (forgotten at every attempt; after a wrong one the
field keeps the keyboard), then per terminal the shift checked against the payment service
(its figures: gross, voids, refunds, net, surcharge, tax, held; the differences shown), the
close batch (never without its own confirmation, whatever the check found), its result in
a sentence, and the end-of-shift report: preview, print (the configured printer, else the
print dialog), save. Printed through the counter's ``ReceiptDesk``, the report is its last
document: Ctrl+P prints it again.

Everything slow (the PIN check, the service, the journal, the PDF) is awaited on the
station's and counter's workers; this dialog only shows what they answer.
"""

from __future__ import annotations

from pos_app.api.errors import PaymentsError
from pos_app.journal import JournalError
from pos_app.receipts import PrintJob
from pos_app.staff import AuditAction, StaffError
from pos_app.station.counter import Counter
from pos_app.station.figures import sentence as figures_sentence
from pos_app.station.shift import CloseState, ShiftCheck, ShiftEnd
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.qt import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)
from pos_app.ui.receipt_desk import Document, ReceiptDesk
from pos_app.ui.receipt_view import ReceiptPreview
from pos_app.ui.sentences import pin_refused

HEADLINES = {
    CloseState.CLOSED: ("Batch closed", "approved"),
    CloseState.FAILED: ("Batch NOT closed", "declined"),
    CloseState.UNKNOWN: ("Batch result not known", "unknown"),
    CloseState.NOT_SENT: ("Close not sent", "refused"),
}
"""The headline of each close state, and the colour it takes (the payment dialog's)."""


class ShiftEndDialog(QDialog):
    def __init__(self, counter: Counter, parent: QWidget | None = None, *, receipts: ReceiptDesk) -> None:
        super().__init__(parent)
        self.counter = counter
        self.receipts = receipts
        self.station = counter.station
        self.manager: str | None = None
        self.check: ShiftCheck | None = None
        self.end: ShiftEnd | None = None
        self.printed: PrintJob | None = None
        self._said = ""
        self.setWindowTitle("End of shift")
        self.setObjectName("shiftEnd")
        heading = QLabel("End of shift: close the batch")
        heading.setObjectName("dialogHeading")
        self.terminal = QComboBox()
        self.terminal.setAccessibleName("Terminal")
        self.terminal.setEditable(True)
        if self.station.config.terminal_id:
            self.terminal.addItem(self.station.config.terminal_id)
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText("Manager PIN")
        self.pin.setAccessibleName("Manager PIN")
        self.check_button = QPushButton("Check with the service  (Enter)")
        self.check_button.setDefault(True)
        self.summary = QLabel("Type a manager's PIN, then check the shift of the terminal with the payment service.")
        self.summary.setWordWrap(True)
        self.figures = QLabel("")
        self.figures.setObjectName("shiftFigures")
        self.figures.setAccessibleName("Shift figures")
        self.figures.setWordWrap(True)
        self.figures.hide()
        self.differences = QListWidget()
        self.differences.setAccessibleName("Differences with the service")
        self.differences.setWordWrap(True)
        self.differences.setMaximumHeight(220)
        self.differences.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.differences.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.differences.hide()
        self.close_button = QPushButton("Close batch")
        self.close_button.setEnabled(False)
        self.headline = QLabel("")
        self.headline.setObjectName("dialogHeading")
        self.sentence = QLabel("")
        self.sentence.setWordWrap(True)
        self.sentence.setAccessibleName("Close batch result")
        self.show_button = QPushButton("Show report")
        self.print_button = QPushButton("Print report")
        done = QPushButton("Done  (Esc)")
        top = QHBoxLayout()
        top.addWidget(QLabel("Terminal"))
        top.addWidget(self.terminal, 1)
        top.addWidget(self.pin, 1)
        top.addWidget(self.check_button)
        buttons = QHBoxLayout()
        for button in (self.close_button, self.show_button, self.print_button, done):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.figures)
        layout.addWidget(self.differences)
        layout.addWidget(self.headline)
        layout.addWidget(self.sentence)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self._report_shown(False)
        self.resize(980, 640)
        self.check_button.clicked.connect(self._check)  # Enter too: it is the default button
        self.terminal.currentTextChanged.connect(self._terminal_changed)
        self.close_button.clicked.connect(self._close_batch)
        self.show_button.clicked.connect(self._show_report)
        self.print_button.clicked.connect(self._print_report)
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
        self.differences.hide()
        self.figures.hide()
        if self.manager:
            self.summary.setText("Check the shift of this terminal with the service first.")

    @asyncSlot()
    async def _check(self) -> None:
        terminal = self.terminal.currentText().strip()
        if not terminal:
            self.summary.setText("Pick the terminal whose batch to close.")
            return
        if self.manager is None:
            pin = self.pin.text()
            self.pin.clear()  # forgotten at every attempt, taken or not
            self.check_button.setEnabled(False)  # one PIN check at a time: a double Enter is not two wrong PINs
            try:
                member = await self.counter.check_manager(pin, action=AuditAction.CLOSE_BATCH,
                                                          detail=f"end of shift on terminal {terminal}")
            except StaffError as error:  # not a manager's, wrong, locked out, file trouble
                self.summary.setText(pin_refused(error))
                self.pin.setFocus()
                return
            finally:
                self.check_button.setEnabled(True)
            self.manager = member.name
            self.pin.setEnabled(False)
            self.pin.setPlaceholderText(f"Manager: {member.name}")
        self._busy(f"Checking the shift of {terminal} with the payment service…")
        try:
            self.check = await self.station.shift_check(terminal)
        except JournalError as error:
            self.summary.setText(f"This station's payment record could not be read ({error}). Call support.")
            return
        finally:
            self._idle()
        self._show_check(self.check)

    def _show_check(self, check: ShiftCheck) -> None:
        since = "the last closed batch" if check.since_close else "the start of the day"
        local = check.start.astimezone()
        said = [f"Shift of {check.terminal_id} since {since} ({local:%Y-%m-%d %H:%M}): "
                f"{_count(len(check.lines), 'card attempt')} in this station's journal."]
        if check.list_error:
            said.append(f"Not reconciled: {check.list_error}. You can still close the batch.")
        elif check.differences:
            said.append(f"{_count(len(check.differences), 'difference')} with the service (below). Look at each one; "
                        "\"Close batch anyway\" closes the batch as the service has it.")
        else:
            said.append("The service's list agrees with the journal: no differences.")
        if not check.list_complete and not check.list_error:
            said.append("The service's list could not be read to the end: differences may be missing.")
        if check.open_attempts:
            said.append(f"{_count(len(check.open_attempts), 'attempt')} on this terminal without a known result: "
                        "the batch cannot be closed until each is checked again or decided by a manager.")
        self.summary.setText(" ".join(said))
        self.figures.setText(figures_sentence(check.figures, self.money))
        self.figures.show()
        self.end = None
        self._report_shown(False)
        self.differences.clear()
        for difference in check.differences:
            self.differences.addItem(difference.sentence(self.money))
        self.differences.setVisible(bool(check.differences))
        self.close_button.setText("Close batch anyway…" if not check.clean else "Close batch…")
        self.close_button.setEnabled(True)
        self.close_button.setFocus()  # Enter asks first (ConfirmClose): a second Enter on the PIN closes nothing

    @asyncSlot()
    async def _close_batch(self) -> None:
        if self.check is None or self.manager is None:
            return
        terminal = self.check.terminal_id
        if not await confirmed_close(self.check, self):
            self.close_button.setFocus()
            return
        self._busy(f"Closing the batch of {terminal}…")
        try:
            self.end = end = await self.station.shift_end(terminal, by=self.manager)
        except JournalError as error:
            self.summary.setText(f"This station's payment record could not be read ({error}). Call support.")
            return
        finally:
            self._idle()
        self.summary.setText(self._said)  # what the check found stays in view
        close = end.report.close
        title, colour = HEADLINES[close.state]
        self.headline.setText(title)
        self.headline.setProperty("outcome", colour)
        self.headline.style().unpolish(self.headline)
        self.headline.style().polish(self.headline)
        saved = f"Report saved as {end.path}." if end.path else f"The report was not saved: {end.save_error}."
        again = "" if close.state is CloseState.CLOSED else "\nTo try again: Check with the service, then close."
        self.sentence.setText(f"{close.sentence}\n{saved}{again}")
        self.check = None  # a second close needs a fresh check
        self.close_button.setEnabled(False)
        self._report_shown(True)
        self.show_button.setFocus()

    @asyncSlot()
    async def _show_report(self) -> None:
        if self.end is not None:
            preview = ReceiptPreview(self.end.pdf, self, title="End-of-shift report", file_name=self._file_name())
            preview.resize(760, 900)
            await shown(preview)

    @asyncSlot()
    async def _print_report(self) -> None:
        """The report on the station's printer, else previewed (its Print… is the system print
        dialog), through the counter's ``ReceiptDesk``: Ctrl+P prints it again."""
        if self.end is None:
            return
        said = await self.receipts.output(Document(self.end.pdf, "end-of-shift report",
                                                   f"of {self.end.report.check.terminal_id}", self._file_name()))
        self.printed = self.receipts.printed
        self.sentence.setText(f"{self.end.report.close.sentence}\n{said}")

    def _file_name(self) -> str:
        return self.end.path.name if self.end is not None and self.end.path is not None else "end-of-shift-report.pdf"

    def _report_shown(self, ready: bool) -> None:
        self.show_button.setEnabled(ready)
        self.print_button.setEnabled(ready)
        self.headline.setVisible(ready)
        self.sentence.setVisible(ready)

    def _busy(self, text: str) -> None:
        self._said = self.summary.text()
        self.summary.setText(text)
        for widget in (self.check_button, self.close_button, self.terminal):
            widget.setEnabled(False)

    def _idle(self) -> None:
        self.check_button.setEnabled(True)
        self.terminal.setEnabled(True)


async def confirmed_close(check: ShiftCheck, parent: QWidget) -> bool:
    """Ask before the batch of ``check``'s terminal is closed (Enter closes, Esc goes back):
    the check with the service never closes a batch by itself."""
    said = [f"Close the batch of {check.terminal_id} now? The service settles its approved card payments: "
            "they can then be refunded, no longer voided. This cannot be undone."]
    if check.differences:
        said.append(f"{_count(len(check.differences), 'difference')} with the service: the batch is closed as "
                    "the service has it.")
    if check.open_attempts:
        said.append(f"{_count(len(check.open_attempts), 'attempt')} without a known result: the close is not "
                    "sent until each is settled.")
    box = QMessageBox(QMessageBox.Icon.Question, "Close the batch?", "\n\n".join(said),
                      QMessageBox.StandardButton.NoButton, parent)
    close = box.addButton("Close the batch  (Enter)", QMessageBox.ButtonRole.AcceptRole)
    back = box.addButton("Back  (Esc)", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(close)
    box.setEscapeButton(back)
    await shown(box)
    parent.activateWindow()  # the keys are the end-of-shift dialog's again
    return box.clickedButton() is close


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
