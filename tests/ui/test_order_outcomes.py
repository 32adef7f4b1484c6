"""The cart follows only its own order, through the real window (issue 16, rows 1 to 3):
another payment found in the back office never empties it; a partial approval says what
is still due and the rest is taken in cash (F8, with change); a manager's "paid" is refused
until the service shows the charge."""

from __future__ import annotations

import pytest

from pos_app.journal import Outcome
from pos_app.sandbox.faults import DROP_ANSWER
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.ui.qt import Qt
from tests.ui.helpers import close_preview, modal, pay, save, scan, sign_in, two_codes


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def open_attention(qtbot, window):
    from pos_app.ui.back_office import BackOfficeDialog

    qtbot.keyClick(window, Qt.Key.Key_F9)
    office = modal(qtbot, BackOfficeDialog)
    office.tabs.setCurrentWidget(office.attention)
    return office


def test_row1_another_payment_found_in_the_back_office_leaves_a_declined_cart_alone(
        qtbot, run, open_app, b_config, sandbox):
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    order_key, lines = app.counter.cart.order_key, app.counter.cart.lines
    sandbox.inject("terminal.pay", 501)
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.DECLINED
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    # another lane's sale whose answer was lost: it needs attention
    other = run(app.station.service.sale("tb-2002", DROP_ANSWER, order_key="cart-of-lane-2"))
    assert other.outcome is Outcome.UNKNOWN

    office = open_attention(qtbot, app.window)
    qtbot.waitUntil(lambda: office.attention.items.count() == 1, timeout=10_000)
    qtbot.mouseClick(office.attention.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: office.attention.message.text().startswith("Approved"), timeout=10_000)
    office.reject()

    assert app.counter.cart.order_key == order_key and app.counter.cart.lines == lines
    assert app.counter.last_paid is None and "Receipt" not in app.window.status.text()


def test_row2_a_partial_approval_says_what_is_still_due_and_keeps_the_sale(
        qtbot, run, open_app, b_config, sandbox):
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    total = app.counter.totals().total
    sandbox.set_faults(approve_at_most=100)
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.PARTIALLY_APPROVED
    assert dialog.heading.text() == "Partly approved"
    due = app.window.sale.money(total - 100)
    assert due in dialog.phase.text() and "still due" in dialog.phase.text()
    save(dialog, "light-payment-partial")
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: app.window.payment is None)  # the payment key is the window's again
    sale = app.window.sale
    assert sale.payments.isVisible() and sale.payments.rows[-1] == ("Balance due", due, "")
    assert sale.payments.rows[0][1:] == (sale.money(100), f"partly approved, of {sale.money(total)}")
    assert not app.counter.cart.is_empty and app.counter.last_paid is None
    save(app.window, "light-sale-partly-paid")

    # the rest in cash: F8 opens on the balance, all selected; a note is typed over it
    from pos_app.ui.cash_dialog import CashDialog

    qtbot.keyClick(app.window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    field = cash.page.amount
    assert field.hasFocus() and field.selectedText() == app.counter.money.field(total - 100)
    handed = -(-(total - 100) // 1000) * 1000 + 1000  # a note above the balance
    qtbot.keyClicks(field, app.counter.money.field(handed))
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: cash.pages.currentWidget() is cash.change_page, timeout=10_000)
    assert cash.change.text() == f"Change due {sale.money(handed - (total - 100))}"
    save(cash, "light-cash-change-due")
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not cash.isVisible())
    paid = app.counter.last_paid
    assert paid is not None and paid.paid == total and paid.change == handed - (total - 100)
    assert app.counter.cart.is_empty and len(sandbox.stats()["payments"]) == 1  # the card charged once


def test_row3_mark_paid_needs_the_charge_the_slip_names(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.manager import ManagerDialog

    sandbox.set_faults(foreign_user_agent=1)  # the service does not name our attempt: a lookup cannot find it
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    sandbox.set_faults(drop_next=1)
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.UNKNOWN
    [payment] = sandbox.stats()["payments"]
    slip = run(app.station.client.get_payment(payment["id"])).transaction_id

    qtbot.mouseClick(dialog.manager_button, Qt.MouseButton.LeftButton)
    manager = modal(qtbot, ManagerDialog)
    qtbot.keyClicks(manager.pin, DEMO_MANAGER_PIN)
    qtbot.keyClicks(manager.reason, "the terminal printed APPROVED")
    qtbot.mouseClick(manager.paid, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "no such charge" in manager.message.text(), timeout=10_000)
    assert manager.isVisible() and app.counter.last_paid is None  # refused: nothing decided

    manager.pin.setText(DEMO_MANAGER_PIN)  # the PIN is asked again after a refusal
    qtbot.keyClicks(manager.reference, slip)
    qtbot.mouseClick(manager.paid, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not manager.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: dialog.result is not None and dialog.result.outcome is Outcome.APPROVED, timeout=10_000)
    assert app.counter.last_paid is not None and app.counter.last_paid.result.payment_id == payment["id"]
    assert app.counter.cart.is_empty
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
