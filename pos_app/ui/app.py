"""``pos-app`` (no command): the cashier app on qasync.

``pos-app --sandbox`` serves the built-in sandbox in this process and opens the app on
it in training mode (demo staff: PIN 1111 cashier, 9999 manager), with its own data
folder so training never mixes with a store's journal. Otherwise the app reads the same
settings as the command line (``store.toml``, keyring, ``POS_*``); when they are missing or
cannot be used, the setup screen (``pos_app.ui.setup``) asks for them, or starts training.

The window comes first: its sign-in screen is painted and takes the PIN while, off the Qt
thread, the settings are checked (keyring) and the counter opens (catalog, staff file,
saved cart: light modules, local files); a PIN entered meanwhile waits for it, and a PIN
being typed is worked out ahead (``Counter.pin_ahead``). Then, while the cashier signs in
and scans, the payment side opens (the client, pydantic, the journal and, in training,
the sandbox's web stack: most of a start's imports). Recovery and the catalog sync follow
in the background. The one ``httpx.AsyncClient`` and the journal thread are closed when
the window closes, while the event loop still runs; then the loop ends and Qt quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pos_app.config import (
    THEMES,
    ConfigError,
    StoreConfig,
    data_dir,
    key_hash,
    load_config,
    profile_path,
    read_profile,
    setup_logging,
)
from pos_app.ui import main_window
from pos_app.ui.dialogs import shown
from pos_app.ui.main_window import MainWindow
from pos_app.ui.qt import QApplication, QMessageBox, qasync
from pos_app.ui.theme import apply_theme

if TYPE_CHECKING:
    from pos_app.sandbox.config import SandboxConfig
    from pos_app.sandbox.server import SandboxServer
    from pos_app.station.counter import Counter
    from pos_app.station.station import Station
    from pos_app.ui.setup import SetupOutcome

log = logging.getLogger(__name__)

TRAINING_TERMINAL = "ts-1001"
FIRST_PAINT_WAIT_S = 0.5
SWITCH_INTERVAL_S = 0.001
"""How long a worker thread may hold the GIL while the Qt thread waits for it (Python's
default is 5 ms). The start imports on worker threads while the screen takes keys and
paints, and every event that reaches Python code waits for a turn: 1 ms turns keep those
waits short."""
COUNTER_MODULES = ("pos_app.station.counter", *main_window.COUNTER_MODULES)
STATION_MODULES = ("pos_app.station.station", "pos_app.catalog.sync", *main_window.STATION_MODULES)
FIRST_REQUEST_MODULES = ("anyio._backends._asyncio",)
"""What the HTTP stack imports at its first request (httpcore's asyncio backend, through
anyio): imported with the station's modules, off the Qt thread, when present."""


class StartProblem(Exception):
    """The station cannot open; the message says why and what to do."""


def main(*, sandbox: bool = False) -> int:
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("pos-app")
    app.setQuitOnLastWindowClosed(False)
    try:
        return int(qasync.run(run(sandbox=sandbox)))
    except KeyboardInterrupt:
        return 130


async def run(*, sandbox: bool) -> int:
    # plain worker threads for asyncio.to_thread: no Qt objects live outside the Qt thread
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(thread_name_prefix="worker"))
    window = MainWindow(asyncio.Event(), training=sandbox)
    if sandbox:
        show(window, "light")
        await on_screen(window)
        return await run_training(window)
    theme = await asyncio.to_thread(profile_theme)
    if theme is not None:  # settings to start with: the sign-in screen now, the checks meanwhile
        show(window, theme)
        await on_screen(window)
    try:
        config, secret = await asyncio.to_thread(settings)
    except ConfigError as error:
        window.hide()
        outcome = await first_run(error)
        if outcome is None:
            return 1
        if outcome.sandbox:
            window.banner.show()
            return await run_training(window)
        assert outcome.config is not None and outcome.secret is not None
        config, secret = outcome.config, outcome.secret
    return await run_store(window, config, secret)


def settings() -> tuple[StoreConfig, str]:
    """The checked settings and the key-hash (the OS keyring: D-Bus); off the Qt thread."""
    config = load_config()
    return config, key_hash(config)


def profile_theme(env: Mapping[str, str] = os.environ) -> str | None:
    """The theme ``store.toml`` names, read before the settings are checked so that the
    first screen is painted in it; None when there are no settings to start with (the
    setup screen comes first)."""
    path = profile_path(data_dir(env))
    try:
        values = read_profile(path) if path.exists() else {}
    except ConfigError:
        return None
    if "base_url" not in values and not env.get("POS_BASE_URL"):
        return None
    theme = values.get("theme")
    return theme if theme in THEMES else "light"


def show(window: MainWindow, theme: str) -> None:
    """Show ``window`` in ``theme`` (the style sheet is applied only when it changes)."""
    use_theme(theme)
    window.show()


async def on_screen(window: MainWindow) -> None:
    """Until the sign-in screen has been painted, so that the start's heavy work (imports
    on a worker thread still take turns with the Qt thread) does not delay it; at most
    ``FIRST_PAINT_WAIT_S`` (a window that is not exposed is not painted)."""
    painted = asyncio.Event()
    window.sign_in.painted.connect(painted.set)
    if not window.sign_in.was_painted:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(painted.wait(), FIRST_PAINT_WAIT_S)


def use_theme(name: str) -> None:
    app = QApplication.instance()
    if app.property("posTheme") != name:
        apply_theme(app, name)  # type: ignore[arg-type]
        app.setProperty("posTheme", name)


async def first_run(problem: ConfigError) -> SetupOutcome | None:
    """The setup screen, for settings that are missing or cannot be used; None if closed."""
    from pos_app.ui.setup import SetupDialog  # only on a first run: not part of every start-up

    use_theme("light")
    dialog = SetupDialog(data_dir(), str(problem))
    await shown(dialog)
    outcome = dialog.outcome
    dialog.deleteLater()
    return outcome


async def run_training(window: MainWindow) -> int:
    """Training mode: the built-in sandbox served in this process, demo staff, its own data
    folder. The counter opens first (sign-in and the sale screen), then the sandbox starts
    (its web stack is a large part of a start's imports) and the station opens on it."""
    from pos_app.sandbox.config import SandboxConfig

    sandbox = SandboxConfig()
    config = training_config()
    try:
        await asyncio.to_thread(setup_logging, config, sandbox.key_s)
        counter = await open_counter(window, config, training=True)
    except (StartProblem, OSError) as problem:
        QMessageBox.critical(window, "pos-app cannot start", _start_problem(problem))
        return 1
    try:
        server = await asyncio.to_thread(start_sandbox, sandbox)
    except OSError as error:
        await counter.aclose()
        QMessageBox.critical(window, "pos-app cannot start", _start_problem(error))
        return 1
    try:
        return await run_station(window, counter, replace(config, base_url=server.base_url), server.keys["S"],
                                 training=True)
    finally:
        server.stop()


def start_sandbox(config: SandboxConfig) -> SandboxServer:
    from pos_app.sandbox.server import SandboxServer

    server = SandboxServer(config)
    server.start()
    return server


async def run_store(window: MainWindow, config: StoreConfig, secret: str) -> int:
    """A store's station on its settings: logging, the counter, then the station."""
    try:
        await asyncio.to_thread(setup_logging, config, secret)
        counter = await open_counter(window, config, training=False)
    except (StartProblem, OSError) as problem:
        QMessageBox.critical(window, "pos-app cannot start", _start_problem(problem))
        return 1
    return await run_station(window, counter, config, secret)


async def open_counter(window: MainWindow, config: StoreConfig, *, training: bool) -> Counter:
    """The counter (catalog, staff file, saved cart), attached to the window (shown now if
    it was not yet: after the setup screen): the PIN is checked and the sale screen can
    be used from here on. Its modules are imported on a worker thread first.
    ``StartProblem`` when it cannot open."""
    await asyncio.to_thread(import_modules, COUNTER_MODULES)
    from pos_app.catalog import CatalogError
    from pos_app.receipts.money import set_default_locale
    from pos_app.staff import StaffError
    from pos_app.station.counter import Counter
    from pos_app.station.events import EventBus

    set_default_locale(config.locale)  # the screens and the receipts write money the store's way
    try:
        counter = await Counter.open(config, EventBus(), training=training)
    except (CatalogError, StaffError, OSError) as error:
        raise StartProblem(_start_problem(error)) from None
    window.attach_counter(counter)
    show(window, config.theme)
    return counter


async def run_station(window: MainWindow, counter: Counter, config: StoreConfig, secret: str, *,
                      training: bool = False) -> int:
    """Open the payment side and attach it; returns when the window has closed and all is
    shut (the counter too)."""
    try:
        station = await open_station(config, secret, counter, training=training) \
            if not window.closed.is_set() else None  # not closed while the counter opened
    except StartProblem as problem:
        await counter.aclose()
        QMessageBox.critical(window, "pos-app cannot start", str(problem))
        return 1
    if station is not None and not window.closed.is_set():
        window.attach_station(station)
        startup = asyncio.ensure_future(start_up(station, counter))
        await window.closed.wait()
        startup.cancel()
        await asyncio.gather(startup, return_exceptions=True)
    await counter.aclose()
    if station is not None:
        await station.aclose()
    return 0


async def open_station(config: StoreConfig, secret: str, counter: Counter, *, training: bool) -> Station:
    """The payment side (client, journal thread, terminal service) on the counter's event
    stream. Its modules are imported on a worker thread first: the Qt thread keeps
    painting and taking keys meanwhile. ``StartProblem`` when it cannot open."""
    await asyncio.to_thread(import_modules, STATION_MODULES, FIRST_REQUEST_MODULES)
    from pos_app.journal import JournalError
    from pos_app.station.station import Station

    try:
        return await Station.open(config, secret, training=training, events=counter.events)
    except (ConfigError, JournalError, OSError) as error:
        raise StartProblem(_start_problem(error)) from None


def import_modules(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Import ``names``, then ``optional`` (skipping any a library version lacks)."""
    for name in names:
        importlib.import_module(name)
    for name in optional:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


async def start_up(station: Station, counter: Counter) -> None:
    """Settle what a crash left in flight, then refresh the catalog (the old copy serves
    meanwhile)."""
    try:
        await station.recover()
    except Exception:  # noqa: BLE001 - recovery is retried by the next money-moving command
        log.exception("start-up recovery failed")
    await counter.sync_catalog()


def training_config(base_url: str = "") -> StoreConfig:
    """The demo store on the built-in sandbox: its own data folder, a type S terminal. The
    sandbox's ``base_url`` is known once it serves; the counter opens before that."""
    return replace(StoreConfig(base_url=base_url), store_id="demo", store_name="Corner Market (training)",
                   station_id="lane-1", terminal_id=TRAINING_TERMINAL, poll_wait_limit=60.0,
                   data_dir=Path(data_dir()) / "training")


def _start_problem(error: Exception) -> str:
    if isinstance(error, ConfigError):
        return (f"{error}\n\nTo try the app without a merchant account, start it with "
                "`pos-app --sandbox` (training mode).")
    return f"{error}"
