"""One app per data folder (row 14: two apps on one folder both saved cart.json, and after
a kill one cart was gone). The real app, started twice on one folder (child processes,
offscreen): the second says so on stderr and exits 1, the first keeps running with its
cart as it was; a terminal command on the folder still works meanwhile; once the first
is killed -9, the OS has let go of its lock and the next app starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pos_app.cart import Cart, CartStore
from pos_app.catalog import CatalogItem
from pos_app.folder_lock import holder
from tests.terminal.cli_runner import cli_env, run_cli
from tests.waiting import wait_until

START_S = 60.0  # a cold start of the app on a loaded 2-core machine


def app_env(sandbox, folder: Path) -> dict[str, str]:
    """A set-up store station on ``folder``: the sandbox's type S merchant by env vars."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POS_")}
    env.update(QT_QPA_PLATFORM="offscreen", POS_DATA_DIR=str(folder), POS_BASE_URL=sandbox.base_url,
               POS_KEY_HASH=sandbox.keys["S"], POS_TERMINAL_ID="ts-1001")
    return env


def start_app(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pos_app"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def saved_cart(folder: Path) -> tuple[str, int]:
    cart = CartStore(folder / "cart.json").load()
    assert cart is not None
    return cart.order_key, cart.units


@pytest.mark.slow
def test_a_second_app_on_the_same_folder_says_so_and_exits_and_the_first_keeps_its_cart(sandbox, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    store = CartStore(folder / "cart.json")
    ringing = Cart(on_change=store.save)  # the sale in progress the first app will have
    ringing.add(CatalogItem(id="id-novel", name="The Quiet Harbor", sku="098765432109", price_cents=1999,
                            category="Fiction"), 2)
    env = app_env(sandbox, folder)
    apps = [start_app(env)]
    try:
        first = apps[0]
        wait_until(lambda: (folder / "journal.sqlite3").exists() or first.poll() is not None, timeout=START_S,
                   what="the first app open (its payment side too)")
        assert first.poll() is None, first.stderr.read()

        second = subprocess.run([sys.executable, "-m", "pos_app"], env=env, capture_output=True, text=True,
                                timeout=START_S)
        assert second.returncode == 1 and holder(folder) == first.pid
        assert (f"pos-app cannot start: pos-app is already open on this data folder: use its window (process "
                f"{first.pid}, {folder}).") in second.stderr
        assert "Traceback" not in second.stderr
        assert first.poll() is None and saved_cart(folder) == (ringing.order_key, 2)

        command = run_cli(cli_env(sandbox, "S", folder), "terminal", "list")  # one-shot commands share the folder
        assert command.code == 0, command.payload

        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        apps.append(start_app(env))
        third = apps[1]
        wait_until(lambda: holder(folder) == third.pid or third.poll() is not None, timeout=START_S,
                   what="the next app holding the folder the killed one held")
        assert third.poll() is None, third.stderr.read()
        log = folder / "logs" / "app.log"
        wait_until(lambda: log.read_text(encoding="utf-8").count(f"starting on {folder}") == 2, timeout=START_S,
                   what="the first and the third app's start in app.log")
        assert saved_cart(folder) == (ringing.order_key, 2)
    finally:
        for app in apps:
            if app.poll() is None:
                app.kill()
            app.wait(timeout=10)
            app.stderr.close()
