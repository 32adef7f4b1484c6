"""One failure path (issue 16, item 7): an unexpected error in a slot, an async slot, the
event loop or a worker thread is logged with its traceback and shown as a sentence on the
status line of the real window; nothing fails silently and the app goes on."""

from __future__ import annotations

import logging
import threading

import pytest

from pos_app.ui import failures
from pos_app.ui.qt import QPushButton, Qt, asyncSlot


@pytest.fixture
def window(qtbot, qloop):
    from pos_app.ui.main_window import MainWindow

    shown = MainWindow(training=True)
    qtbot.addWidget(shown)
    shown.show()
    restore = failures.install(shown.status.setText, qloop)
    yield shown
    restore()


def said(window) -> str:
    return window.status.text()


def test_an_async_slot_that_raises_is_logged_and_told(qtbot, window, caplog):
    class Broken(QPushButton):
        @asyncSlot()
        async def act(self) -> None:
            raise RuntimeError("a bug in a slot")

    button = Broken("act", window)
    button.clicked.connect(button.act)
    with caplog.at_level(logging.ERROR, logger="pos_app.unexpected"):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Something went wrong" in said(window))
    assert "RuntimeError" in said(window) and "back office (F9)" in said(window)
    [record] = [r for r in caplog.records if r.name == "pos_app.unexpected"]
    assert record.exc_info and "a bug in a slot" in str(record.exc_info[1])


def test_an_error_of_the_event_loop_is_logged_and_told(qtbot, window, qloop, caplog):
    def callback() -> None:
        raise LookupError("a bug in a callback")

    with caplog.at_level(logging.ERROR, logger="pos_app.unexpected"):
        qloop.call_soon(callback)
        qtbot.waitUntil(lambda: "LookupError" in said(window))
    assert any("a bug in a callback" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


def test_an_error_of_a_worker_thread_is_logged_and_told(qtbot, window, caplog):
    def work() -> None:
        raise OSError("a bug on a worker thread")

    with caplog.at_level(logging.ERROR, logger="pos_app.unexpected"):
        worker = threading.Thread(target=work, name="worker-test")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: "OSError" in said(window))
    assert any("worker-test" in r.getMessage() for r in caplog.records)
