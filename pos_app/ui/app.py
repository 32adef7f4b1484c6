"""``pos-app`` (no command): the cashier app on qasync.

``pos-app --sandbox`` serves the built-in sandbox in this process and opens the app on
it in training mode (demo staff: PIN 1111 cashier, 9999 manager), with its own data
folder so training never mixes with a store's journal. Otherwise the app reads the same
settings as the command line (``store.toml``, keyring, ``POS_*``); when they are missing or
cannot be used, the setup screen (``pos_app.ui.setup``) asks for them, or starts training.

The window comes first (``pos_app.ui.launch`` shows it before this module and asyncio are
imported): its sign-in screen is painted and takes the PIN while, off the Qt thread, the
settings are checked (keyring) and the counter opens (catalog, staff file,
saved cart: light modules, local files); a PIN entered meanwhile waits for it, and a PIN
being typed is worked out ahead (``Counter.pin_ahead``). Then, while the cashier signs in
and scans, the payment side opens (the client, pydantic, the journal and, in training,
the sandbox's web stack: most of a start's imports, which wait while a PIN is checked:
``pos_app.give_way``). Recovery and the catalog sync follow
in the background. The one ``httpx.AsyncClient`` and the journal thread are closed when
the window closes, while the event loop still runs; then the loop ends and Qt quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import sys
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from pos_app import __version__
from pos_app.give_way import background
from pos_app.i18n import _
from pos_app.profile import ConfigError, data_dir, training_data_dir
from pos_app.ui import failures
from pos_app.ui.main_window import MainWindow
from pos_app.ui.theme import show_in_theme, use_theme

if TYPE_CHECKING:
    from pos_app.config import StoreConfig
    from pos_app.folder_lock import AppLock
    from pos_app.sandbox.config import SandboxConfig
    from pos_app.sandbox.server import SandboxServer
    from pos_app.station.counter import Counter
    from pos_app.station.station import Station
    from pos_app.ui.setup import SetupOutcome

log = logging.getLogger(__name__)

TRAINING_TERMINAL = "ts-1001"
COUNTER_MODULES = ("pos_app.station.counter",)
STATION_MODULES = ("pos_app.station.station", "pos_app.catalog.sync", "pos_app.station.back_office",
                   "pos_app.station.receipt", "pos_app.api.errors")
"""The Qt-free modules of each step, imported on a worker thread. Never a ui module: PySide6
sets its types and enums up at first use, and not safely from two threads at once (a
worker importing the payment dialogs while the screen painted made ``Qt.ItemDataRole``
vanish for a moment)."""
FIRST_REQUEST_MODULES = ("anyio._backends._asyncio",)
"""What the HTTP stack imports at its first request (httpcore's asyncio backend, through
anyio): imported with the station's modules, off the Qt thread, when present."""
HEADLESS_PLATFORMS = ("offscreen", "minimal")
"""Qt platforms with no screen a person sees."""


class StartProblem(Exception):
    """The station cannot open; the message says why and what to do."""


async def run(window: MainWindow, *, sandbox: bool) -> int:
    """The start on qasync, from the window ``pos_app.ui.launch`` has shown (or not yet:
    without settings the setup screen comes first); returns the exit code."""
    loop = asyncio.get_running_loop()
    # plain worker threads for asyncio.to_thread (no Qt objects live outside the Qt thread),
    # whose imports wait while a PIN is checked (pos_app.give_way)
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="worker", initializer=background))
    restore_hooks = failures.install(window.status.setText, loop)  # no error fails silently from here on
    try:
        return await open_and_run(window, sandbox=sandbox)
    finally:
        restore_hooks()


async def open_and_run(window: MainWindow, *, sandbox: bool) -> int:
    """Training, or the store on its settings (the setup screen first when they are
    missing or cannot be used), until the window closes; the exit code."""
    if sandbox:
        return await run_training(window)
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
    """The checked settings and the key-hash (the OS keyring: D-Bus); off the Qt thread,
    as is the settings model's import (pydantic)."""
    from pos_app.config import key_hash, load_config

    config = load_config()
    return config, key_hash(config)


async def first_run(problem: ConfigError) -> SetupOutcome | None:
    """The setup screen, for settings that are missing or cannot be used; None if closed."""
    from pos_app.ui.dialogs import shown
    from pos_app.ui.setup import SetupDialog  # only on a first run: not part of every start-up

    use_theme("light")
    dialog = SetupDialog(data_dir(), problem)
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
    config = await asyncio.to_thread(training_config)  # the settings model's import: off the Qt thread
    async with own_folder(window, config.data_dir) as owned:
        counter = await begin(window, config, sandbox.key_s, training=True) if owned else None
        if counter is None:
            return 1
        try:
            server = await asyncio.to_thread(start_sandbox, sandbox)
        except OSError as error:
            await counter.aclose()
            cannot_start(window, _start_problem(error))
            return 1
        try:
            return await run_station(window, counter, config.replace(base_url=server.base_url), server.keys["S"],
                                     training=True)
        finally:
            server.stop()


def start_sandbox(config: SandboxConfig) -> SandboxServer:
    from pos_app.sandbox.server import SandboxServer

    server = SandboxServer(config)
    server.start()
    return server


async def run_store(window: MainWindow, config: StoreConfig, secret: str) -> int:
    """A store's station on its settings: its data folder held, logging, the counter, then
    the station."""
    async with own_folder(window, config.data_dir) as owned:
        counter = await begin(window, config, secret, training=False) if owned else None
        if counter is None:
            return 1
        return await run_station(window, counter, config, secret)


@contextlib.asynccontextmanager
async def own_folder(window: MainWindow, folder: Path) -> AsyncIterator[bool]:
    """Hold the data folder while the body runs, one app per folder (two would both save
    the cart): True; False, once the cashier has been told which app holds it."""
    try:
        lock = await asyncio.to_thread(hold_folder, folder)
    except StartProblem as problem:
        window.hide()  # the sentence alone, not a second sign-in screen behind it
        cannot_start(window, str(problem))
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def hold_folder(folder: Path) -> AppLock:
    """This app's lock on ``folder`` (``pos_app.folder_lock``; filelock is imported here,
    off the Qt thread); ``StartProblem`` naming the app that holds it, or why it cannot be
    taken."""
    from pos_app.folder_lock import AlreadyOpen, AppLock

    try:
        return AppLock(folder).acquire()
    except AlreadyOpen as refused:
        raise StartProblem(str(refused)) from refused
    except OSError as error:
        raise StartProblem(_("the data folder {folder} cannot be used ({error}): check its permissions, or set "
                             "POS_DATA_DIR to another").format(folder=folder, error=error.strerror or error)) from error


async def begin(window: MainWindow, config: StoreConfig, secret: str, *, training: bool) -> Counter | None:
    """Logging (``secret`` redacted from it), then the counter attached to the window; None,
    once the cashier has been told why, when either cannot start."""
    try:
        await asyncio.to_thread(start_logging, config.data_dir, secret)
        log.info("pos-app %s starting on %s%s", __version__, config.data_dir, " (training)" if training else "")
        return await open_counter(window, config, training=training)
    except (StartProblem, OSError) as problem:
        cannot_start(window, _start_problem(problem))
        return None


def start_logging(folder: Path, secret: str) -> None:
    """The app's log file, ``secret`` redacted (``pos_app.logs``, imported here: off the Qt
    thread)."""
    from pos_app.api.secrets import RedactingFilter, Redactor
    from pos_app.logs import ProcessKind, configure_logging

    configure_logging(folder, ProcessKind.APP, RedactingFilter(Redactor([secret])))


async def open_counter(window: MainWindow, config: StoreConfig, *, training: bool) -> Counter:
    """The counter (catalog, staff file, saved cart), attached to the window (shown now if
    it was not yet: after the setup screen): the PIN is checked and the sale screen can
    be used from here on. Its modules are imported on a worker thread first.
    ``StartProblem`` when it cannot open."""
    await asyncio.to_thread(import_modules, COUNTER_MODULES)
    from pos_app.catalog import CatalogError
    from pos_app.staff import StaffError
    from pos_app.station.counter import Counter
    from pos_app.station.events import EventBus

    try:
        counter = await Counter.open(config, EventBus(), training=training)
    except (CatalogError, StaffError, OSError) as error:
        raise StartProblem(_start_problem(error)) from None
    window.attach_counter(counter)
    show_in_theme(window, config.theme)
    freeze_start_up_objects()  # the payment side's imports come next, while the PIN is typed
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
        cannot_start(window, str(problem))
        return 1
    if station is not None and not window.closed.is_set():
        window.attach_station(station)
        freeze_start_up_objects()
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


def freeze_start_up_objects() -> None:
    """Leave what the start made so far (modules, classes, the payment stack: most of the
    heap) out of the garbage collector's full passes from now on: each would otherwise walk
    all of it on the Qt thread, a 60-90 ms stall at a random moment (a payment's wait, a
    scan). Done once the counter is attached too: the payment side's imports (on a worker
    thread, holding the GIL) set off a full pass then, 27-36 ms while the PIN was typed."""
    gc.freeze()


def import_modules(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Import ``names``, then ``optional`` (skipping any a library version lacks)."""
    for name in names:
        importlib.import_module(name)
    for name in optional:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


async def start_up(station: Station, counter: Counter) -> None:
    """Count what the restored cart's order was charged, settle what a crash left in
    flight, then refresh the catalog (the old copy serves meanwhile)."""
    try:
        await counter.restore_order()
        await station.recover()
    except Exception:  # noqa: BLE001 - recovery is retried by the next money-moving command
        log.exception("start-up recovery failed")
    await counter.sync_catalog()


def training_config(base_url: str | None = None) -> StoreConfig:
    """The demo store on the built-in sandbox: its own data folder, a type S terminal. The
    sandbox's ``base_url`` is known once it serves (the counter opens before that: until
    then it is ``TRAINING_BASE_URL``)."""
    from pos_app.config import TRAINING_BASE_URL, StoreConfig
    from pos_app.membership_plans import DEMO_PLANS

    # the demo store's name is data, as any store's name: never translated
    return StoreConfig(base_url=base_url or TRAINING_BASE_URL, store_id="demo",
                       store_name="Corner Market (training)",  # not for people
                       station_id="lane-1", terminal_id=TRAINING_TERMINAL, poll_wait_limit=60.0,
                       memberships=DEMO_PLANS, data_dir=training_data_dir())


def cannot_start(window: MainWindow, text: str) -> None:
    """Say why the app cannot start, on stderr (the terminal that started it, a service's
    journal) and, when there is a screen, in a modal message; the app then exits. Without
    a screen (the ``offscreen`` or ``minimal`` platform) nobody could close the message:
    the app would wait for ever."""
    sys.stderr.write(_("pos-app cannot start: {problem}").format(problem=text) + "\n")
    sys.stderr.flush()
    from pos_app.ui.qt import QApplication, QMessageBox  # only when it is needed: not part of every start

    if QApplication.platformName() not in HEADLESS_PLATFORMS:
        QMessageBox.critical(window if window.isVisible() else None, _("pos-app cannot start"), text)


def _start_problem(error: Exception) -> str:
    if isinstance(error, ConfigError):
        return _("{problem}\n\nTo try the app without a merchant account, start it with `pos-app --sandbox` "
                 "(training mode).").format(problem=error)
    return f"{error}"
