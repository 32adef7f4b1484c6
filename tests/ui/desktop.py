"""The real app on a real X server, driven as a person would: xdotool keys, windows found by
title, what CUPS printed read back with pdftotext, the saved cart counted, the screen shot."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.terminal.cli_runner import cli_command
from tests.ui.helpers import SCREENS
from tests.waiting import wait_until


def store_station(env: dict[str, str], sandbox: Any, folder: Path, printer: str, settings: str = "") -> Path:
    """A store's station for the real app in ``env``: its store.toml (Harbor Street Market,
    lane-7, then ``settings``), the type S terminal of the sandbox, ``printer``, a cash
    drawer device (the file ``folder/drawer``, existing before the app opens it). Its data
    folder."""
    data = folder / "data"
    data.mkdir()
    (data / "store.toml").write_text('store_id = "e2e"\nstore_name = "Harbor Street Market"\n'
                                     f'station_id = "lane-7"\n{settings}')
    (folder / "drawer").touch()
    env.update(POS_BASE_URL=sandbox.base_url, POS_KEY_HASH=sandbox.keys["S"], POS_DATA_DIR=str(data),
               POS_TERMINAL="ts-1001", POS_PRINTER=printer, POS_CASH_DRAWER=str(folder / "drawer"))
    return data


def add_staff(env: dict[str, str], name: str, role: str, pin: str) -> None:
    """``pos-app staff add`` as a store's set-up does, the PIN on stdin."""
    added = subprocess.run(cli_command("staff", "add", name, "--role", role, "--pin-from-stdin"), env=env,
                           input=f"{pin}\n", capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stdout + added.stderr


def barcodes(sandbox: Any, count: int) -> list[str]:
    """``count`` barcodes of the sandbox's catalog priced above a dollar."""
    items = httpx.get(f"{sandbox.base_url}/public/item", params={"page": 1, "limit": 30},
                      headers={"key-hash": sandbox.keys["S"]}).json()["data"]
    return [item["sku"] for item in items if item.get("sku") and float(item["salesPrice"]) > 1][:count]


def xdotool(env: dict[str, str], *args: str) -> str:
    """Run xdotool on the display of ``env``; its output ("" when it failed)."""
    done = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else ""


def window_named(env: dict[str, str], name: str) -> str:
    """The id of the first visible window whose title holds ``name``, once there is one."""
    return wait_until(lambda: xdotool(env, "search", "--onlyvisible", "--name", name).split("\n")[0],
                      timeout=30, what=f"a window named {name!r}")


def printed_texts(cups_pdf: Any, since: float, *words: str) -> list[str]:
    """The texts (pdftotext -layout) of the PDFs cups-pdf wrote since ``since`` that hold every
    one of ``words``."""
    texts = []
    for folder in cups_pdf.folders:
        for path in sorted(folder.glob("*.pdf")) if folder.is_dir() else ():
            if path.stat().st_mtime >= since - 1:
                text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                                      text=True).stdout
                if all(word in text for word in words):
                    texts.append(text)
    return texts


def printed_receipt(cups_pdf: Any, since: float, *words: str, copies: int = 1) -> str:
    """The text of a PDF cups-pdf wrote since ``since`` that holds every one of ``words``,
    once ``copies`` such PDFs are there."""
    found = wait_until(lambda: (texts := printed_texts(cups_pdf, since, *words)) and len(texts) >= copies and texts,
                       timeout=60, interval=0.2, what=f"{copies} PDF(s) printed by CUPS with {words}")
    return found[0]


def cart_lines(data_dir: Path) -> int:
    """Lines of the cart the app saved (-1 while there is no readable cart file)."""
    try:
        return len(json.loads((data_dir / "cart.json").read_text())["lines"])
    except (OSError, ValueError, KeyError):
        return -1


def shoot(env: dict[str, str], name: str) -> None:
    """The whole X screen of ``env`` to ``build/screens/<name>.png``."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["import", "-window", "root", str(SCREENS / f"{name}.png")], env=env, timeout=30)


def sign_in(env: dict[str, str], log: Path, pin: str, name: str) -> None:
    """The PIN typed on the sign-in screen and Enter, once the app logs ``name`` signed in."""
    xdotool(env, "type", "--delay", "40", pin)
    xdotool(env, "key", "Return")
    wait_until(lambda: f"signed in: {name}" in log.read_text(), timeout=20, what="signed in")


def scan(env: dict[str, str], data_dir: Path, codes: list[str]) -> None:
    """A keyboard-wedge scanner: each code's digits, then Enter, once the cart saved its line."""
    before = max(cart_lines(data_dir), 0)
    for count, code in enumerate(codes, start=before + 1):
        xdotool(env, "type", "--delay", "20", code)
        xdotool(env, "key", "Return")
        wait_until(lambda count=count: cart_lines(data_dir) == count, timeout=20, what=f"{count} line(s)")


def attach_customer(env: dict[str, str], data_dir: Path, keyword: str, name: str) -> None:
    """F6, ``keyword`` typed, Enter: the one customer found attached (the saved cart names ``name``)."""
    xdotool(env, "key", "F6")
    xdotool(env, "windowactivate", "--sync", window_named(env, "Customer"))
    xdotool(env, "type", "--delay", "40", keyword)
    xdotool(env, "key", "Return")
    wait_until(lambda: name in (data_dir / "cart.json").read_text(), timeout=20, what=f"{name} attached")


@dataclass(frozen=True)
class RunningApp:
    process: subprocess.Popen[str]
    window: str
    """The main window's X id."""
    log: Path


@contextmanager
def running_app(env: dict[str, str], data_dir: Path) -> Iterator[RunningApp]:
    """The real app started in ``env``, its window active and its catalog synced; killed
    at the end if it is still up (``close_app`` ends it as a person does)."""
    process = subprocess.Popen(cli_command(), env=env, stderr=subprocess.PIPE, text=True)
    try:
        window = window_named(env, "pos-app —")
        xdotool(env, "windowactivate", "--sync", window)
        log = data_dir / "logs" / "app.log"
        wait_until(lambda: log.exists() and "catalog synced" in log.read_text(), timeout=30, what="catalog sync")
        yield RunningApp(process, window, log)
    finally:
        if process.poll() is None:  # the test failed with the app still up
            process.kill()


def close_app(env: dict[str, str], app: RunningApp) -> None:
    """Alt+F4 on the main window: the app ends with 0 and no traceback."""
    xdotool(env, "windowactivate", "--sync", app.window)
    xdotool(env, "key", "alt+F4")
    assert app.process.wait(timeout=30) == 0
    assert app.process.stderr is not None and "Traceback" not in app.process.stderr.read()
