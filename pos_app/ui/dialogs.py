"""Dialogs by keyboard: showing one from a coroutine without a nested event loop, Enter on a
focused button pressing that button, and a yes-or-back question.

``QDialog.exec()`` inside an asyncio task would run a second Qt loop under qasync's and
re-enter tasks; ``shown`` opens the dialog window-modal and awaits its ``finished``."""

from __future__ import annotations

import asyncio

from pos_app.ui.qt import QApplication, QDialog, QEvent, QKeyEvent, QMessageBox, QObject, QPushButton, Qt, QWidget

ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


async def shown(dialog: QDialog) -> int:
    """Open ``dialog`` and wait for it to close; returns its result code."""
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def done(code: int) -> None:
        if not finished.done():
            finished.set_result(code)

    dialog.finished.connect(done)
    dialog.open()
    return await finished


class _EnterPressesFocusedButton(QObject):
    def __init__(self, dialog: QDialog) -> None:
        super().__init__(dialog)
        self.dialog = dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            _not_auto_default(self.dialog)  # buttons added since (a panel's)
        elif (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and event.key() in ENTER_KEYS
              and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            focused = QApplication.focusWidget()
            if isinstance(focused, QPushButton) and focused.window() is self.dialog and focused.isEnabled():
                focused.click()
                return True
        return False


def enter_presses_focused_button(dialog: QDialog) -> None:
    """Enter on a focused button of ``dialog`` presses that button; Enter in a field presses
    the dialog's default button (one set on purpose), or nothing.

    Qt's own way (``autoDefault`` buttons) has a catch: a dialog with no default button makes
    its first ``autoDefault`` button the default when it shows, so Enter typed in any field
    would press "Mark paid" or "Stop waiting". Here no button is ``autoDefault`` and this
    filter presses the focused one, which a ``QDialog`` otherwise never does (it presses its
    default button instead: the focused Cancel of a notice accepted it)."""
    _not_auto_default(dialog)
    dialog.installEventFilter(_EnterPressesFocusedButton(dialog))


def _not_auto_default(dialog: QDialog) -> None:
    for button in dialog.findChildren(QPushButton):
        button.setAutoDefault(False)


class Question(QMessageBox):
    """A question with two keys, each a label and what it does (its accessible description):
    ``yes`` (Enter, the default) and ``back`` (Esc). ``answered_yes`` once it has closed."""

    def __init__(self, title: str, text: str, yes: tuple[str, str], back: tuple[str, str], parent: QWidget) -> None:
        super().__init__(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, parent)
        self.yes = self.addButton(yes[0], QMessageBox.ButtonRole.AcceptRole)
        self.back = self.addButton(back[0], QMessageBox.ButtonRole.RejectRole)
        self.yes.setAccessibleDescription(yes[1])
        self.back.setAccessibleDescription(back[1])
        self.setDefaultButton(self.yes)
        self.setEscapeButton(self.back)

    @property
    def answered_yes(self) -> bool:
        return self.clickedButton() is self.yes
