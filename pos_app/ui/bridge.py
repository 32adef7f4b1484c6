"""The one bridge from the station's events to Qt signals.

Station events are published on the event loop's thread, which under qasync is the Qt
thread; each becomes a signal, so any number of widgets can follow the station with
ordinary signal connections (and stop following when they are deleted).
"""

from __future__ import annotations

from collections.abc import Callable

from pos_app.station.events import EventBus, EventKind, StationEvent
from pos_app.ui.qt import QObject, Signal


class StationBridge(QObject):
    progress = Signal(object)  # terminal.Progress
    outcome = Signal(object)  # OperationResult
    conflict = Signal(object)  # journal Attempt
    recovered = Signal(object)  # list[OperationResult]
    catalog_synced = Signal(object)  # catalog.SyncResult
    catalog_sync_failed = Signal(str)
    cart_changed = Signal(object)  # cart.Cart
    signed_in = Signal(object)  # staff.StaffMember
    signed_out = Signal()

    def __init__(self, events: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals: dict[EventKind, Callable[[StationEvent], None]] = {
            EventKind.PROGRESS: lambda e: self.progress.emit(e.data),
            EventKind.OUTCOME: lambda e: self.outcome.emit(e.data),
            EventKind.CONFLICT: lambda e: self.conflict.emit(e.data),
            EventKind.RECOVERED: lambda e: self.recovered.emit(e.data),
            EventKind.CATALOG_SYNCED: lambda e: self.catalog_synced.emit(e.data),
            EventKind.CATALOG_SYNC_FAILED: lambda e: self.catalog_sync_failed.emit(str(e.data)),
            EventKind.CART_CHANGED: lambda e: self.cart_changed.emit(e.data),
            EventKind.SIGNED_IN: lambda e: self.signed_in.emit(e.data),
            EventKind.SIGNED_OUT: lambda e: self.signed_out.emit(),
        }
        self.detach = events.subscribe(self._forward)

    def _forward(self, event: StationEvent) -> None:
        self._signals[event.kind](event)
