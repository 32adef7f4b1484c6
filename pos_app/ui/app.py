"""``pos-app`` (no command): the cashier app on qasync.

``pos-app --sandbox`` serves the built-in sandbox in this process and opens the app on
it in training mode (demo staff: PIN 1111 cashier, 9999 manager), with its own data
folder so training never mixes with a store's journal. Otherwise the app reads the same
settings as the command line (``store.toml``, keyring, ``POS_*``); when they are missing or
cannot be used, the setup screen (``pos_app.ui.setup``) asks for them, or starts training.

The one ``httpx.AsyncClient`` and the journal thread are closed when the window closes,
while the event loop still runs; then the loop ends and Qt quits.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pos_app.config import ConfigError, StoreConfig, data_dir, key_hash, load_config, setup_logging
from pos_app.journal import JournalError
from pos_app.station.counter import Counter
from pos_app.station.station import Station
from pos_app.ui.dialogs import shown
from pos_app.ui.main_window import MainWindow
from pos_app.ui.qt import QApplication, QMessageBox, qasync
from pos_app.ui.theme import apply_theme

if TYPE_CHECKING:
    from pos_app.ui.setup import SetupOutcome

log = logging.getLogger(__name__)

TRAINING_TERMINAL = "ts-1001"


def main(*, sandbox: bool = False) -> int:
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
    if sandbox:
        return await run_training()
    try:
        config = load_config()
        secret = key_hash(config)
    except ConfigError as error:
        outcome = await first_run(error)
        if outcome is None:
            return 1
        if outcome.sandbox:
            return await run_training()
        assert outcome.config is not None and outcome.secret is not None
        config, secret = outcome.config, outcome.secret
    return await run_station(config, secret)


async def first_run(problem: ConfigError) -> SetupOutcome | None:
    """The setup screen, for settings that are missing or cannot be used; None if closed."""
    from pos_app.ui.setup import SetupDialog  # only on a first run: not part of every start-up

    apply_theme(QApplication.instance(), "light")  # type: ignore[arg-type]
    dialog = SetupDialog(data_dir(), str(problem))
    await shown(dialog)
    outcome = dialog.outcome
    dialog.deleteLater()
    return outcome


async def run_training() -> int:
    """Training mode: the built-in sandbox served in this process, demo staff, its own data folder."""
    from pos_app.sandbox.server import SandboxConfig, SandboxServer

    server = SandboxServer(SandboxConfig())
    try:
        server.start()
    except OSError as error:
        QMessageBox.critical(None, "pos-app cannot start", _start_problem(error))
        return 1
    try:
        return await run_station(training_config(server.base_url), server.keys["S"], training=True)
    finally:
        server.stop()


async def run_station(config: StoreConfig, secret: str, *, training: bool = False) -> int:
    """Open the station and its window; returns when the window has closed and all is shut."""
    try:
        setup_logging(config, secret)
        station = await Station.open(config, secret, training=training)
    except (ConfigError, JournalError, OSError) as error:
        QMessageBox.critical(None, "pos-app cannot start", _start_problem(error))
        return 1
    try:
        counter = await Counter.open(station)
    except BaseException:
        await station.aclose()
        raise
    apply_theme(QApplication.instance(), station.config.theme)  # type: ignore[arg-type]
    closed = asyncio.Event()
    window = MainWindow(station, counter, closed)
    window.show()
    startup = asyncio.ensure_future(start_up(station, counter))
    await closed.wait()
    startup.cancel()
    await asyncio.gather(startup, return_exceptions=True)
    await counter.aclose()
    await station.aclose()
    return 0


async def start_up(station: Station, counter: Counter) -> None:
    """Settle what a crash left in flight, then refresh the catalog (the old copy serves
    meanwhile)."""
    try:
        await station.recover()
    except Exception:  # noqa: BLE001 - recovery is retried by the next money-moving command
        log.exception("start-up recovery failed")
    await counter.sync_catalog()


def training_config(base_url: str) -> StoreConfig:
    """The demo store on the built-in sandbox: its own data folder, a type S terminal."""
    return replace(StoreConfig(base_url=base_url), store_id="demo", store_name="Corner Market (training)",
                   station_id="lane-1", terminal_id=TRAINING_TERMINAL, poll_wait_limit=60.0,
                   data_dir=Path(data_dir()) / "training")


def _start_problem(error: Exception) -> str:
    if isinstance(error, ConfigError):
        return (f"{error}\n\nTo try the app without a merchant account, start it with "
                "`pos-app --sandbox` (training mode).")
    return f"{error}"
