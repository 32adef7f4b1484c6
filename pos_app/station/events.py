"""The station's event stream: every open window (and the CLI) can follow what happens.

Core code publishes ``StationEvent`` values; any number of subscribers receive each one
in order, on the publisher's thread (the event loop's). A subscriber's error is logged
and never reaches the publisher: a broken window must not break a payment. The GUI's
one bridge module turns these events into Qt signals.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

log = logging.getLogger(__name__)


class EventKind(StrEnum):
    PROGRESS = "progress"
    """An operation in flight moved on: ``data`` is a ``terminal.Progress``."""
    OUTCOME = "outcome"
    """An operation ended (or was refused): ``data`` is an ``OperationResult``."""
    CONFLICT = "conflict"
    """A late answer contradicts a decision: ``data`` is the ``Attempt``."""
    RECOVERED = "recovered"
    """Start-up recovery settled attempts a dead process left: ``data`` is a list of results."""
    CATALOG_SYNCED = "catalog_synced"
    """``data`` is the catalog's ``SyncResult``."""
    CATALOG_SYNC_FAILED = "catalog_sync_failed"
    """``data`` is the error message (the old catalog stays in use)."""
    CART_CHANGED = "cart_changed"
    """``data`` is the ``Cart``."""
    SIGNED_IN = "signed_in"
    """``data`` is the ``StaffMember``."""
    SIGNED_OUT = "signed_out"


@dataclass(frozen=True)
class StationEvent:
    kind: EventKind
    data: Any = None


Subscriber = Callable[[StationEvent], None]


class EventBus:
    """Publish to every subscriber; ``subscribe`` returns the function that unsubscribes."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe

    def publish(self, kind: EventKind, data: Any = None) -> None:
        event = StationEvent(kind, data)
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:
                log.exception("a subscriber of %s events failed", kind)
