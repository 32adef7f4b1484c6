"""F1: every key of the app, in one list."""

from __future__ import annotations

from pos_app.i18n import N_, _
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QFrame,
    QGridLayout,
    QGuiApplication,
    QLabel,
    QPushButton,
    QScrollArea,
    QShowEvent,
    Qt,
    QVBoxLayout,
    QWidget,
)

KEYS = (
    ("F12", N_("Pay the balance by card (the customer accepts the surcharge notice first)")),
    ("F7", N_("Pay a part of the balance by card: type the amount, Enter, then as F12")),
    ("F4", N_("Card on file of the customer (F6): the balance, or a part typed first; several cards: ↑ ↓, Enter")),
    ("F8", N_("Cash received: type the amount (or Enter for the exact balance); the change is shown")),
    ("Ctrl+Del", N_("Cancel the payments of this sale (a manager): cards voided or refunded, cash given back")),
    ("Ctrl+D", N_("Cash drawer (a manager): cash in, cash out, or no sale")),
    ("F11", N_("Pre-auth (a tab or a deposit): the amount is held on the card, not charged yet")),
    ("Enter", N_("Add the scanned or typed item; accept; press the focused button; close after an approval")),
    ("3 *", N_("Before a scan or a search: add 3 of the item scanned or picked next")),
    ("↑ ↓", N_("Pick a search result; with no results, select a line of the cart (the line just added is selected)")),
    ("+ / −", N_("One more / one less of the selected line (− on 1 removes it)")),
    ("F2", N_("Type the selected line's quantity, Enter (0 removes the line; Esc leaves it)")),
    ("Delete", N_("Remove the selected line (after a payment attempt, recorded in the audit trail)")),
    ("F3", N_("Misc item: one the catalog lacks, at a price you type, with its tax (Tab between the fields)")),
    ("F6", N_("Customer: find one (name, email, phone, last four) and Enter to attach; Ctrl+N a new one")),
    ("Alt+E", N_("In F6: enroll the highlighted customer in one of the store's membership plans (↑ ↓, Enter)")),
    ("Alt+P / Alt+R / Alt+C",
     N_("In F6: pause, resume or cancel the membership selected (Tab to the list; a manager)")),
    ("Ctrl+U", N_("Update link: the attached customer gets a secure link to add or update their card (email or text)")),
    ("Ctrl+T", N_("Open pre-auths: capture a tab or a deposit")),
    ("Ctrl+K",
     N_("Pay by link (phone order): type the mobile number or email, Enter; the sale waits, the lane is free")),
    ("Ctrl+W", N_("Waiting links: ↑ ↓, Enter shows or reprints, Delete cancels one (the sale comes back); "
                  "in training Alt+P pays it")),
    ("F9", N_("Back office: today's payments (void, refund, receipts), needs attention, audit trail")),
    ("F5", N_("Refresh the back office tab; Alt+P, Alt+N, Alt+T or Ctrl+Tab change tabs")),
    ("F10", N_("End of shift (a manager): count the drawer, close the batch, write the Z report (Z-0001…)")),
    ("Alt+N", N_("In F10: count the drawer by notes and coins (Tab to the next); again: back to the total")),
    ("Alt+X", N_("In F10: the X report, the shift so far (cash and card), printable; nothing is closed")),
    ("Ctrl+P", N_("Reprint the last receipt, slip or report")),
    ("Esc", N_("Back: clear the search, cancel a dialog")),
    ("Ctrl+L", N_("Sign out")),
    ("F1", N_("This list")),
)


MOST_HEIGHT = 640
"""The list's window at most this high: a 1024×768 lane screen less its title bar and taskbar."""


class HelpDialog(QDialog):
    """The keys in two columns (key, what it does), scrolled when the screen is too short
    for all of them (a 1024×768 lane screen): ↑ ↓ and Page Up/Down scroll, Enter or Esc close."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Keys"))
        rows = QWidget()
        grid = QGridLayout(rows)
        grid.setColumnStretch(1, 1)
        for number, (key, what) in enumerate(KEYS):
            what = _(what)
            name, text = QLabel(f"<b>{key}</b>"), QLabel(what)
            text.setWordWrap(True)
            for label in (name, text):
                label.setAccessibleName(_("{key}: {what}").format(key=key, what=what))
            grid.addWidget(name, number, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(text, number, 1)
        self.keys = QScrollArea()
        self.keys.setWidget(rows)
        self.keys.setWidgetResizable(True)
        self.keys.setFrameShape(QFrame.Shape.NoFrame)
        self.keys.setAccessibleName(_("Keys of the app"))
        close = QPushButton(_("Close  (Esc)"))
        close.setAccessibleDescription(_("Closes the list of keys"))
        close.setDefault(True)
        close.clicked.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.keys, 1)
        layout.addWidget(close)
        enter_presses_focused_button(self)
        screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
        room = screen.availableGeometry()
        self.resize(min(900, room.width() - 40), min(rows.sizeHint().height() + 80, room.height() - 60, MOST_HEIGHT))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.keys.setFocus()  # arrows and Page Up/Down scroll at once; Enter closes (the default button)
