"""The start's background imports give way to a PIN's check.

A PIN costs a slow hash to check (about 0.12 s of one core, ``pos_app.staff.pins``): the
sign-in screen works it out while the PIN is typed, so that Enter finds it done. The start
goes on meanwhile on worker threads (the payment side's imports: most of a start's CPU),
and on a machine with few or busy cores the two shared them: the hash took up to twice as
long, and the cashier waited for it at Enter. So while a PIN is checked (``urgent``), a
thread that imports for the start (``background``) waits at the next module it imports
(a finder first on ``sys.meta_path`` that finds nothing but holds those threads), and
goes on once the check is done. A module whose own code runs long is not stopped midway:
its thread waits at its next import.

Qt-free: the counter's PIN thread is urgent; the app's worker threads (``asyncio.to_thread``:
the start's imports among the rest) are background.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType

WAIT_LIMIT_S = 1.0
"""The longest one import waits for the checks under way (one takes about 0.12 s): a
thread never waits for ever on another's work."""

_checks_done = threading.Event()
_checks_done.set()
_checks = [0]  # PIN checks under way
_checks_lock = threading.Lock()
_thread = threading.local()  # .background: this thread imports for the start


class _GiveWay:
    """A finder that finds nothing: it holds a background thread's import while a PIN is
    checked."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> None:
        if getattr(_thread, "background", False):
            _checks_done.wait(WAIT_LIMIT_S)


_finder = _GiveWay()


@contextmanager
def urgent() -> Iterator[None]:
    """A PIN is checked while this block runs: the background imports wait for it."""
    with _checks_lock:
        _checks[0] += 1
        _checks_done.clear()
    try:
        yield
    finally:
        with _checks_lock:
            _checks[0] -= 1
            if not _checks[0]:
                _checks_done.set()


def background() -> None:
    """From now on this thread's imports give way to a PIN's check (a worker thread's
    ``initializer``)."""
    with _checks_lock:
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
    _thread.background = True
