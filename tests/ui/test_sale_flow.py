"""Full sales through the real window, offscreen, against the sandbox over loopback."""

from __future__ import annotations

import time

import pytest

from pos_app.journal import Outcome
from pos_app.terminal.outcomes import Refusal
from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.receipt_view import ReceiptPreview
from tests.terminal.conftest import pay_requests
from tests.ui.helpers import close_preview, modal, pay, save, scan, sign_in, two_codes


@pytest.mark.parametrize("merchant,terminal", [("S", "ts-1001"), ("B", "tb-2001")])
def test_scan_two_items_and_pay_by_card(qtbot, run, open_app, ui_config, sandbox, merchant, terminal):
    app = open_app(ui_config.replace(terminal_id=terminal), merchant)
    window = app.window
    sign_in(qtbot, window)
    assert window.sale.scan.hasFocus()
    first, second = two_codes(run, app)
    scan(qtbot, window, first)
    scan(qtbot, window, second)
    order_key = app.counter.cart.order_key
    total = app.counter.totals().total
    assert len(app.counter.cart.lines) == 2 and total > 0
    dialog = pay(qtbot, window)
    assert dialog.result.outcome is Outcome.APPROVED and dialog.result.amount == total
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter after an approval: a new, empty sale
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert app.counter.cart.is_empty and app.counter.cart.order_key != order_key
    assert pay_requests(sandbox, merchant) == 1
    [payment] = sandbox.stats()["payments"]
    assert payment["amount"] == total and "cashier Demo_Cashier" in payment["userAgent"]


def test_a_decline_keeps_the_cart_and_says_why(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    sandbox.inject("terminal.pay", 501)
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.DECLINED and "declined" in dialog.phase.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert len(app.counter.cart.lines) == 1


def test_an_unknown_is_resolved_by_check_again_never_by_retry(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    sandbox.set_faults(drop_next=1)  # charged, then the answer is lost
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.UNKNOWN
    assert dialog.check_button.isVisible() and dialog.manager_button.isVisible()
    assert not any(b.text().lower().startswith("retry") for b in (dialog.check_button, dialog.keep_button))
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result.outcome is Outcome.APPROVED, timeout=10_000)
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert pay_requests(sandbox, "B") == 1 and app.counter.cart.is_empty


def test_a_double_press_of_f12_sends_one_request(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    qtbot.keyClick(app.window, Qt.Key.Key_F12)
    qtbot.keyClick(app.window, Qt.Key.Key_F12)
    ack = modal(qtbot, AcknowledgmentDialog)
    qtbot.keyClick(ack, Qt.Key.Key_F12)
    qtbot.keyClick(ack, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    qtbot.keyClick(dialog, Qt.Key.Key_F12)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    assert dialog.result.outcome is Outcome.APPROVED
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert pay_requests(sandbox, "S") == 1


def test_esc_at_the_acknowledgment_sends_nothing(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    qtbot.keyClick(app.window, Qt.Key.Key_F12)
    ack = modal(qtbot, AcknowledgmentDialog)
    qtbot.keyClick(ack, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.waitUntil(lambda: "nothing was sent" in app.window.status.text())
    assert pay_requests(sandbox, "S") == 0 and len(app.counter.cart.lines) == 1


def test_a_pre_auth_by_f11_is_captured_later(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window, Qt.Key.Key_F11)
    result = dialog.result
    assert result.outcome is Outcome.APPROVED and str(result.operation) == "preauth"
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    captured = run(app.station.service.capture("ts-1001", result.transaction_id, result.amount,
                                               payment_id=result.payment_id))
    assert captured.outcome is Outcome.APPROVED


def test_wrong_pins_lock_the_sign_in(qtbot, open_app, ui_config):
    app = open_app(ui_config, "S", sync=False)
    field = app.window.sign_in.pin
    for _ in range(5):
        qtbot.keyClicks(field, "0000")
        qtbot.keyClick(field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: field.isEnabled() and field.text() == "" and app.window.sign_in.message.text()
                        not in ("", "Checking…"), timeout=10_000)
    assert "locked until" in app.window.sign_in.message.text()
    app.window.sign_in.message.setText("")
    qtbot.keyClicks(field, "1111")  # even the right PIN waits for the lockout to end
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "locked until" in app.window.sign_in.message.text() and field.isEnabled(),
                    timeout=10_000)
    assert app.window.stack.currentWidget() is app.window.sign_in


def test_a_terminal_held_by_an_unknown_refuses_the_next_sale_with_a_sentence(qtbot, run, open_app, ui_config,
                                                                             sandbox):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    first = run(app.station.service.sale("ts-1001", 9908))  # 503: unknown, holds the terminal
    assert first.outcome is Outcome.UNKNOWN
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window)
    assert dialog.result.refusal is Refusal.TERMINAL_HAS_UNKNOWN
    assert "earlier payment on this terminal" in dialog.phase.text()
    started = time.monotonic()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert time.monotonic() - started < 5 and len(app.counter.cart.lines) == 1


def test_an_open_pre_auth_is_captured_from_the_list(qtbot, run, open_app, ui_config, sandbox):
    from pos_app.ui.preauths import PreauthsDialog

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window, Qt.Key.Key_F11)
    preauth = dialog.result
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None and app.window.payment is None
                    and app.window.isActiveWindow())
    qtbot.keyClick(app.window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    tabs = modal(qtbot, PreauthsDialog)
    qtbot.waitUntil(lambda: tabs.model.rowCount() == 1)
    money = app.counter.money
    assert tabs.amount.text() == money.field(preauth.amount)
    for typed, said in (("nan", "'nan' is not an amount"), ("12.505", "'12.505' is not an amount"),
                        ("0", "more than 0"), ("", "more than 0"),
                        (money.field(preauth.amount + 1), "At most")):
        tabs.amount.setText(typed)
        qtbot.keyClick(tabs.amount, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda said=said: said in tabs.message.text())
        if typed == "nan":
            save(tabs, "preauths_amount_refused")
        tabs.message.setText("")
    assert pay_requests(sandbox, "S", "terminal.capture") == 0
    tabs.amount.setText(money.field(preauth.amount - 50))  # the tab came to 50 cents less
    qtbot.keyClick(tabs.amount, Qt.Key.Key_Return)
    ended = ("Approved", "Declined", "Not charged", "Not done", "Result not known yet")
    try:
        qtbot.waitUntil(lambda: tabs.message.text().split(":")[0] in ended, timeout=20_000)
    except Exception as error:
        raise AssertionError(f"the capture did not end: {tabs.message.text()!r}") from error
    assert tabs.message.text().startswith("Approved"), tabs.message.text()
    slip = modal(qtbot, ReceiptPreview)  # no printer set: the capture's slip is previewed
    assert slip.windowTitle() == "Capture slip"
    qtbot.keyClick(slip, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: tabs.model.rowCount() == 0 and "Capture slip of" in tabs.message.text())
    assert pay_requests(sandbox, "S", "terminal.capture") == 1
    qtbot.keyClick(tabs, Qt.Key.Key_Escape)


def test_a_german_store_shows_the_cashier_and_the_customer_euros(qtbot, run, open_app, ui_config, sandbox):
    """Row 6: the sale screen, the cart, the surcharge notice the customer reads and a
    partial approval's sentence write the total in the store's currency and locale
    (1.234,50 €), not the OS's."""
    from pos_app.ui.qt import QLabel

    app = open_app(ui_config.replace(currency="EUR", locale="de_DE"), "S")
    window = app.window
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    total = app.counter.totals().total
    german = f"{total // 100:,}".replace(",", ".") + f",{total % 100:02d}\u00a0€"
    assert window.sale.total.text() == german and window.sale.cart_model.cells(app.counter.cart.lines[0])[2][-1] == "€"
    sandbox.set_faults(approve_at_most=100)
    qtbot.keyClick(window, Qt.Key.Key_F12)
    ack = modal(qtbot, AcknowledgmentDialog)
    assert ack.findChild(QLabel, "dialogHeading").text() == f"Total {german} by card"
    qtbot.keyClick(ack, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    assert dialog.result.outcome is Outcome.PARTIALLY_APPROVED
    assert dialog.phase.text().startswith(f"Only 1,00\u00a0€ of {german} was charged")
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.payment is None)
    [card, balance] = window.sale.payments.rows
    assert card[1:] == ("1,00\u00a0€", f"partly approved, of {german}") and balance[0] == "Balance due"


def test_a_yen_store_captures_the_yen_typed(qtbot, run, open_app, ui_config, sandbox):
    """Row 6: in a JPY store (no minor digits) the capture is prefilled "1200" for ¥1,200
    and "500" captures 500 (never ¥50,000); "500.5" is refused with the store's example."""
    from pos_app.ui.preauths import PreauthsDialog

    app = open_app(ui_config.replace(currency="JPY", locale="ja_JP"), "S")
    sign_in(qtbot, app.window)
    preauth = run(app.station.service.preauth("ts-1001", 1200))
    assert preauth.outcome is Outcome.APPROVED
    qtbot.keyClick(app.window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    tabs = modal(qtbot, PreauthsDialog)
    qtbot.waitUntil(lambda: tabs.model.rowCount() == 1)
    assert tabs.amount.text() == "1200" and tabs.model.cells(tabs.model.rows[0])[1] == "¥1,200"
    assert tabs.amount.placeholderText() == "Amount to capture, e.g. 500"
    for typed, said in (("500.5", "'500.5' is not an amount: JPY has no decimals; type an amount like 500."),
                        ("1201", "At most ¥1,200: the amount reserved.")):
        tabs.amount.clear()
        qtbot.keyClicks(tabs.amount, typed)
        qtbot.keyClick(tabs.amount, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda said=said: tabs.message.text() == said)
    assert pay_requests(sandbox, "S", "terminal.capture") == 0
    tabs.amount.clear()
    qtbot.keyClicks(tabs.amount, "500")
    qtbot.keyClick(tabs.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: tabs.message.text().startswith("Approved"), timeout=20_000)
    [payment] = [p for p in sandbox.stats()["payments"] if p["id"] == preauth.payment_id]
    assert payment["amount"] == 500 and pay_requests(sandbox, "S", "terminal.capture") == 1
    qtbot.keyClick(tabs, Qt.Key.Key_Escape)


def test_the_card_slip_is_one_click_away(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window)
    close_preview(qtbot)
    assert dialog.slip_button.isVisible()
    qtbot.mouseClick(dialog.slip_button, Qt.MouseButton.LeftButton)
    slip = modal(qtbot, ReceiptPreview)
    assert slip.pdf.startswith(b"%PDF") and slip is not None
    qtbot.keyClick(slip, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: "card slip is shown" in app.window.status.text())
    qtbot.keyClick(dialog, Qt.Key.Key_Return)


def test_f12_again_after_a_lost_answer_shows_the_earlier_approval_and_charges_once(qtbot, run, open_app, ui_config,
                                                                                  sandbox):
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    sandbox.set_faults(drop_next=1)  # charged, then the answer is lost
    first = pay(qtbot, app.window)
    assert first.result.outcome is Outcome.UNKNOWN
    qtbot.keyClick(first, Qt.Key.Key_Return)  # back to the sale: the cart is still there
    qtbot.waitUntil(lambda: app.window.payment is None and app.window.isActiveWindow())
    assert len(app.counter.cart.lines) == 1
    second = pay(qtbot, app.window)
    assert second.result.outcome is Outcome.APPROVED and second.result.attempt_id == first.result.attempt_id
    close_preview(qtbot)
    qtbot.keyClick(second, Qt.Key.Key_Return)
    assert app.counter.cart.is_empty and pay_requests(sandbox, "B") == 1


def test_enter_while_the_terminal_works_does_not_stop_the_wait(qtbot, run, open_app, ui_config, sandbox):
    """A cashier's habitual Enter during a type S wait leaves the payment running: only a
    deliberate Stop waiting (Tab to it) stops it."""
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.payment_dialog import PaymentDialog

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.5)
    qtbot.keyClick(app.window, Qt.Key.Key_F12)
    qtbot.keyClick(modal(qtbot, AcknowledgmentDialog), Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    assert dialog.phase.hasFocus() and not dialog.stop_button.autoDefault()
    qtbot.keyClick(dialog.phase, Qt.Key.Key_Return)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    assert dialog.result.outcome is Outcome.APPROVED
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # now Enter is "New sale"
    qtbot.waitUntil(lambda: not dialog.isVisible())
