"""The sign-in lockout's rules, apart from the staff file that keeps its state (``Staff``).

Wrong PINs are counted per station (its staff file) over a rolling ``WINDOW`` of 15
minutes; a correct PIN does not reset the count. The 5th wrong PIN in the window
(``MAX_WRONG_PINS``) locks cashier sign-in and manager overrides for ``LOCKOUT`` (5
minutes); every further wrong PIN while 5 or more are in the window locks again, from
then, for twice as long as the one before it (10, 20, 40 minutes), at most
``LOCKOUT_CAP`` (1 hour).

During a lock a manager's correct PIN still signs in, and that lifts the lock (and
clears the count); so does ``pos-app staff unlock``. A lock that a manager's PIN lifts
must not turn into a free guessing slot for managers' PINs: with ``CLOSED_AT`` (10) wrong
PINs in the window the lock is closed to every PIN, tried by nobody, until fewer are in
the window. So at most 10 wrong PINs are ever tried in any 15 minutes.

No file, no clock: the functions here take the moment and the wrong PINs' times.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final

WINDOW: Final = timedelta(minutes=15)
MAX_WRONG_PINS: Final = 5
LOCKOUT: Final = timedelta(minutes=5)
LOCKOUT_CAP: Final = timedelta(hours=1)
CLOSED_AT: Final = 2 * MAX_WRONG_PINS


class LockLevel(StrEnum):
    """How locked the station's PIN checks are."""

    OPEN = "open"
    """PINs are checked as usual."""
    LOCKED = "locked"
    """Cashier sign-in and manager overrides are refused; a manager's PIN signs in and lifts it."""
    CLOSED = "closed"
    """No PIN is tried at all: the time or ``pos-app staff unlock`` lifts it."""


def lock_length(wrong: int) -> timedelta | None:
    """How long a wrong PIN that leaves ``wrong`` wrong PINs in the window locks for
    (from that PIN on); None when it does not lock."""
    if wrong < MAX_WRONG_PINS:
        return None
    doublings = min(wrong - MAX_WRONG_PINS, 16)  # past the cap long before; keeps the number small
    length: timedelta = LOCKOUT * (1 << doublings)
    return min(length, LOCKOUT_CAP)


def in_window(now: datetime, times: Iterable[datetime]) -> int:
    """How many of the wrong PINs typed at ``times`` count at ``now`` (typed less than
    ``WINDOW`` ago; one "in the future", after the clock was set back, counts too)."""
    start = now - WINDOW
    return sum(1 for moment in times if moment > start)


@dataclass(frozen=True)
class LockState:
    """The station's lockout at one moment: the wrong PINs counted and the lock, if any."""

    wrong: int
    """Wrong PINs in the window."""
    until: datetime | None
    """When the lock ends (aware UTC); None when there is none at that moment."""

    @property
    def level(self) -> LockLevel:
        if self.until is None:
            return LockLevel.OPEN
        return LockLevel.CLOSED if self.wrong >= CLOSED_AT else LockLevel.LOCKED

    @property
    def tries_left(self) -> int:
        """Wrong PINs still allowed before the next one locks."""
        return max(MAX_WRONG_PINS - self.wrong, 0)

    def after_wrong_pin(self, now: datetime) -> LockState:
        """The state once one more wrong PIN is typed at ``now``: locked (again, or
        longer) when the count reaches ``MAX_WRONG_PINS``; a lock never gets shorter."""
        wrong = self.wrong + 1
        length = lock_length(wrong)
        until = self.until
        if length is not None and (until is None or now + length > until):
            until = now + length
        return LockState(wrong, until)

    def to_json(self) -> dict[str, str | int | None]:
        return {"level": self.level.value, "wrong_pins": self.wrong,
                "locked_until": self.until.isoformat() if self.until else None}
