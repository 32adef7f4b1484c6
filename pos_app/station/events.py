"""The station's event stream: every open window (and the CLI) can follow what happens.

Core code publishes typed, frozen events; any number of subscribers receive each one in
order, on the publisher's thread (the event loop's). A subscriber's error is logged and
never reaches the publisher: a broken window must not break a payment. The GUI's one
bridge module turns these events into Qt signals.

Money moves only through ``Station``: each of its money-moving calls (sale, pre-auth,
capture, void, refund, check again, a manager's decision, close batch) publishes exactly
one ``OperationEnded``; start-up recovery and ``resume`` one ``AttemptsSettled``; cash into
or out of the drawer one ``CashMoved``. The counter settles its cart only on an outcome of
its own order (``OrderPaid`` then).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pos_app.cart import Cart
    from pos_app.catalog import SyncResult
    from pos_app.journal import Attempt, CashEntry, ParkedOrder
    from pos_app.station.order import PaidCart
    from pos_app.terminal.outcomes import OperationResult, Progress

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PaymentProgress:
    """An operation in flight moved on (a type S message's status, a check...)."""

    progress: Progress


@dataclass(frozen=True)
class OperationEnded:
    """A money-moving call of the station ended, or was refused before anything left."""

    result: OperationResult


@dataclass(frozen=True)
class AttemptsSettled:
    """Attempts a dead process (start-up recovery) or an earlier run (``resume``) left open
    were checked with the service, without resending anything."""

    results: tuple[OperationResult, ...]


@dataclass(frozen=True)
class LateConflict:
    """A late answer contradicts a decision (e.g. charged after "not paid")."""

    attempt: Attempt


@dataclass(frozen=True)
class CatalogSynced:
    result: SyncResult


@dataclass(frozen=True)
class CatalogSyncFailed:
    """The catalog could not be refreshed (the old copy stays in use): ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class CartChanged:
    """The cart, or what its order has been charged so far, changed."""

    cart: Cart


@dataclass(frozen=True)
class OrderPaid:
    """The cart's order is paid in full (by its own attempts): the receipt is due, and a
    new sale has begun."""

    paid: PaidCart


@dataclass(frozen=True)
class CashMoved:
    """Cash went into or out of the drawer (journaled before the drawer opened)."""

    entry: CashEntry


@dataclass(frozen=True)
class SaveTrouble:
    """A file write after the fact (the cart after a payment, an outcome) failed: what was
    decided is kept in memory, shown, and written again until it is saved (``saved``)."""

    what: str
    sentence: str
    saved: bool = False


@dataclass(frozen=True)
class ParkedOrdersChanged:
    """An order was parked on a payment link, came back to the lane, or a link could not be
    followed (``trouble`` says why): the list of waiting links changed."""

    parking: ParkedOrder
    trouble: str = ""


@dataclass(frozen=True)
class LinkOrderPaid:
    """A parked order's link was paid and this process completed it (once, whoever else saw
    it): its receipt is due. ``restored``: completed before a restart, its receipt never
    handed out."""

    parking: ParkedOrder
    paid: PaidCart
    restored: bool = False


StationEvent = (PaymentProgress | OperationEnded | AttemptsSettled | LateConflict | CatalogSynced
                | CatalogSyncFailed | CartChanged | OrderPaid | CashMoved | SaveTrouble | ParkedOrdersChanged
                | LinkOrderPaid)
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

    def publish(self, event: StationEvent) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:
                log.exception("a subscriber of %s failed", type(event).__name__)
