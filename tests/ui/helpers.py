"""Driving the app's window as a cashier does: keys, scans, and the dialogs that open."""

from __future__ import annotations

from typing import Any

from pos_app.ui.qt import QApplication, Qt


def modal(qtbot: Any, kind: type, timeout: int = 10_000) -> Any:
    """The open dialog of ``kind``, once it is there."""
    found: list[Any] = []

    def present() -> bool:
        widget = QApplication.activeModalWidget()
        if isinstance(widget, kind):
            found.append(widget)
            return True
        return False

    qtbot.waitUntil(present, timeout=timeout)
    return found[-1]


def sign_in(qtbot: Any, window: Any, pin: str = "1111") -> None:
    field = window.sign_in.pin
    qtbot.keyClicks(field, pin)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.sale, timeout=10_000)


def scan(qtbot: Any, window: Any, code: str) -> None:
    """What a keyboard-wedge scanner does: types the code, then Enter."""
    before = window.counter.cart.units
    field = window.sale.scan
    qtbot.keyClicks(field, code)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.counter.cart.units > before, timeout=10_000)
