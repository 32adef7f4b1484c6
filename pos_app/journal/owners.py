"""Which process holds a journal's attempts, and whether that process is still alive.

Every open ``Journal`` is one *owner*, named ``o-`` and 16 URL-safe characters. For as long
as it is open it holds an exclusive OS lock on its own empty file
``<journal path>.owners/<owner id>.lock``. The OS drops that lock when the process ends,
however it ends (clean exit, crash, SIGKILL), so "is owner X alive?" is "does taking X's
lock without waiting fail?", and a missing file means a dead owner. Process ids are never
used: they are reused, and ``os.kill(pid, 0)`` terminates the process on Windows.

- POSIX: ``fcntl.flock``. The lock belongs to the open file, so a second ``Journal`` in the
  same process sees the first as alive; a *forked* child shares its parent's locks (spawned
  processes do not inherit the descriptor, PEP 446).
- Windows: ``msvcrt.locking`` of the file's first byte.

Whoever finds an owner dead deletes its file (errors ignored). When liveness cannot be
told (the file cannot be opened, or the lock is taken at that instant by another process
checking the same owner), the owner counts as alive: an attempt is never taken from a
process on a guess, at worst it is left for the next resume.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from pathlib import Path

from pos_app.i18n import _
from pos_app.journal.errors import JournalError

OWNER_ID = re.compile(r"o-[A-Za-z0-9_-]{16}")
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation

if sys.platform == "win32":
    import msvcrt

    def try_lock(fd: int) -> bool:
        """Take the exclusive lock of open file ``fd`` without waiting; False when held."""
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock_and_close(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)

    def _discard(fd: int, path: Path) -> None:
        """Unlock and close ``fd``, then delete ``path`` (Windows deletes only closed files)."""
        unlock_and_close(fd)
        _unlink(path)

else:
    import fcntl

    def try_lock(fd: int) -> bool:
        """Take the exclusive lock of open file ``fd`` without waiting; False when held."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # BlockingIOError when held; anything else: cannot tell
            return False
        return True

    def unlock_and_close(fd: int) -> None:
        os.close(fd)  # closing the file drops its flock

    def _discard(fd: int, path: Path) -> None:
        """Delete ``path`` while still holding its lock, then close ``fd`` (which unlocks)."""
        try:
            _unlink(path)
        finally:
            os.close(fd)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass  # already gone, or opened by someone checking it: whoever finds it dead retries


def new_owner_id() -> str:
    """``o-`` and 16 URL-safe characters (96 random bits)."""
    return "o-" + secrets.token_urlsafe(12)


def lock_path(journal_path: Path, owner: str) -> Path:
    """The lock file of ``owner`` of the journal at ``journal_path``."""
    return journal_path.with_name(journal_path.name + ".owners") / f"{owner}.lock"


def is_alive(journal_path: Path, owner: str) -> bool:
    """Whether the process that is (or was) ``owner`` still has the journal open.

    One open and one non-blocking lock attempt; a dead owner's file is deleted on the way.
    A string that is not an owner id never had a lock file, so it is not alive.
    """
    if not OWNER_ID.fullmatch(owner):
        return False
    path = lock_path(journal_path, owner)
    try:
        fd = os.open(path, os.O_RDONLY | _O_BINARY)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    if not try_lock(fd):
        os.close(fd)
        return True
    _discard(fd, path)
    return False


class OwnerLock:
    """This process's hold on one journal as owner ``id``, from ``acquire`` to ``release``."""

    def __init__(self, owner: str, path: Path, fd: int) -> None:
        self.id = owner
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, journal_path: Path) -> OwnerLock:
        """Create and lock the file of a new owner of the journal at ``journal_path``."""
        owner = new_owner_id()
        path = lock_path(journal_path, owner)
        try:
            path.parent.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o644)
        except OSError as exc:
            raise JournalError(_("cannot create the owner lock file {path}: {error}").format(
                path=path, error=exc)) from None
        if not try_lock(fd):
            os.close(fd)
            _unlink(path)
            raise JournalError(_(
                "cannot lock the owner lock file {path}; the folder's file system must support "
                "file locks (put the journal on a local disk)"
            ).format(path=path))
        return cls(owner, path, fd)

    def release(self) -> None:
        """Give the lock up and delete the file; a second call does nothing."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            _discard(fd, self.path)
