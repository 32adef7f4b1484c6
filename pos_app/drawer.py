"""The cash drawer: it opens on the ESC/POS pulse, sent the way the store wired it.

Setting ``cash_drawer`` (``POS_CASH_DRAWER``): ``printer`` sends the pulse as a raw job to the
receipt printer's queue (a drawer plugged into the printer's kick port: CUPS ``lp -o raw``,
the Windows spooler's RAW datatype); a path writes it to that device or file (a drawer on
its own port, appended); unset means no drawer (the cashier opens it by hand). The drawer
opens only after the cash is in the journal, and a drawer that cannot be reached is a
sentence for the cashier, never an error: the money is recorded either way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

log = logging.getLogger(__name__)

PULSE = bytes((0x1B, 0x70, 0x00, 0x19, 0xFA))
"""ESC p 0 25 250: pulse pin 2 for 50 ms on, 500 ms off (the common drawer kick)."""
PRINTER = "printer"
"""The ``cash_drawer`` value that sends the pulse through the receipt printer."""
LP_TIMEOUT = 10.0
NO_DRAWER = "Open the cash drawer by hand: no drawer is connected to this station."


class DrawerState(StrEnum):
    OPENED = "opened"
    """The pulse was handed over (the printer's queue took it, or the device wrote it)."""
    NO_DRAWER = "no drawer"
    FAILED = "failed"


@dataclass(frozen=True)
class DrawerResult:
    state: DrawerState
    sentence: str
    """What the cashier is told."""


def check_drawer(value: str | None, printer: str | None) -> str | None:
    """The ``cash_drawer`` setting checked: ``printer`` (with a printer set), an absolute
    path, or unset; ``ValueError`` saying what to write otherwise."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value == PRINTER:
        if not printer:
            raise ValueError('"printer" sends the drawer pulse through the receipt printer, and no printer is set '
                             "(set printer, or give the drawer's device path, e.g. /dev/usb/lp0)")
        return value
    if not Path(value).is_absolute():
        raise ValueError(f'{value!r} is neither "printer" nor an absolute path of the drawer\'s device or file '
                         "(e.g. /dev/usb/lp0, COM3 on Windows is \\\\.\\COM3)")
    return value


class CashDrawer:
    """One station's drawer (see the module docstring)."""

    def __init__(self, setting: str | None, printer: str | None) -> None:
        self.setting = setting
        self.printer = printer

    def open(self, reason: str) -> DrawerResult:
        """Send the pulse (blocking: ``aopen`` runs it off the event loop)."""
        if not self.setting:
            return DrawerResult(DrawerState.NO_DRAWER, NO_DRAWER)
        try:
            where = self._through_printer() if self.setting == PRINTER else self._to_device(Path(self.setting))
        except DrawerError as error:
            log.warning("cash drawer not opened (%s): %s", reason, error)
            return DrawerResult(DrawerState.FAILED, f"The cash drawer did not open ({error}): open it with its key.")
        log.info("cash drawer opened (%s) through %s", reason, where)
        return DrawerResult(DrawerState.OPENED, "The cash drawer is open.")

    async def aopen(self, reason: str) -> DrawerResult:
        return await asyncio.to_thread(self.open, reason)

    def _to_device(self, path: Path) -> str:
        try:
            with path.open("ab", buffering=0) as device:
                device.write(PULSE)
        except OSError as error:
            raise DrawerError(f"{path}: {error.strerror or error}") from error
        return str(path)

    def _through_printer(self) -> str:
        assert self.printer is not None  # check_drawer: "printer" needs one
        if sys.platform == "win32":
            return self._windows_spooler(self.printer)
        lp = shutil.which("lp")
        if lp is None:
            raise DrawerError("no lp command: the print system (CUPS) is not installed")
        try:
            done = subprocess.run([lp, "-d", self.printer, "-o", "raw", "-t", "cash drawer"], input=PULSE,
                                  capture_output=True, timeout=LP_TIMEOUT, check=False,
                                  env={**os.environ, "LC_ALL": "C", "LANG": "C"})
        except subprocess.TimeoutExpired:
            raise DrawerError(f"the print system did not answer within {LP_TIMEOUT:g} s") from None
        except OSError as error:
            raise DrawerError(f"lp could not start: {error.strerror or error}") from error
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
            raise DrawerError(f"printer {self.printer!r} refused the pulse: {said[-1] if said else done.returncode}")
        return f"printer {self.printer}"

    @staticmethod
    def _windows_spooler(printer: str) -> str:  # pragma: no cover - Windows only
        try:
            import win32print  # type: ignore[import-untyped]
        except ImportError:
            raise DrawerError("the Windows print spooler cannot be reached from this build (pywin32 is missing)") \
                from None
        handle = win32print.OpenPrinter(printer)
        try:
            win32print.StartDocPrinter(handle, 1, ("cash drawer", None, "RAW"))
            try:
                win32print.WritePrinter(handle, PULSE)
            finally:
                win32print.EndDocPrinter(handle)
        finally:
            win32print.ClosePrinter(handle)
        return f"printer {printer}"


class DrawerError(Exception):
    """The pulse could not be handed over (why, in words)."""
