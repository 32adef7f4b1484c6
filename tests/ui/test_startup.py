"""Start-up: the window comes before the station. A PIN typed and Enter pressed on the
sign-in screen before the journal, catalog and staff file are open waits for them (no
lost keys, no frozen screen) and signs in as soon as they are; the real start path
(``pos_app.ui.launch``, then ``pos_app.ui.app.run``) does the same in training mode."""

from __future__ import annotations

import importlib.abc
import importlib.util
import subprocess
import sys

import pytest

from pos_app.ui.launch import import_under_qt_loop
from pos_app.ui.qt import Qt, QTimer
from pos_app.ui.sign_in import PinField
from tests.ui.helpers import StallProbe, main_window

STALL_LIMIT = 0.150
"""A stall a person would notice while typing; this process has the station's modules
imported already, so the fresh start is measured by tests/bench/bench_startup.py."""


def type_pin(qtbot, window, pin: str = "1111") -> None:
    qtbot.keyClicks(window.sign_in.pin, pin)
    qtbot.keyClick(window.sign_in.pin, Qt.Key.Key_Return)


def test_a_pin_entered_before_the_station_is_open_waits_for_it(qtbot, open_app, ui_config):
    seen: dict[str, object] = {}

    def before_open(window) -> None:
        type_pin(qtbot, window)
        qtbot.waitUntil(lambda: window.sign_in.message.text() != "")
        seen.update(message=window.sign_in.message.text(), enabled=window.sign_in.pin.isEnabled(),
                    attached=window.attached, title=window.windowTitle())

    app = open_app(ui_config, before_open=before_open)
    assert seen == {"message": "Starting… your PIN is checked in a moment.", "enabled": False, "attached": False,
                    "title": "pos-app — starting"}
    window = app.window
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.sale, timeout=10_000)
    assert window.who.text() == "Cashier: Demo Cashier" and app.counter.cashier.name == "Demo Cashier"
    assert window.windowTitle() == "pos-app — Corner Market (test) — lane-1"
    qtbot.waitUntil(lambda: window.sale.scan.hasFocus())


def test_a_wrong_pin_entered_early_is_refused_once_the_station_is_open(qtbot, open_app, ui_config):
    app = open_app(ui_config, before_open=lambda window: type_pin(qtbot, window, "1234"))
    sign_in = app.window.sign_in
    qtbot.waitUntil(lambda: sign_in.message.text().startswith("That PIN is not right"), timeout=10_000)
    assert sign_in.pin.isEnabled() and sign_in.pin.text() == ""
    type_pin(qtbot, app.window)
    qtbot.waitUntil(lambda: app.window.stack.currentWidget() is app.window.sale, timeout=10_000)


@pytest.mark.alone  # it bounds the longest stall
def test_the_real_start_takes_the_pin_at_once_and_the_screen_never_freezes(qtbot, start_app):  # noqa: F811
    """``pos-app --sandbox``: the PIN is typed as soon as the window shows, while the
    sandbox, the station's modules and files are still being opened; the Qt loop is
    probed every 5 ms meanwhile."""
    probe = StallProbe().start()
    task = start_app(sandbox=True)
    window = main_window(qtbot)
    assert window.banner.isVisible()
    type_pin(qtbot, window)
    qtbot.waitUntil(lambda: window.attached and window.stack.currentWidget() is window.sale, timeout=20_000)
    worst = probe.stop()
    assert window.station.training and window.who.text() == "Cashier: Demo Cashier"
    assert worst < STALL_LIMIT, f"longest stall {worst * 1000:.0f} ms"
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)
    assert task.result() == 0


class ImportProbe(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A module of its own name that notes, when imported, whether ``field`` was painted."""

    name = "pos_app_test_import_probe"

    def __init__(self, field) -> None:
        self.field = field
        self.painted_at_import: bool | None = None

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname == self.name else None

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        self.painted_at_import = self.field.was_painted

    def __enter__(self) -> ImportProbe:
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc) -> None:
        sys.meta_path.remove(self)
        sys.modules.pop(self.name, None)


def test_the_first_moments_import_only_once_the_pin_field_is_painted(qtbot, qapp):
    """The loader's imports would take the GIL's turns from the first paint's Python calls."""
    field = PinField()
    qtbot.addWidget(field)
    field.show()
    with ImportProbe(field) as probe:
        import_under_qt_loop(qapp, (ImportProbe.name,), after_paint_of=field)
    assert probe.painted_at_import is True


def test_the_first_moments_do_not_wait_for_a_window_that_is_never_painted(qtbot, qapp):
    field = PinField()  # never shown: the loader starts after FIRST_PAINT_WAIT_MS anyway
    qtbot.addWidget(field)
    with ImportProbe(field) as probe:
        import_under_qt_loop(qapp, (ImportProbe.name,), after_paint_of=field)
    assert probe.painted_at_import is False


def test_the_apps_entry_does_not_import_the_commands_parser():
    """``pos-app`` starts the app without argparse and json (a few ms of every start)."""
    code = "import sys, pos_app.cli; print(sorted({'argparse', 'json'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_the_first_moments_import_even_when_their_loop_is_ended_before_the_paint(qtbot, qapp):
    field = PinField()  # never shown, and the loop is quit from outside at once
    qtbot.addWidget(field)
    QTimer.singleShot(0, qapp.quit)
    with ImportProbe(field) as probe:
        import_under_qt_loop(qapp, (ImportProbe.name,), after_paint_of=field)
    assert probe.painted_at_import is False


def test_the_training_banner_never_opens_as_a_window_of_its_own(qtbot, qapp):
    """Shown before it is in the window, the banner would open as a top-level window for a
    moment (a flash on the screen, and some 8 ms of a start)."""
    from pos_app.ui.main_window import MainWindow
    from pos_app.ui.qt import QEvent, QObject

    shown: list[str] = []

    class Windows(QObject):
        def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Show and watched.isWidgetType() and watched.isWindow():
                shown.append(watched.objectName() or type(watched).__name__)
            return False

    windows = Windows()
    qapp.installEventFilter(windows)
    try:
        window = MainWindow(training=True)
    finally:
        qapp.removeEventFilter(windows)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert shown == [] and window.banner.isVisible()


def test_the_app_stops_pyside6_reading_the_source_of_each_module_it_imports():
    """PySide6 reads each imported module's source (its ``__feature__`` switches, which the
    app does not use): some 60 ms of a start's imports. Read sources land in ``linecache``."""
    code = ("import linecache, PySide6.QtWidgets\n"
            "from pos_app.ui.qt import QLabel\n"  # the first Qt name asked for stops it
            "import colorsys\n"
            "print(any(name.endswith('colorsys.py') for name in linecache.cache))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_a_pin_typed_before_the_counter_opens_is_worked_out_before_the_sale_screen_is_built(qtbot, run, ui_config):
    """The sign-in takes the counter first: the PIN's hash runs while the Qt thread builds
    the sale screen (25-45 ms), not after it."""
    from pos_app.station.counter import Counter
    from pos_app.station.events import EventBus
    from pos_app.ui.main_window import MainWindow

    window = MainWindow(training=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.keyClicks(window.sign_in.pin, "1111")
    counter = run(Counter.open(ui_config, EventBus(), training=True))
    asked: list[tuple[str, bool]] = []
    pin_ahead = counter.pin_ahead

    def watched(pin: str):
        asked.append((pin, hasattr(window, "sale")))
        return pin_ahead(pin)

    counter.pin_ahead = watched
    window.attach_counter(counter)
    assert asked == [("1111", False)] and hasattr(window, "sale")
    qtbot.keyClick(window.sign_in.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.sale, timeout=10_000)
    window.close()
    run(counter.aclose())
