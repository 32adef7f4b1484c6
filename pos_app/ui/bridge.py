"""The one bridge from the station's events to Qt signals.

Station events are published on the event loop's thread, which under qasync is the Qt
thread; each becomes a signal, so any number of widgets can follow the station with
ordinary signal connections (and stop following when they are deleted). Windows react to
their own order only through ``order_paid`` (the counter decides whose outcome it is); a
money-moving call's own result comes back to the window that made it, so the outcome
events themselves are the counter's, not a signal.
"""

from __future__ import annotations

from pos_app.station.events import (
    AttemptsSettled,
    CartChanged,
    CatalogSynced,
    CatalogSyncFailed,
    EventBus,
    LateConflict,
    LinkOrderPaid,
    OrderPaid,
    ParkedOrdersChanged,
    PaymentProgress,
    SaveTrouble,
    StationEvent,
)
from pos_app.ui.qt import QObject, Signal


class StationBridge(QObject):
    progress = Signal(object)  # terminal.Progress
    conflict = Signal(object)  # journal Attempt
    recovered = Signal(object)  # tuple[OperationResult, ...]
    catalog_synced = Signal(object)  # catalog.SyncResult
    catalog_sync_failed = Signal(str)
    cart_changed = Signal(object)  # cart.Cart
    order_paid = Signal(object)  # station.order.PaidCart
    save_trouble = Signal(object)  # station.events.SaveTrouble
    parked_changed = Signal(object)  # station.events.ParkedOrdersChanged
    link_paid = Signal(object)  # station.events.LinkOrderPaid

    def __init__(self, events: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.detach = events.subscribe(self._forward)

    def _forward(self, event: StationEvent) -> None:
        match event:
            case PaymentProgress(progress=progress):
                self.progress.emit(progress)
            case LateConflict(attempt=attempt):
                self.conflict.emit(attempt)
            case AttemptsSettled(results=results):
                self.recovered.emit(results)
            case CatalogSynced(result=result):
                self.catalog_synced.emit(result)
            case CatalogSyncFailed(reason=reason):
                self.catalog_sync_failed.emit(reason)
            case CartChanged(cart=cart):
                self.cart_changed.emit(cart)
            case OrderPaid(paid=paid):
                self.order_paid.emit(paid)
            case SaveTrouble():
                self.save_trouble.emit(event)
            case ParkedOrdersChanged():
                self.parked_changed.emit(event)
            case LinkOrderPaid():
                self.link_paid.emit(event)
