"""The cash drawer: opening it when cash changes hands, and a sentence when it cannot (no Qt).

A station's drawer is plugged into the receipt printer (the printer passes on an ESC/POS
pulse), or into a port of its own (the pulse is written to that device), or there is none
(it is opened with its key): the ``cash_drawer`` setting says which (``pos_app.config``).
Opening never raises: a drawer that cannot be reached is a ``DrawerResult`` telling the
cashier to use the key, so that a sale is never lost to a drawer. Each attempt is logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from pos_app.config import CASH_DRAWER_PRINTER
from pos_app.i18n import N_, _
from pos_app.receipts.printing import PrintError, print_raw

if TYPE_CHECKING:
    from pos_app.config import StoreConfig

logger = logging.getLogger(__name__)

PULSE = b"\x1b\x70\x00\x19\xfa"
"""ESC p 0 25 250 (ESC/POS): a pulse on the drawer kick-out connector's pin 2, on for 50 ms
(25 x 2 ms), then off for 500 ms."""
COMMAND_TIMEOUT = 5.0
"""Seconds each print system command may take (a local CUPS answers in milliseconds)."""
OPEN_TIMEOUT = 20.0
"""Seconds ``aopen`` waits for an open before saying the drawer did not answer."""
KEY = N_("open it with the key")
"""What the cashier does when the drawer did not open (ends each such sentence)."""


class DrawerKind(StrEnum):
    """Where the pulse goes: nowhere, the receipt printer's queue, or the drawer's own device."""

    NONE = "none"
    PRINTER = "printer"
    DEVICE = "device"


class DrawerState(StrEnum):
    """``OPENED``: the pulse was handed to the printer's queue or the device (a drawer says
    nothing back, so this is as far as the app can know); ``NO_DRAWER``: none set up;
    ``FAILED``: the pulse could not be sent."""

    OPENED = "opened"
    NO_DRAWER = "no_drawer"
    FAILED = "failed"


@dataclass(frozen=True)
class DrawerResult:
    """An open's outcome and the sentence the cashier reads; ``job_id`` names the print job
    that carried the pulse (printer drawers)."""

    state: DrawerState
    message: str
    job_id: str | None = None


@dataclass(frozen=True)
class CashDrawer:
    """One station's drawer: ``target`` is the printer's name (``PRINTER``) or the device's
    absolute path (``DEVICE``), None without a drawer."""

    kind: DrawerKind
    target: str | None = None
    timeout: float = OPEN_TIMEOUT

    def __post_init__(self) -> None:
        if (self.kind is DrawerKind.NONE) != (self.target is None):
            needs = "takes no" if self.kind is DrawerKind.NONE else "needs a"  # not for people
            raise ValueError(f"a {self.kind} drawer {needs} target")  # not for people

    @classmethod
    def from_config(cls, config: StoreConfig) -> CashDrawer:
        """The drawer the ``cash_drawer`` setting names (the settings' model has checked it)."""
        if config.cash_drawer is None:
            return cls(DrawerKind.NONE)
        if config.cash_drawer == CASH_DRAWER_PRINTER:
            return cls(DrawerKind.PRINTER, config.printer)
        return cls(DrawerKind.DEVICE, config.cash_drawer)

    def open(self, reason: str) -> DrawerResult:
        """Send the pulse (blocking: up to a few print system commands); never raises."""
        logger.info("cash drawer: opening (%s) through %s %s", reason, self.kind, self.target or "-")
        try:
            result = self._open()
        except Exception as error:  # a bug must not cost the sale: the cashier still has the key
            logger.exception("cash drawer: unexpected error")
            result = DrawerResult(DrawerState.FAILED, _not_opened(type(error).__name__))
        log = logger.warning if result.state is DrawerState.FAILED else logger.info
        log("cash drawer: %s (%s): %s", result.state, reason, result.message)
        return result

    async def aopen(self, reason: str) -> DrawerResult:
        """``open`` on a worker thread, answered within ``timeout`` seconds whatever happens
        (a hung device: the thread is left to finish, its result dropped)."""
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.open, reason), self.timeout)
        except TimeoutError:
            logger.warning("cash drawer: no answer within %g s (%s)", self.timeout, reason)
            text = _("The cash drawer did not answer within {seconds} s: {key}.")
            return DrawerResult(DrawerState.FAILED, text.format(seconds=f"{self.timeout:g}", key=_(KEY)))

    def _open(self) -> DrawerResult:
        if self.kind is DrawerKind.NONE or self.target is None:
            return DrawerResult(DrawerState.NO_DRAWER, _("No cash drawer is connected to this station: "
                                                         "open the drawer by hand."))
        if self.kind is DrawerKind.PRINTER:
            return _through_printer(self.target)
        return _to_device(self.target)


def _through_printer(printer: str) -> DrawerResult:
    try:
        # the print job's name in the print system's queue
        job = print_raw(PULSE, printer, title="pos-app cash drawer", timeout=COMMAND_TIMEOUT)  # not for people
    except PrintError as error:
        reason = str(error) if repr(printer) in str(error) else _("printer {printer}: {error}").format(
            printer=repr(printer), error=error)
        return DrawerResult(DrawerState.FAILED, _not_opened(reason))
    return DrawerResult(DrawerState.OPENED, _("The cash drawer was signalled to open through printer {printer} "
                                              "(if it stays shut, {key}).").format(printer=repr(printer), key=_(KEY)),
                        job.job_id)


def _to_device(path: str) -> DrawerResult:
    try:
        _write(path)
    except FileNotFoundError:
        reason = _("{path} does not exist: is the drawer plugged in and the setting cash_drawer right?").format(
            path=path)
        return DrawerResult(DrawerState.FAILED, _not_opened(reason))
    except OSError as error:
        reason = _("{path} cannot be written: {error}").format(path=path, error=error.strerror or error)
        return DrawerResult(DrawerState.FAILED, _not_opened(reason))
    text = _("The cash drawer was signalled to open (if it stays shut, {key}).")
    return DrawerResult(DrawerState.OPENED, text.format(key=_(KEY)))


def _not_opened(reason: str) -> str:
    return _("The cash drawer did not open ({reason}): {key}.").format(reason=reason, key=_(KEY))


def _write(path: str) -> None:
    """Append the pulse to ``path``, which must exist: a device that is not there is a
    drawer unplugged, never a file to create. Non-blocking where the OS has it, so that a
    device no one reads fails at once instead of hanging."""
    flags = (os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_BINARY", 0))
    fd = os.open(path, flags)
    try:
        pending = memoryview(PULSE)
        while pending:
            pending = pending[os.write(fd, pending):]
    finally:
        os.close(fd)
