"""Every dialog by keyboard, offscreen: Enter on a focused button presses that button (a
QDialog pressed its default button instead: Tab to Cancel, Enter, and the surcharge
notice was accepted), and Enter in a field never presses a button nobody chose."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pos_app.journal import Operation, Outcome
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.qt import QApplication, QDialog, QLineEdit, QPushButton, Qt
from tests.ui.helpers import sign_in

UNKNOWN = OperationResult(Outcome.UNKNOWN, Operation.SALE, "ts-1001", attempt_id="a-unknown", amount=1234)


async def refuse(pin: str) -> Any:
    raise AssertionError("no PIN is checked: the buttons' own actions are disconnected")


def dialogs(app) -> dict[str, Callable[[], QDialog]]:
    from pos_app.receipts import ReportData, render_report
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.back_office import BackOfficeDialog
    from pos_app.ui.help import HelpDialog
    from pos_app.ui.manager import ManagerDialog
    from pos_app.ui.manager_approval import ManagerApproval
    from pos_app.ui.payment_dialog import PaymentDialog
    from pos_app.ui.preauths import PreauthsDialog
    from pos_app.ui.receipt_view import ReceiptPreview
    from pos_app.ui.setup import SetupDialog
    from pos_app.ui.shift_end import ShiftEndDialog

    window, money = app.window, app.window.sale.money

    def payment() -> QDialog:
        dialog = PaymentDialog(app.counter, window.bridge, preauth=False, parent=window)
        dialog._show(UNKNOWN)  # keep waiting, check again, manager decides, details, back to the sale
        return dialog

    def back_office() -> QDialog:
        dialog = BackOfficeDialog(window.office, money, window.receipts, window)
        dialog.payments.void_button.setEnabled(True)  # as for a payment picked in the list
        return dialog

    report = render_report(ReportData("Keys", "Store", "s1", "lane-1", datetime.now(UTC), ()))
    return {
        "surcharge notice": lambda: AcknowledgmentDialog(["Card payments carry a 3 % surcharge."], "$12.34", window),
        "void approval": lambda: ManagerApproval("Void", "Void Visa of $12.34.", refuse, money=money, parent=window),
        "refund approval": lambda: ManagerApproval("Refund", "Refund up to $12.34.", refuse, money=money,
                                                   max_amount=1234, parent=window),
        "manager decision": lambda: ManagerDialog(app.counter, UNKNOWN, window),
        "payment": payment,
        "open pre-auths": lambda: PreauthsDialog(app.counter, money, window),
        "end of shift": lambda: ShiftEndDialog(app.counter, window),
        "back office": back_office,
        "keys (F1)": lambda: HelpDialog(window),
        "receipt preview": lambda: ReceiptPreview(report, window),
        "setup": lambda: SetupDialog(app.config.data_dir / "setup", parent=window),
    }


def settled(dialog: QDialog) -> bool:
    """Done loading what it shows (the back office's lists: Refresh is disabled meanwhile)."""
    from pos_app.ui.back_office import BackOfficeDialog

    if isinstance(dialog, BackOfficeDialog):
        return dialog.payments.refresh_button.isEnabled() and "Loading" not in dialog.payments.message.text()
    return True


def test_enter_on_a_focused_button_presses_it_in_every_dialog(qtbot, open_app, ui_config):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    misrouted: list[str] = []
    for name, make in dialogs(app).items():
        dialog = make()
        dialog.open()
        qtbot.waitUntil(lambda dialog=dialog: QApplication.activeModalWidget() is dialog and settled(dialog))
        pressed: list[QPushButton] = []
        buttons = [b for b in dialog.findChildren(QPushButton) if b.isVisible() and b.isEnabled()
                   and b.focusPolicy() != Qt.FocusPolicy.NoFocus]
        for button in buttons:
            button.clicked.disconnect()  # the button's action itself is not under test: where Enter goes is
            button.clicked.connect(lambda checked=False, button=button, pressed=pressed: pressed.append(button))
        for button in buttons:
            pressed.clear()
            button.setFocus()
            qtbot.waitUntil(button.hasFocus)
            qtbot.keyClick(button, Qt.Key.Key_Return)
            if pressed != [button]:
                misrouted.append(f"{name}: Enter on “{button.text()}” pressed "
                                 f"{[b.text() for b in pressed] or 'nothing'}")
        default = [b for b in buttons if b.isDefault()]
        for field in (f for f in dialog.findChildren(QLineEdit) if f.isVisible() and f.isEnabled()):
            pressed.clear()
            field.setFocus()
            qtbot.waitUntil(field.hasFocus)
            qtbot.keyClick(field, Qt.Key.Key_Return)
            if pressed not in ([], default):  # the dialog's chosen default, or nothing
                misrouted.append(f"{name}: Enter in “{field.accessibleName()}” pressed {[b.text() for b in pressed]}")
        dialog.done(0)
        qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    assert not misrouted, "\n".join(misrouted)
