"""``pos-app`` (no command): the app's first moments, before asyncio.

The window is built, shown and painted; then, while its PIN field takes keys, a worker
thread imports asyncio (tens of milliseconds, pure Python: a worker never sets up Qt
types, see ``pos_app.ui.app``) under a plain Qt event loop. Then the start goes on in
``pos_app.ui.app.run`` on qasync, with the same window (and any PIN typed meanwhile).
The worker starts only once the screen is painted: a first paint calls Python (the
window's own widgets), and every call waited for the worker's turn with the GIL, which
made the first paint some 25 ms later.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import TYPE_CHECKING

from pos_app.i18n import use_store_language
from pos_app.profile import StartProfile, start_profile
from pos_app.ui.language import show_screens_in
from pos_app.ui.main_window import MainWindow
from pos_app.ui.qt import QApplication, QTimer, run_async
from pos_app.ui.theme import show_in_theme

if TYPE_CHECKING:
    from pos_app.ui.sign_in import PinField

SWITCH_INTERVAL_S = 0.0002
"""How long a worker thread may hold the GIL while the Qt thread waits for it (Python's
default is 5 ms). The start imports on worker threads while the screen takes keys and
paints, and every call between Qt and Python code waits for a turn: a key typed, or the
sign-in's Enter, takes dozens of them. With 1 ms turns a key typed during the imports was
handled tens of milliseconds late (the last digit of a PIN up to 100 ms: its check began
that much later), and Enter to the sale screen took a median 0.10-0.12 s in
``tests/bench/bench_startup.py``; 0.01-0.035 s with 0.2 ms turns."""
LOOP_MODULES = ("asyncio", "concurrent.futures.thread")
"""What the qasync start needs that the first screen does not (and that sets no Qt up)."""
LOADED_POLL_MS = 2
"""How often the plain Qt loop of the first moments looks whether the loader is done."""
FIRST_PAINT_WAIT_MS = 500
"""The loader starts at the first paint, or after this long (a window that is not exposed
is not painted)."""


def main(*, sandbox: bool = False) -> int:
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("pos-app")
    app.setQuitOnLastWindowClosed(False)
    start = start_profile(sandbox=sandbox)
    use_store_language(start.language)
    show_screens_in(start.language)
    window = first_window(start)
    import_under_qt_loop(app, LOOP_MODULES, after_paint_of=window.sign_in.pin if window.isVisible() else None)
    from pos_app.ui.app import run

    try:
        return int(run_async(run(window, sandbox=start.training)))
    except KeyboardInterrupt:
        return 130


def first_window(start: StartProfile) -> MainWindow:
    """The cashier's window, shown at once on its sign-in screen in the profile's theme
    when there are settings to start with (training always has); hidden when the setup
    screen must come first."""
    window = MainWindow(training=start.training)
    if start.theme is not None:
        show_in_theme(window, start.theme)
    return window


def import_under_qt_loop(app: QApplication, modules: tuple[str, ...], *,
                         after_paint_of: PinField | None = None) -> None:
    """Import ``modules`` on a worker thread while a plain Qt loop runs (the window paints
    and takes keys), from ``after_paint_of``'s first paint on (at most
    ``FIRST_PAINT_WAIT_MS`` later) when given; returns once they are imported, raising what
    an import raised."""
    failures: list[BaseException] = []
    loaded = threading.Event()

    def load() -> None:
        try:
            for module in modules:
                importlib.import_module(module)
        except BaseException as error:  # noqa: BLE001 - raised again on the Qt thread
            failures.append(error)
        finally:
            loaded.set()

    loader = threading.Thread(target=load, name="loader", daemon=True)

    def start() -> None:
        if loader.ident is None and not loaded.is_set():
            try:
                loader.start()
            except RuntimeError as error:  # no thread to be had: said on the Qt thread, not lost in a slot
                failures.append(error)
                loaded.set()

    awaited = after_paint_of if after_paint_of is not None and not after_paint_of.was_painted else None
    if awaited is not None:
        awaited.painted.connect(start)
        QTimer.singleShot(FIRST_PAINT_WAIT_MS, start)
    else:
        start()
    poll = QTimer()
    poll.setInterval(LOADED_POLL_MS)
    poll.timeout.connect(lambda: loaded.is_set() and app.exit())
    poll.start()
    app.exec()
    poll.stop()
    if awaited is not None:
        awaited.painted.disconnect(start)
    start()  # the loop may have been ended before the paint (a quit from outside): the imports are still needed
    if loader.ident is not None:
        loader.join()
    if failures:
        raise failures[0]
