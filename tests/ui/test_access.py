"""What a screen reader finds: Qt's accessible tree of the sign-in, the sale screen, the
surcharge notice, the payment dialog (waiting and with its result) and the back office,
each control with a name (a combo box with one of its own), and each key, field and
choice with a description (what it does, said after its name)."""

from __future__ import annotations

from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import Qt
from tests.ui.access import controls, tab_order, undescribed, unnamed
from tests.ui.helpers import close_preview, modal, open_back_office, scan, sign_in, two_codes


def test_every_control_a_cashier_reaches_has_a_name_and_a_description(qtbot, run, open_app, ui_config, sandbox):
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
    app = open_app(ui_config, "S")
    window = app.window
    missing: dict[str, list[str]] = {}

    def read(screen: str, widget: object) -> None:
        missing[screen] = ([f"no name: {control}" for control in unnamed(widget)]
                           + [f"no description: {control}" for control in undescribed(widget)])

    read("sign-in", window)
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    read("sale screen", window)
    assert len(controls(window)) > 10  # the tree was read: the scan field, the cart, the keys
    qtbot.keyClick(window, Qt.Key.Key_F12)
    notice = modal(qtbot, AcknowledgmentDialog)
    read("surcharge notice", notice)
    qtbot.keyClick(notice, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    read("payment dialog, waiting", dialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    close_preview(qtbot)
    read("payment dialog, approved", dialog)
    described = [dialog.details_button, dialog.slip_button, dialog.close_button, window.sale.pay_button,
                 window.sale.cash_button, window.sale.scan, window.sale.table]
    assert [widget.accessibleName() for widget in described if not widget.accessibleDescription()] == []
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    office = open_back_office(qtbot, window)
    for tab in range(office.tabs.count()):  # payments, needs attention, audit trail
        office.tabs.setCurrentIndex(tab)
        read(f"back office, {office.tabs.tabText(tab).replace('&', '')}", office)
    assert {screen: found for screen, found in missing.items() if found} == {}


def test_the_reader_finds_controls_without_a_name_or_a_description(qtbot):
    from pos_app.ui.qt import QComboBox, QLineEdit, QPushButton, QVBoxLayout, QWidget

    screen = QWidget()
    layout = QVBoxLayout(screen)
    bare, named, combo = QLineEdit(), QLineEdit(), QComboBox()
    named.setAccessibleName("Amount")
    combo.addItems(["All", "Approved"])
    for widget in (bare, named, combo, QPushButton("Pay")):
        layout.addWidget(widget)
    qtbot.addWidget(screen)
    screen.show()
    assert unnamed(screen) == ["EditableText (QLineEdit '')", "ComboBox (QComboBox '')"]
    combo.setAccessibleName("Status filter")
    bare.setAccessibleName("Note")
    assert unnamed(screen) == []
    assert len(undescribed(screen)) == 4  # named, not described: the reader says what they are, not what they do
    for widget in (bare, named, combo):
        widget.setAccessibleDescription("What it is for")
    assert undescribed(screen) == ["Button 'Pay' (QPushButton '')"]


def test_tab_in_the_back_office_goes_search_list_actions_then_refresh_and_filters(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    office = open_back_office(qtbot, app.window)
    payments = office.payments
    for button in (payments.void_button, payments.refund_button, payments.refund_all_button, payments.return_button,
                   payments.slip_button, payments.merchant_button):
        button.setEnabled(True)  # as with a payment picked that allows them all
    payments.text.setFocus()
    qtbot.waitUntil(payments.text.hasFocus)
    reached = [widget for widget in tab_order(office) if widget.parent() is not None and (
        widget is payments.table or payments.isAncestorOf(widget))]
    assert reached[:13] == [payments.text, payments.table, payments.void_button, payments.refund_button,
                            payments.refund_all_button, payments.return_button, payments.slip_button,
                            payments.merchant_button, payments.refresh_button, payments.terminal, payments.status,
                            payments.min_total, payments.max_total]
