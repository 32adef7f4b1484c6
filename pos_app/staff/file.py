"""The staff file on disk: ``<data dir>/staff.sqlite3``, its schema and migrations, how it is
opened (WAL; schema version in ``PRAGMA user_version``; created readable by its owner
only) and what its SQLite errors mean. ``Staff`` (``store``) reads and writes it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final

from pos_app import sqlite_file
from pos_app.i18n import N_, _
from pos_app.sqlite_file import FileKind
from pos_app.staff.errors import StaffFileError, StaffTooNew

STAFF_FILE_NAME: Final = "staff.sqlite3"
DEFAULT_BUSY_TIMEOUT: Final = 5.0

APPLICATION_ID: Final = 0x504F5353  # "POSS" in the SQLite header: this file is a pos-app staff file

V1: tuple[str, ...] = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    """CREATE TABLE members (
        name_key TEXT PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
        role TEXT NOT NULL CHECK (role IN ('cashier', 'manager')),
        pin_hash TEXT NOT NULL,
        added_at TEXT NOT NULL
    )""",
    """CREATE TABLE sign_in_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        wrong_pins INTEGER NOT NULL CHECK (wrong_pins >= 0),
        locked_until TEXT
    )""",
    "INSERT INTO sign_in_state (id, wrong_pins, locked_until) VALUES (1, 0, NULL)",
    """CREATE TABLE audit (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        detail TEXT NOT NULL
    )""",
    """CREATE TRIGGER audit_append_only_u BEFORE UPDATE ON audit
        BEGIN SELECT raise(ABORT, 'the staff audit is append-only'); END""",
    """CREATE TRIGGER audit_append_only_d BEFORE DELETE ON audit
        BEGIN SELECT raise(ABORT, 'the staff audit is append-only'); END""",
)
V2: tuple[str, ...] = ("ALTER TABLE audit ADD COLUMN reason TEXT NOT NULL DEFAULT ''",)
"""Version 2: the audit says why (``reason``), apart from what (``action``, ``detail``)."""

V3: tuple[str, ...] = (
    "CREATE TABLE wrong_pins (seq INTEGER PRIMARY KEY, at TEXT NOT NULL)",
    "ALTER TABLE sign_in_state DROP COLUMN wrong_pins",
)
"""Version 3: wrong PINs count over a rolling window, so each one's time is kept
(``wrong_pins``) instead of a count in a row; a count left by version 2 (at most 4) is
dropped, a lock it set is kept."""

V4: tuple[str, ...] = ("ALTER TABLE members ADD COLUMN language TEXT",)
"""Version 4: a member may have a language of their own for the screens (NULL: the store's)."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (V1, V2, V3, V4)
"""``MIGRATIONS[i]`` takes a file from version ``i`` to ``i + 1``; never edited once released."""


def staff_path(data_dir: str | Path) -> Path:
    """``<data dir>/staff.sqlite3``."""
    return Path(data_dir) / STAFF_FILE_NAME


def file_error(error: sqlite3.Error, path: Path, action: str) -> StaffFileError:
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED
        # TRANSLATORS: {action} is what was being done, e.g. "adding a staff member", "reading the audit"
        return StaffFileError(_("staff file {path} is busy (another program holds it) while {action}; try again")
                              .format(path=path, action=action))
    if code in (8, 14):  # SQLITE_READONLY, SQLITE_CANTOPEN
        return StaffFileError(_("staff file {path} cannot be written while {action}: {error}; "
                                "check the data folder's permissions").format(path=path, action=action, error=error))
    if code == 13:  # SQLITE_FULL
        return StaffFileError(_("the disk is full: staff file {path} cannot be written while {action}")
                              .format(path=path, action=action))
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return StaffFileError(_("staff file {path} is damaged or not a database ({error}); it was left as it is")
                              .format(path=path, error=error))
    return StaffFileError(_("staff file {path}: {error} while {action}").format(path=path, error=error, action=action))


def _create_private(path: Path) -> None:
    """Create an empty file readable by its owner only (SQLite gives its WAL files the same mode)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as error:
        raise StaffFileError(_("cannot create the staff file {path}: {error}").format(
            path=path, error=error.strerror or error)) from None


STAFF_FILE: Final = FileKind(
    name=N_("staff file"),
    application_id=APPLICATION_ID,
    migrations=MIGRATIONS,
    error=StaffFileError,
    corrupt=StaffFileError,
    too_new=StaffTooNew,
    from_sqlite=file_error,
    advice=N_("move it away to start a new staff list"),
    checks=("SELECT count(*) FROM members",),  # cheap damage check
)


def connect(path: Path, busy_timeout: float) -> sqlite3.Connection:
    _create_private(path)  # an existing file is left as it is, and checked by connect
    return sqlite_file.connect(STAFF_FILE, path, busy_timeout=busy_timeout, check_same_thread=False)
