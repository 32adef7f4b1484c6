"""F1, the keys of the app: every key listed once with what it does, the list fits the
screen (scrolled when the screen is short: a 1024×768 lane), and the keyboard closes it."""

from __future__ import annotations

from pos_app.ui.help import KEYS, HelpDialog
from pos_app.ui.qt import QApplication, QLabel, Qt


def test_every_key_is_listed_and_the_list_fits_the_screen(qtbot):
    dialog = HelpDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    texts = [label.text() for label in dialog.keys.widget().findChildren(QLabel)]
    for key, what in KEYS:
        assert f"<b>{key}</b>" in texts and what in texts
    assert len({key for key, _ in KEYS}) == len(KEYS)  # no key listed twice
    room = QApplication.primaryScreen().availableGeometry()
    assert dialog.frameGeometry().height() <= room.height() and dialog.width() <= room.width()
    qtbot.waitUntil(dialog.keys.hasFocus)  # arrows and Page Down scroll at once
    qtbot.keyClick(dialog.keys, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())
