"""Every PIN field as a cashier and a manager use it, offscreen against the sandbox: the
field keeps the keyboard after a wrong PIN (the next PIN typed goes into it), the tries
left are said right, a lock is shown and lifted by a manager's PIN, and a dialog that took
a manager's PIN forgets it (and "decide anyway") after every attempt."""

from __future__ import annotations

import pytest

from pos_app.journal import Outcome
from pos_app.sandbox.faults import DROP_ANSWER
from pos_app.staff import DEMO_CASHIER_PIN, DEMO_MANAGER_PIN, MAX_WRONG_PINS
from pos_app.ui.qt import QApplication, Qt
from tests.ui.helpers import modal, save, sign_in


def typed_into_focus(qtbot, text: str) -> None:
    """Keys as a keyboard sends them: to whatever has the focus (nothing, if nothing has)."""
    widget = QApplication.focusWidget()
    assert widget is not None, "no widget has the keyboard focus"
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def active(qtbot, dialog):
    """``dialog`` as the window the keyboard types into (a window manager activates a new
    dialog; the offscreen platform needs to be asked)."""
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    return dialog


def refused(qtbot, screen) -> str:
    """The sign-in screen's sentence once the PIN typed is checked."""
    qtbot.waitUntil(lambda: screen.pin.isEnabled() and screen.message.text() not in ("", "Checking…"),
                    timeout=10_000)
    said = screen.message.text()
    screen.message.setText("")
    return said


def test_after_a_wrong_pin_the_next_pin_typed_goes_into_the_sign_in_field(qtbot, open_app, ui_config):
    app = open_app(ui_config, "S", sync=False)
    screen = app.window.sign_in
    qtbot.waitUntil(screen.pin.hasFocus)
    said = []
    for _ in range(MAX_WRONG_PINS - 1):
        typed_into_focus(qtbot, "2580")
        said.append(refused(qtbot, screen))
        assert screen.pin.hasFocus() and screen.pin.text() == ""
    assert said[0] == "That PIN is not right: 4 tries left before sign-in locks."
    assert said[-1] == "That PIN is not right: 1 try left before sign-in locks."
    typed_into_focus(qtbot, DEMO_CASHIER_PIN)
    qtbot.waitUntil(lambda: app.window.stack.currentWidget() is app.window.sale, timeout=10_000)


def test_a_locked_sign_in_is_lifted_by_a_managers_pin(qtbot, run, open_app, ui_config):
    from pos_app.ui.theme import apply_theme

    apply_theme(QApplication.instance(), "light")  # as the screenshots are (the suite leaves it on)
    app = open_app(ui_config, "S", sync=False)
    screen = app.window.sign_in
    for _ in range(MAX_WRONG_PINS):
        typed_into_focus(qtbot, "2580")
        said = refused(qtbot, screen)
    assert "locked until" in said and "A manager's PIN signs in and lifts the lock" in said
    screen.message.setText(said)
    save(app.window, "light-sign-in-locked")
    typed_into_focus(qtbot, DEMO_CASHIER_PIN)  # the cashier's own PIN waits for the lock
    assert "locked until" in refused(qtbot, screen) and screen.pin.hasFocus()
    assert app.window.stack.currentWidget() is screen
    typed_into_focus(qtbot, DEMO_MANAGER_PIN)
    qtbot.waitUntil(lambda: app.window.stack.currentWidget() is app.window.sale, timeout=10_000)
    assert app.counter.cashier.name == "Demo Manager"
    [lifted, *_] = run(app.counter.disk(app.counter.staff.audit, 3))
    assert (lifted.actor, lifted.action) == ("Demo Manager", "sign_in_unlocked")


def test_a_lock_from_before_a_restart_is_said_on_the_sign_in_screen(qtbot, run, open_app, ui_config):
    from pos_app.staff import Staff

    with Staff.open(ui_config.staff_path) as staff:
        staff.ensure_demo_staff()
        for _ in range(MAX_WRONG_PINS):
            with pytest.raises(Exception, match="wrong PIN"):
                staff.sign_in("2580")
    app = open_app(ui_config, "S", sync=False)
    qtbot.waitUntil(lambda: "locked until" in app.window.sign_in.message.text(), timeout=10_000)
    assert app.window.sign_in.pin.hasFocus()


@pytest.fixture
def unknown_too_early(qtbot, run, open_app, ui_config, sandbox):
    """The app on type B with a payment whose answer was lost and that the service does not
    list yet: "not paid" is refused as too early (forceable); the back office's decision
    dialog open on it."""
    from pos_app.ui.back_office import BackOfficeDialog
    from pos_app.ui.manager import ManagerDialog

    sandbox.set_faults(list_lag_s=300)
    app = open_app(ui_config.replace(terminal_id="tb-2001", poll_wait_limit=120.0), "B")
    sign_in(qtbot, app.window)
    lost = run(app.station.sale(DROP_ANSWER, order_key="cart-lost"))
    assert lost.outcome is Outcome.UNKNOWN
    qtbot.keyClick(app.window, Qt.Key.Key_F9)
    office = modal(qtbot, BackOfficeDialog)
    office.tabs.setCurrentWidget(office.attention)
    qtbot.waitUntil(lambda: office.attention.items.count() == 1 and office.payments.model.rowCount() > 0
                    and office.payments.refresh_button.isEnabled(), timeout=10_000)
    qtbot.mouseClick(office.attention.decide_button, Qt.MouseButton.LeftButton)
    return app, lost, active(qtbot, modal(qtbot, ManagerDialog)), office


def test_a_refused_decision_forgets_the_managers_pin_and_decide_anyway(qtbot, run, unknown_too_early):
    """Issue 16 row 4: after "too early", the PIN stayed and "force" stayed on, so anyone
    could press "Mark paid" in the manager's name."""
    app, lost, dialog, office = unknown_too_early
    qtbot.keyClicks(dialog.pin, DEMO_MANAGER_PIN)
    qtbot.keyClicks(dialog.reason, "customer walked away")
    qtbot.mouseClick(dialog.not_paid, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Too early" in dialog.message.text(), timeout=10_000)
    assert dialog.pin.text() == "" and dialog.pin.hasFocus()
    assert dialog.force.isVisible() and not dialog.force.isChecked()
    save(dialog, "light-manager-decision-too-early")

    dialog.message.setText("")
    dialog.force.setChecked(True)  # someone else ticks "decide anyway" and presses, without a PIN
    qtbot.mouseClick(dialog.paid, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.message.text().startswith("PIN refused"), timeout=10_000)
    assert dialog.isVisible() and dialog.decision is None and not dialog.force.isChecked()
    assert run(app.station.journal.get(lost.attempt_id)).outcome is Outcome.UNKNOWN

    qtbot.keyClicks(dialog.pin, DEMO_MANAGER_PIN)  # the manager again, deciding anyway
    dialog.force.setChecked(True)
    qtbot.mouseClick(dialog.not_paid, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert dialog.decision.outcome is Outcome.FAILED and dialog.decision.refusal is None
    assert run(app.station.journal.get(lost.attempt_id)).outcome is Outcome.FAILED
    qtbot.waitUntil(lambda: office.attention.message.text().startswith("Not charged")  # the back office read again
                    and office.payments.refresh_button.isEnabled(), timeout=10_000)


def test_a_wrong_pin_in_the_decision_dialog_keeps_the_focus_and_says_1_try_left(qtbot, unknown_too_early):
    dialog = unknown_too_early[2]
    qtbot.keyClicks(dialog.reason, "customer walked away")
    for _ in range(MAX_WRONG_PINS - 1):
        qtbot.keyClicks(dialog.pin, "2580")
        qtbot.mouseClick(dialog.not_paid, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Wrong PIN" in dialog.message.text(), timeout=10_000)
        said = dialog.message.text()
        dialog.message.setText("")
        assert dialog.pin.text() == "" and dialog.pin.hasFocus()
    assert said == "Wrong PIN (1 try left before sign-in locks)."


def test_the_void_approval_forgets_a_refused_pin_and_keeps_the_focus_on_it(qtbot, run, open_app, ui_config,
                                                                          sandbox):
    from pos_app.ui.back_office import BackOfficeDialog
    from pos_app.ui.manager_approval import ManagerApproval

    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    sale = run(app.station.service.sale("tb-2001", 2500))
    qtbot.keyClick(app.window, Qt.Key.Key_F9)
    office = modal(qtbot, BackOfficeDialog)
    qtbot.waitUntil(lambda: office.payments.day_read and office.payments.select(sale.attempt_id), timeout=10_000)
    qtbot.mouseClick(office.payments.void_button, Qt.MouseButton.LeftButton)
    dialog = active(qtbot, modal(qtbot, ManagerApproval))
    qtbot.waitUntil(dialog.pin.hasFocus)
    qtbot.keyClicks(dialog.pin, "2580")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Tab)
    assert dialog.reason.hasFocus()
    qtbot.keyClicks(dialog.reason, "wrong item")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # Enter where the manager typed last
    qtbot.waitUntil(lambda: "Wrong PIN" in dialog.message.text(), timeout=10_000)
    assert dialog.message.text() == "Wrong PIN (4 tries left before sign-in locks)."
    assert dialog.pin.text() == "" and dialog.pin.hasFocus()
    typed_into_focus(qtbot, DEMO_MANAGER_PIN)
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Voided"), timeout=10_000)


def test_the_shift_end_counts_a_wrong_pin_once_and_keeps_the_focus(qtbot, run, open_app, ui_config):
    from pos_app.ui.shift_end import ShiftEndDialog

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    qtbot.keyClick(app.window, Qt.Key.Key_F10)
    dialog = active(qtbot, modal(qtbot, ShiftEndDialog))
    typed_into_focus(qtbot, "2580")
    qtbot.waitUntil(lambda: "Wrong PIN" in dialog.summary.text(), timeout=10_000)
    assert run(app.counter.disk(app.counter.staff.wrong_pins)) == 1  # Enter is one attempt, not two
    assert dialog.summary.text() == "Wrong PIN (4 tries left before sign-in locks)."
    assert dialog.pin.text() == "" and dialog.pin.hasFocus()
    typed_into_focus(qtbot, DEMO_MANAGER_PIN)
    qtbot.waitUntil(lambda: dialog.manager == "Demo Manager" and dialog.check is not None, timeout=20_000)
