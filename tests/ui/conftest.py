"""pytest-qt with qasync: one Qt-driven asyncio loop per test, the app on the sandbox.

pytest-qt has no qasync support: the loop is created ``already_running`` on the test's
QApplication, coroutines are scheduled on it and awaited with ``qtbot.waitUntil`` from
the (sync) tests, and after each test its running flag is cleared instead of ``stop()``.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from pos_app.config import StoreConfig


@pytest.fixture(scope="session")
def session_qloop(qapp):
    """One qasync loop for the whole session: a loop closed per test leaves its Qt timer
    object to be freed later, and a timer firing on it crashes the process."""
    from pos_app.ui.qt import QEventLoop

    loop = QEventLoop(qapp, already_running=True)
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="worker"))  # as the app: no QThreads
    _leave(loop)
    yield loop
    loop.close()  # once, while the QApplication still exists


def _leave(loop) -> None:
    loop._QEventLoop__is_running = False  # noqa: SLF001 - qasync offers no public way out
    asyncio.events._set_running_loop(None)  # noqa: SLF001
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def unthemed(qapp):
    """Every UI test starts and ends without a theme: a test that applies one (the screenshots,
    the themed fit checks) leaves its larger keys and fonts to no later test."""
    yield
    qapp.setStyleSheet("")
    qapp.setProperty("posTheme", None)


@pytest.fixture
def qloop(session_qloop):
    """The session's loop marked running for this (sync) test, and released after it so
    that the suite's asyncio tests can run their own loops."""
    session_qloop._QEventLoop__is_running = True  # noqa: SLF001
    asyncio.events._set_running_loop(session_qloop)  # noqa: SLF001
    asyncio.set_event_loop(session_qloop)
    yield session_qloop
    _leave(session_qloop)


@pytest.fixture
def run(qloop, qtbot) -> Callable[..., Any]:
    """Run a coroutine on the Qt loop and wait (pumping Qt events) for its result."""

    def run_coroutine(coroutine: Coroutine[Any, Any, Any], timeout: float = 20.0) -> Any:
        future = asyncio.ensure_future(coroutine)
        qtbot.waitUntil(future.done, timeout=int(timeout * 1000))
        return future.result()

    return run_coroutine


@dataclass
class App:
    window: Any
    station: Any
    counter: Any
    config: StoreConfig


@pytest.fixture
def ui_config(sandbox, tmp_path) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="demo", store_name="Corner Market (test)",
                       station_id="lane-1", terminal_id="ts-1001", poll_wait_limit=20.0,
                       data_dir=tmp_path / "data")


@pytest.fixture
def open_app(run, qtbot, sandbox):
    """Start the app's window on the sandbox (training mode, demo staff); closes it after."""
    from pos_app.station.counter import Counter
    from pos_app.station.events import EventBus
    from pos_app.station.station import Station
    from pos_app.ui.app import freeze_start_up_objects
    from pos_app.ui.main_window import MainWindow

    opened: list[App] = []

    def start(config: StoreConfig, merchant: str = "S", *, sync: bool = True,
              before_open: Callable[[Any], None] | None = None) -> App:
        """As the app starts: the window (sign-in) first, then the station attached to it;
        ``before_open(window)`` acts on the window before the station is there."""
        window = MainWindow(training=True)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        if before_open is not None:
            before_open(window)
        counter = run(Counter.open(config, EventBus(), training=True))
        station = run(Station.open(config, sandbox.keys[merchant], training=True, events=counter.events))
        counter.attach(station)
        if sync:
            assert run(counter.sync_catalog()) is not None
        window.attach_counter(counter)
        window.attach_station(station)
        run(counter.restore_order())  # as the app's start does
        gc.collect()  # this process holds earlier tests' garbage: not to be frozen with the rest
        freeze_start_up_objects()  # as the app does once its station is attached
        app = App(window, station, counter, config)
        opened.append(app)
        return app

    yield start
    from pos_app.ui.qt import QApplication, QDialog

    for widget in QApplication.topLevelWidgets():  # a test that ended with a dialog open
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.done(0)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    pending = [task for task in asyncio.all_tasks() if not task.done()]  # nothing may outlive its widgets
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(task.done() for task in pending))
    for app in opened:
        if app.station.paying:
            app.station.stop_waiting()
        run(app.counter.aclose())
        run(app.station.aclose())
    gc.unfreeze()  # the next test's objects, and this one's garbage, are collected as usual


@pytest.fixture
def data(tmp_path, monkeypatch, root_logging):
    """A fresh data dir and no POS_* settings: the app has nothing to start with (and the
    log it opens in this test's folder is closed after the test)."""
    for name in [name for name in os.environ if name.startswith("POS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("POS_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def start_app(qloop, qtbot, data):
    """``start_app()`` starts the app as ``pos-app`` does (``pos_app.ui.launch``: the first
    window, then ``pos_app.ui.app.run`` as a task on the test's loop); after the test every
    window it opened is closed and the task is awaited."""
    from pos_app.profile import start_profile
    from pos_app.ui import app as app_module
    from pos_app.ui import launch
    from pos_app.ui.main_window import MainWindow
    from pos_app.ui.qt import QApplication
    from pos_app.ui.setup import SetupDialog

    tasks: list[asyncio.Future] = []

    def start(*, sandbox: bool = False) -> asyncio.Future:
        start = start_profile(sandbox=sandbox)
        window = launch.first_window(start)
        task = asyncio.ensure_future(app_module.run(window, sandbox=start.training))
        tasks.append(task)
        return task

    yield start
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, SetupDialog) and widget.isVisible():
            widget.done(0)
        elif isinstance(widget, MainWindow) and widget.isVisible():
            widget.close()
    qtbot.waitUntil(lambda: all(task.done() for task in tasks), timeout=20_000)
