"""The customer display: with a second screen, F12 shows the customer the total and the
surcharge text on a window filling that screen while the cashier's dialog keeps the keys;
accepting pays; after cash (F8), the change due. With one screen the dialog alone is used.

Two screens are real: an Xvfb with two X screens (Qt's xcb platform sees two
``QScreen``s; Xvfb's ``+xinerama`` stacks its heads at 0,0 and Qt then sees one), and the
two-screen test of this file runs in a pytest child process on it (``TWO_SCREENS_ENV``
set), with the suite's own fixtures. The customer display is saved to
build/screens/customer-display.png.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pos_app.cart import OrderCustomer
from pos_app.journal import Outcome
from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import QGuiApplication, Qt
from pos_app.ui.receipt_view import ReceiptPreview
from tests.system import require_tool
from tests.ui.helpers import SCREENS, modal, save, scan, sign_in, two_codes, x_server

pytestmark = pytest.mark.alone  # its child pytest has a deadline

TWO_SCREENS_ENV = "POS_TEST_TWO_SCREENS"
ROOT = Path(__file__).resolve().parents[2]


def sell_two_items(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    for code in two_codes(run, app):
        scan(qtbot, app.window, code)
    return app


def test_with_one_screen_the_dialog_is_used(qtbot, run, open_app, ui_config):
    assert len(QGuiApplication.screens()) == 1
    app = sell_two_items(qtbot, run, open_app, ui_config)
    qtbot.keyClick(app.window, Qt.Key.Key_F12)
    ack = modal(qtbot, AcknowledgmentDialog)
    assert ack.customer_display is None
    qtbot.keyClick(ack, Qt.Key.Key_Return)
    dialog = pay_result(qtbot)
    assert dialog.result.outcome is Outcome.APPROVED


@pytest.mark.skipif(not os.environ.get(TWO_SCREENS_ENV), reason="runs in the two-screen X server of the test below")
def test_on_two_screens_the_customer_sees_the_total_and_the_text(qtbot, run, open_app, ui_config):
    screens = QGuiApplication.screens()
    assert len(screens) == 2, [s.geometry() for s in screens]
    app = sell_two_items(qtbot, run, open_app, ui_config)
    window = app.window
    assert window.screen() is screens[0]
    window.activateWindow()
    qtbot.waitActive(window)
    total = window.sale.money(app.counter.totals().total)
    run(app.counter.attach_customer(OrderCustomer("65f0aa11bb22cc33dd44ee55", "Jane Roe", "jane@example.com")))
    qtbot.keyClick(window, Qt.Key.Key_F12)
    ack = modal(qtbot, AcknowledgmentDialog)
    display = ack.customer_display
    assert display is not None
    qtbot.waitExposed(display)
    assert display.customer.isVisible() and display.customer.text() == "Jane Roe"  # the customer attached (F6)
    assert display.windowHandle().screen() is screens[1]
    assert screens[1].geometry().contains(display.geometry()) and display.geometry().width() > 600
    assert display.total.text() == total and "surcharge" in display.text.text().lower()
    assert QGuiApplication.focusWindow() is not display.windowHandle() and not display.isActiveWindow()
    SCREENS.mkdir(parents=True, exist_ok=True)
    save(display, "customer-display")
    qtbot.keyClick(ack, Qt.Key.Key_Return)  # the cashier's Enter: the customer accepted
    qtbot.waitUntil(lambda: not display.isVisible(), timeout=5000)
    dialog = pay_result(qtbot)
    assert dialog.result.outcome is Outcome.APPROVED and dialog.result.amount == app.counter.last_paid.totals.total

    # a cash sale: the customer sees the change due
    from pos_app.ui.cash_dialog import CashDialog

    for code in two_codes(run, app):
        scan(qtbot, window, code)
    due = app.counter.totals().total
    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    handed = due + 1000
    qtbot.keyClicks(cash.page.amount, app.counter.money.field(handed))
    qtbot.keyClick(cash.page.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: cash.customer_display is not None, timeout=10_000)
    change = cash.customer_display
    qtbot.waitExposed(change)
    assert change.windowHandle().screen() is screens[1] and change.total.text() == window.sale.money(1000)
    assert not change.customer.isVisible()  # this sale has nobody attached
    save(change, "customer-display-change")
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not change.isVisible(), timeout=5000)


def pay_result(qtbot):
    """The payment started by accepting the notice, once it has its result; its receipt
    preview is closed, and the cashier's Enter starts a new sale."""
    dialog = modal(qtbot, PaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    qtbot.keyClick(modal(qtbot, ReceiptPreview), Qt.Key.Key_Escape)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    return dialog


def test_two_screens_in_a_real_x_server():
    """Xvfb with a 1280x800 and a 1024x768 screen; the test above runs under it."""
    if os.environ.get(TWO_SCREENS_ENV):
        pytest.skip("this is the child run")
    require_tool("xdpyinfo", "x11-utils")
    with x_server("1280x800x24", "1024x768x24") as env:
        env[TWO_SCREENS_ENV] = "1"
        info = subprocess.run(["xdpyinfo"], env=env, capture_output=True, text=True, timeout=30).stdout
        assert "number of screens:    2" in info, info[:500]
        child = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"{Path(__file__).relative_to(ROOT)}::test_on_two_screens_the_customer_sees_the_total_and_the_text"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 0 and "1 passed" in child.stdout, child.stdout[-3000:] + child.stderr[-2000:]
    assert (SCREENS / "customer-display.png").stat().st_mtime > time.time() - 150
