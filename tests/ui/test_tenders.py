"""Split payments through the real window, by keyboard (issue 17): F7 charges a part of the
balance by card and the panel shows the rest due; F8 opens on the balance (typing replaces
it), a bad amount keeps the field with a sentence; cash for the rest shows the change due
and the receipt lists both tenders; Ctrl+Del with a manager's PIN gives everything back."""

from __future__ import annotations

import pytest

from pos_app.journal import CashKind, Outcome
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.station.order import Tender
from pos_app.ui.qt import QLabel, Qt
from tests.ui.helpers import close_preview, modal, save, scan, sign_in, two_codes


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def part_by_card(qtbot, window, cents):
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.cash_dialog import CardPartDialog
    from pos_app.ui.payment_dialog import PaymentDialog

    qtbot.keyClick(window, Qt.Key.Key_F7)
    prompt = modal(qtbot, CardPartDialog)
    field = prompt.page.amount
    assert field.hasFocus() and field.selectedText() == field.text()  # the balance, all selected
    qtbot.keyClicks(field, window.counter.money.field(cents))
    qtbot.keyClick(field, Qt.Key.Key_Return)
    ack = modal(qtbot, AcknowledgmentDialog)
    assert ack.findChild(QLabel, "dialogHeading").text() == f"Total {window.counter.money(cents)} by card"
    qtbot.keyClick(ack, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    return dialog


def test_a_split_f7_card_then_f8_cash_with_change(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.cash_dialog import CashDialog

    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    total = app.counter.totals().total
    card = part_by_card(qtbot, window, 500)
    assert card.result.outcome is Outcome.APPROVED and card.result.amount == 500
    qtbot.keyClick(card, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.payment is None)
    rows = window.sale.payments.rows
    assert rows[0][1:] == (window.sale.money(500), "approved") and rows[-1] == (
        "Balance due", window.sale.money(total - 500), "")
    save(window, "light-sale-split-card-part")

    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    field = cash.page.amount
    assert field.hasFocus() and field.selectedText() == app.counter.money.field(total - 500)
    qtbot.keyClicks(field, "12.345")  # too many decimals: refused, nothing recorded, the field keeps the keys
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(cash.page.problem.text()))
    assert field.hasFocus() and run(app.station.journal.order_cash(app.counter.cart.order_key)) == []
    save(cash, "light-cash-refused")
    field.selectAll()
    handed = total - 500 + 253
    qtbot.keyClicks(field, app.counter.money.field(handed))
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: cash.pages.currentWidget() is cash.change_page, timeout=10_000)
    assert cash.change.text() == f"Change due {window.sale.money(253)}" and cash.new_sale.hasFocus()
    close_preview(qtbot)  # no printer here: the receipt is previewed
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not cash.isVisible())
    paid = app.counter.last_paid
    assert [line.tender for line in paid.payments] == [Tender.CARD, Tender.CASH] and paid.change == 253
    assert app.counter.cart.is_empty and not window.sale.payments.isVisible()


def test_ctrl_del_with_a_managers_pin_gives_the_payments_back(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.cash_dialog import CashDialog
    from pos_app.ui.manager_approval import ManagerApproval

    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    order_key, lines = app.counter.cart.order_key, app.counter.cart.lines
    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    qtbot.keyClicks(cash.page.amount, "1")
    qtbot.keyClick(cash.page.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not cash.isVisible())
    assert app.counter.payments.paid == 100

    window.activateWindow()  # the sale screen's keys again (offscreen has no window manager to do it)
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_Delete, Qt.KeyboardModifier.ControlModifier)
    approval = modal(qtbot, ManagerApproval)
    qtbot.keyClicks(approval.pin, DEMO_MANAGER_PIN)
    qtbot.keyClicks(approval.reason, "customer changed their mind")
    qtbot.keyClick(approval.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.status.text().startswith("Payments given back"), timeout=10_000)
    assert app.counter.cart.order_key != order_key and app.counter.cart.lines == lines
    given = run(app.station.journal.order_cash(order_key))
    assert [(e.kind, e.amount) for e in given] == [(CashKind.SALE, 100), (CashKind.RETURN, 100)]


def test_ctrl_d_takes_cash_out_with_a_managers_pin(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.drawer_dialog import DrawerChoice
    from pos_app.ui.manager_approval import ManagerApproval

    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    choice = modal(qtbot, DrawerChoice)
    save(choice, "light-drawer-choice")
    qtbot.keyClick(choice, Qt.Key.Key_O, Qt.KeyboardModifier.AltModifier)  # Cash out
    approval = modal(qtbot, ManagerApproval)
    assert approval.amount.hasFocus() and approval.amount.text() == ""
    qtbot.keyClicks(approval.amount, "20")
    qtbot.keyClick(approval.amount, Qt.Key.Key_Tab)
    qtbot.keyClicks(approval.pin, DEMO_MANAGER_PIN)
    qtbot.keyClicks(approval.reason, "to the safe")
    save(approval, "light-drawer-cash-out")
    qtbot.keyClick(approval.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.status.text().startswith("Cash out $20.00 recorded"), timeout=10_000)
    _, moves = run(app.station.journal.shift_cash())
    assert [(m.kind, m.amount, m.reason) for m in moves] == [(CashKind.CASH_OUT, 2000, "to the safe")]


def test_the_change_shows_while_a_slow_drawer_is_still_opening(qtbot, run, open_app, b_config, sandbox):
    """A drawer that takes its time (a hung device or print queue: faked, no real part hangs
    on cue) never holds the change page: it says the drawer is opening, then what it did."""
    import threading

    from pos_app.drawer import CashDrawer, DrawerKind, DrawerResult, DrawerState
    from pos_app.ui.cash_dialog import CashDialog

    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    scan(qtbot, window, two_codes(run, app)[0])
    release = threading.Event()

    class SlowDrawer(CashDrawer):
        def open(self, reason: str) -> DrawerResult:
            release.wait(20)
            return DrawerResult(DrawerState.OPENED, "The cash drawer was signalled to open.")

    app.counter.drawer = SlowDrawer(DrawerKind.NONE)
    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    qtbot.keyClick(cash.page.amount, Qt.Key.Key_Return)  # the exact balance
    try:
        qtbot.waitUntil(lambda: cash.pages.currentWidget() is cash.change_page, timeout=10_000)
        assert cash.drawer.text() == "Opening the cash drawer…" and not cash.taken.drawer.done()
    finally:
        release.set()
    qtbot.waitUntil(lambda: cash.drawer.text() == "The cash drawer was signalled to open.", timeout=10_000)
    close_preview(qtbot)
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not cash.isVisible())
