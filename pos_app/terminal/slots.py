"""One poll budget per key for every process of a station.

The service allows 120 polls a minute per key, whoever sends them: the app and a
scripted ``pos-app terminal resume`` on the same key must share it, or the service
answers 429 and results arrive late. ``SharedPollBudget`` keeps the time of the key's
next free poll slot in a small file in the data dir; each poll reserves its slot by
reading and advancing that time under an OS file lock (held for microseconds, never
while waiting), so slots of all processes interleave at the scheduler's spacing.

The file is named by a hash of the key, never the key itself. Times are wall-clock
seconds (the processes share no monotonic clock); a stored slot more than
``MAX_AHEAD`` seconds ahead means the clock jumped back, and is ignored.

A file that cannot be read or written (a full or read-only disk) never stops a poll: the
reservation then waits for nothing more, so this process keeps only its own scheduler's
spacing, and the trouble is logged once until the file works again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pos_app.journal.owners import try_lock, unlock_and_close

log = logging.getLogger(__name__)

MAX_AHEAD = 120.0
LOCK_RETRY = 0.002
_SLOT = struct.Struct("<d")


class SharedPollBudget:
    """The next free poll slot of one key, shared through ``<folder>/<hash>.slot``."""

    def __init__(self, folder: Path, key: str) -> None:
        digest = hashlib.sha256(f"pos-app poll budget\0{key}".encode()).hexdigest()[:20]  # not for people: hashed
        self.path = Path(folder) / f"{digest}.slot"
        self.ages_path = Path(folder) / f"{digest}.ages"
        """The ages at which the key's recent messages finished (``PollScheduler``'s model),
        so that a process started later polls by them from its first message."""
        self.trouble: OSError | None = None
        """Why the shared file could not be used at the last try (None: it works)."""

    async def reserve(self, interval: float) -> float:
        """Take the next free slot and push the shared one ``interval`` past it; returns
        the seconds to wait before polling."""

        def advance(stored: float, now: float) -> tuple[float, float]:
            slot = stored if now <= stored <= now + MAX_AHEAD else now
            return slot + interval, slot - now

        return await self._update(advance)

    async def take_if_free(self, interval: float) -> bool:
        """Take the key's next slot only if it is free now (no process reserved it ahead);
        whether it was taken. A file that cannot be used takes it (this process's own spacing
        holds)."""

        def advance(stored: float, now: float) -> tuple[float, float]:
            if now < stored <= now + MAX_AHEAD:
                return stored, -1.0
            return now + interval, 0.0

        return await self._update(advance) >= 0

    async def push(self, until: float) -> None:
        """No slot before wall time ``until`` (a 429's Retry-After)."""
        await self._update(lambda stored, now: (max(stored, until), 0.0))

    def finished_ages(self) -> list[float]:
        """The recent finishing ages kept for the key, oldest first (none when unreadable)."""
        try:
            raw = self.ages_path.read_bytes()
        except OSError:
            return []
        count = len(raw) // _SLOT.size
        ages = [_SLOT.unpack_from(raw, i * _SLOT.size)[0] for i in range(count)]
        return [age for age in ages if 0.0 <= age <= MAX_AHEAD * 10]

    def add_finished_age(self, age: float, keep: int) -> None:
        """Keep ``age`` with the key's ``keep`` most recent (a tiny write; a failure is ignored:
        the model is a hint, the slots are the rule)."""
        ages = [*self.finished_ages(), age][-keep:]
        temporary = self.ages_path.with_name(f"{self.ages_path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.ages_path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(b"".join(_SLOT.pack(value) for value in ages))
            os.replace(temporary, self.ages_path)
        except OSError as error:
            log.debug("the poll model's ages could not be kept in %s: %s", self.ages_path, error)

    async def _update(self, change: Callable[[float, float], tuple[float, float]]) -> float:
        try:
            wait = await self._locked_update(change)
        except OSError as error:
            if self.trouble is None:
                log.warning("the shared poll budget %s cannot be used (%s): this process keeps its own spacing",
                            self.path, error.strerror or error)
            self.trouble = error
            return 0.0
        if self.trouble is not None:
            log.info("the shared poll budget %s works again", self.path)
            self.trouble = None
        return wait

    async def _locked_update(self, change: Callable[[float, float], tuple[float, float]]) -> float:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
            try:
                if try_lock(fd):
                    raw = _read_start(fd)
                    stored = _SLOT.unpack(raw)[0] if len(raw) == _SLOT.size else 0.0
                    new, wait = change(stored, time.time())
                    _write_start(fd, _SLOT.pack(new))
                    return float(wait)
            finally:
                unlock_and_close(fd)
            await asyncio.sleep(LOCK_RETRY)


def _read_start(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, _SLOT.size)


def _write_start(fd: int, data: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
