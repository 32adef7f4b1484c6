"""A versioned SQLite file of pos-app's own: the checks made before use, migrations, the connection.

The journal, the catalog and the staff list each keep one; a ``FileKind`` describes it (its
name in messages, its ``application_id``, its migrations, its exceptions, its advice). The
schema version is ``PRAGMA user_version``; ``migrations[i]`` takes a file from version
``i`` to ``i + 1`` and is never edited once released (a change is a new step).

``connect`` refuses, without writing a byte, a file that is not SQLite, a SQLite file that
is not of the kind, and a file written by a newer pos-app; every refusal says the file was
left as it is and ends with the kind's advice.

Standard library only but for ``pos_app.i18n`` (its refusals are sentences for people; a
kind's ``name`` and ``advice`` are marked ``N_`` where the kind is defined and translated
here): the journal, which imports no other ``pos_app`` package, uses it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pos_app.i18n import N_, _

SQLITE_MAGIC: Final = b"SQLite format 3\x00"
WAL_SIZE_LIMIT: Final = 8 * 1024 * 1024  # a checkpointed WAL shrinks back to this
_BUSY_CODES: Final = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED


@dataclass(frozen=True)
class FileKind:
    """What one kind of file is, for the functions of this module."""

    name: str
    """What messages call it, after "a" too: "journal", "catalog", "staff file"."""
    application_id: int
    """``PRAGMA application_id``; the first migration must set it."""
    migrations: tuple[tuple[str, ...], ...]
    error: type[Exception]
    """Raised when the file cannot be read or cannot use write-ahead logging."""
    corrupt: type[Exception]
    """Raised for a file that is not SQLite, or is SQLite but not of this kind."""
    too_new: type[Exception]
    """Raised for a file written by a newer pos-app (a higher schema version)."""
    from_sqlite: Callable[[sqlite3.Error, Path, str], Exception]
    """The error a ``sqlite3.Error`` raised while doing (third argument) means."""
    advice: str
    """What to do with a file that is not of this kind; ends those messages."""
    too_new_advice: str = N_("Update pos-app")
    synchronous: str = "FULL"
    checks: tuple[str, ...] = ()
    """Cheap reads made once the file is open, so that damage shows at once."""

    @property
    def current_version(self) -> int:
        return len(self.migrations)


def check_header(kind: FileKind, path: Path) -> None:
    """Refuse a non-empty file that does not start like SQLite, before SQLite opens it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise kind.error(_("{kind} {path} cannot be read: {error}").format(
            kind=_(kind.name), path=path, error=exc.strerror or exc)) from None
    if head and (len(head) < 100 or not head.startswith(SQLITE_MAGIC)):
        raise kind.corrupt(_(
            "{path} is not a {kind} (it is not a database: it does not start with the SQLite "
            "header); it was left as it is: {advice}"
        ).format(path=path, kind=_(kind.name), advice=_(kind.advice)))


def inspect(kind: FileKind, conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of an opened file, after making sure it is of the kind and not too new.

    Only reads: a refused file is closed as it was found.
    """
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id: int = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id != kind.application_id:
        tables: int = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if app_id != 0 or version != 0 or tables:
            raise kind.corrupt(_(
                "{path} is a SQLite database but not a pos-app {kind} (application_id "
                "{application_id}, {tables} schema objects); it was left as it is: {advice}"
            ).format(path=path, kind=_(kind.name), application_id=f"{app_id:#x}", tables=tables,
                     advice=_(kind.advice)))
    if version > kind.current_version:
        raise kind.too_new(_(
            "{kind} {path} has schema version {version}, written by a newer pos-app; this "
            "pos-app understands up to version {current}. {advice}; the file was left as it is"
        ).format(kind=_(kind.name), path=path, version=version, current=kind.current_version,
                 advice=_(kind.too_new_advice)))
    return version


def migrate(kind: FileKind, conn: sqlite3.Connection, path: Path) -> int:
    """Bring the file to the current version in one write transaction; returns the old version.

    The version is read again under the write lock, so two processes opening an old file
    at once migrate it exactly once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = inspect(kind, conn, path)
        for step in range(version, kind.current_version):
            for statement in kind.migrations[step]:
                conn.execute(statement)
        if version != kind.current_version:
            conn.execute(f"PRAGMA user_version = {kind.current_version}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return version


def use_wal(kind: FileKind, conn: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
    """Switch to WAL, retrying while others hold the file.

    Leaving rollback mode needs an exclusive lock, and SQLite reports that lock as busy at
    once instead of calling the busy handler (it would deadlock otherwise); so two
    processes creating a file together must retry here themselves.
    """
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            break
        except sqlite3.OperationalError as exc:
            busy = (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in _BUSY_CODES
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)
    if mode.lower() != "wal":
        raise kind.error(_("{kind} {path} cannot use write-ahead logging (got {mode})").format(
            kind=_(kind.name), path=path, mode=repr(mode)))


def connect(kind: FileKind, path: Path, *, busy_timeout: float, check_same_thread: bool = True) -> sqlite3.Connection:
    """A WAL connection (``synchronous`` as the kind says, foreign keys on) to a file of the
    kind at its current schema version; an empty or missing file is created."""
    check_header(kind, path)
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=check_same_thread)
    except sqlite3.Error as exc:
        raise kind.from_sqlite(exc, path, _("opening")) from None
    try:
        conn.execute("BEGIN")  # one snapshot: another process may be creating the file now
        try:
            version = inspect(kind, conn, path)  # read-only: refusals leave the file untouched
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
        use_wal(kind, conn, path, busy_timeout)
        conn.execute(f"PRAGMA synchronous = {kind.synchronous}")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        conn.execute("PRAGMA foreign_keys = ON")
        if version != kind.current_version:
            migrate(kind, conn, path)
        for check in kind.checks:
            conn.execute(check).fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise kind.from_sqlite(exc, path, _("opening")) from None
    except BaseException:
        conn.close()
        raise
    return conn
