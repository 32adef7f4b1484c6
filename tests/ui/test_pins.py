"""Every PIN field as a cashier and a manager use it, offscreen against the sandbox: the
field keeps the keyboard after a wrong PIN (the next PIN typed goes into it), the tries
left are said right, a lock is shown and lifted by a manager's PIN, and a dialog that took
a manager's PIN forgets it (and "decide anyway") after every attempt."""

from __future__ import annotations

import pytest

from pos_app.staff import DEMO_CASHIER_PIN, DEMO_MANAGER_PIN, MAX_WRONG_PINS
from pos_app.ui.qt import QApplication, Qt
from tests.ui.helpers import save


def typed_into_focus(qtbot, text: str) -> None:
    """Keys as a keyboard sends them: to whatever has the focus (nothing, if nothing has)."""
    widget = QApplication.focusWidget()
    assert widget is not None, "no widget has the keyboard focus"
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


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
