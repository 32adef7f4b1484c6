"""One app per data folder: while it runs, the app holds ``<data dir>/app.lock`` (an OS
file lock, through filelock) with its process id written in it.

Two apps on one folder would both save ``cart.json`` (and the staff file, the poll
budget): after a kill one sale in progress would be gone. So a second app is refused with
a sentence naming the first. The OS lets go of the lock when its holder ends, even
killed (``kill -9``, a power cut): no stale lock to clear by hand. The command line's
one-shot commands do not take it: they share the journal safely with the app.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from pos_app.i18n import _

LOCK_NAME = "app.lock"


class AlreadyOpen(Exception):
    """Another app holds the data folder; the message says which and what to do."""

    def __init__(self, folder: Path, holder: int | None) -> None:
        if holder is not None:
            text = _("pos-app is already open on this data folder: use its window (process {process}, {folder}). "
                     "A second app on the same folder would save over its sale in progress.")
        else:
            text = _("pos-app is already open on this data folder: use its window ({folder}). A second app on the "
                     "same folder would save over its sale in progress.")
        super().__init__(text.format(process=holder, folder=folder))
        self.folder = folder
        self.holder = holder


def lock_path(folder: Path) -> Path:
    """``<data dir>/app.lock``."""
    return folder / LOCK_NAME


def holder(folder: Path) -> int | None:
    """The process id written in the folder's lock (None when there is none to read: no
    lock file, or one the OS does not let others read while it is held)."""
    try:
        return int(lock_path(folder).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


class AppLock:
    """This app's hold on its data folder, from ``acquire`` to ``release`` (or its end)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = FileLock(lock_path(folder), timeout=0, thread_local=False, on_acquired=_write_pid)

    def acquire(self) -> AppLock:
        """Hold the folder now (creating it); ``AlreadyOpen`` when another app holds it,
        ``OSError`` when the lock file cannot be made."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire()
        except Timeout as busy:
            raise AlreadyOpen(self.folder, holder(self.folder)) from busy
        return self

    def release(self) -> None:
        self._lock.release()


def _write_pid(descriptor: int) -> None:
    """Write this process's id into the lock file it just took (``FileLock``'s hook: the
    descriptor is the lock's own)."""
    os.ftruncate(descriptor, 0)
    os.lseek(descriptor, 0, os.SEEK_SET)
    os.write(descriptor, f"{os.getpid()}\n".encode("ascii"))
