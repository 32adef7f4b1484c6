"""The process's log file: one per kind of process (``app.log``, ``cli.log``,
``sandbox.log``) under ``<data dir>/logs/``, rotated by size.

``configure_logging`` puts the one handler on the root logger, so what every library
logs (asyncio's unretrieved task errors, httpx's requests, qasync) lands in the file
next to pos-app's own records. The app, a terminal command and ``pos-app sandbox serve``
each call it once at their start. The kinds keep processes apart: two processes never
rotate one file (only one app runs per data folder; two commands at once write
``cli.log`` side by side, and on POSIX a file rotated under one is renamed, not lost).

``RedactSecrets`` is the handler's filter that keeps the key-hash out of the file: the
record's message, and its exception's and stack's text.
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
REDACTED = "[redacted]"


class ProcessKind(StrEnum):
    """Which program the process runs: each kind logs into its own file."""

    APP = "app"  # the cashier app (one per data folder)
    CLI = "cli"  # a `pos-app terminal` or `receipt` command
    SANDBOX = "sandbox"  # `pos-app sandbox serve`


def log_path(directory: Path, kind: ProcessKind) -> Path:
    """``<data dir>/logs/<kind>.log``."""
    return directory / "logs" / f"{kind}.log"


class RedactSecrets(logging.Filter):
    """Replaces each secret wherever a record would show it: the message (with its
    arguments), the exception's traceback text and the stack."""

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        self._secrets = [secret for secret in secrets if secret]

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.redact(message) != message:
            record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


_installed: list[logging.Handler] = []
"""The handler ``configure_logging`` put on the root logger (none before)."""


def configure_logging(directory: Path, kind: ProcessKind, *filters: logging.Filter,
                      verbose: bool = False) -> Path:
    """Log every record of the process (INFO and up; DEBUG when ``verbose``) into its
    kind's rotating file under ``directory``, through ``filters`` (``RedactSecrets``);
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
