"""The process's log file: one per kind of process (``app.log``, ``cli.log``,
``sandbox.log``) under ``<data dir>/logs/``, rotated by size.

``configure_logging`` puts the one handler on the root logger, so what every library
logs (asyncio's unretrieved task errors, httpx's requests, qasync) lands in the file
next to pos-app's own records. The app, a terminal command and ``pos-app sandbox serve``
each call it once at their start. The kinds keep processes apart: two processes never
rotate one file (only one app runs per data folder; two commands at once write
``cli.log`` side by side, and on POSIX a file rotated under one is renamed, not lost).

The caller gives the handler its filters: ``pos_app.api.secrets.RedactingFilter`` keeps
the key-hash out of the file (each record's message, traceback and stack).
"""

from __future__ import annotations

import logging
from enum import StrEnum
from logging.handlers import RotatingFileHandler
from pathlib import Path

MAX_BYTES = 5_000_000
"""A file is rotated at this size (a busy day's polling, ~120 requests a minute, is about
10 MB of httpx's request lines)."""
BACKUPS = 9
"""Rotated files kept (``app.log.1`` … ``app.log.9``): the log takes at most 50 MB."""
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


class ProcessKind(StrEnum):
    """Which program the process runs: each kind logs into its own file."""

    APP = "app"  # the cashier app (one per data folder)
    CLI = "cli"  # a `pos-app terminal` or `receipt` command
    SANDBOX = "sandbox"  # `pos-app sandbox serve`


def log_path(directory: Path, kind: ProcessKind) -> Path:
    """``<data dir>/logs/<kind>.log``."""
    return directory / "logs" / f"{kind}.log"


_installed: list[logging.Handler] = []
"""The handler ``configure_logging`` put on the root logger (none before)."""


def configure_logging(directory: Path, kind: ProcessKind, *filters: logging.Filter,
                      verbose: bool = False) -> Path:
    """Log every record of the process (INFO and up; DEBUG when ``verbose``) into its
    kind's rotating file under ``directory``, through ``filters`` (``RedactingFilter``);
    returns the file's path. A later call (tests open many stations in one process)
    replaces the handler. ``OSError`` when the folder cannot be made."""
    path = log_path(directory, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    for log_filter in filters:
        handler.addFilter(log_filter)
    root = logging.getLogger()
    for previous in _installed:
        root.removeHandler(previous)
        previous.close()
    _installed[:] = [handler]
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return path
