"""Keys a window's shortcut must win over its text fields: under X11's key scheme a line
edit claims Ctrl+U (delete the line) before any shortcut, so the sale screen's Ctrl+U (the
update link) would never run while the scan field has the keyboard."""

from __future__ import annotations

from pos_app.ui.qt import QEvent, QKeyEvent, QLineEdit, QObject, Qt, QWidget


class _CtrlUToTheWindow(QObject):
    """A field's ``ShortcutOverride`` for Ctrl+U left unclaimed, so the window's Ctrl+U
    runs (a window without one still lets the field delete its line)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if (event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent)
                and event.key() == Qt.Key.Key_U and event.modifiers() == Qt.KeyboardModifier.ControlModifier):
            event.ignore()
            return True
        return False


def leave_ctrl_u_to(window: QWidget) -> None:
    """Ctrl+U typed in any of ``window``'s fields is the window's shortcut, not the field's."""
    keeper = _CtrlUToTheWindow(window)
    for field in window.findChildren(QLineEdit):
        field.installEventFilter(keeper)
