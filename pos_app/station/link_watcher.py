"""The payment link watcher: reads each waiting parked order's link until it is paid, so a
phone order completes by itself (``ParkedOrders.check``).

Its reads share the key's poll budget (120 calls a minute, the terminal's polls and the
station's other processes included) and come after the terminal's polls: each takes only a
spare slot (``PollScheduler.spare_slot``). A round reads every waiting link once, then the
watcher rests ``every`` seconds, or less when a new order is parked (``wake``). At its start
it finishes what a stopped app left (``ParkedOrders.after_restart``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from pos_app.api.errors import PaymentsError
from pos_app.journal import JournalError
from pos_app.station.events import ParkedOrdersChanged, StationEvent
from pos_app.station.parked import ParkedOrders
from pos_app.terminal.poller import PollScheduler

log = logging.getLogger(__name__)
CHECK_EVERY = 15.0
"""Seconds between two reads of a waiting link (a customer takes minutes to pay one)."""


class LinkWatcher:
    """Follows the lane's waiting links (see the module docstring)."""

    def __init__(self, parked: ParkedOrders, scheduler: PollScheduler, *, every: float = CHECK_EVERY) -> None:
        self.parked = parked
        self.scheduler = scheduler
        self.every = every
        self.rounds = 0
        """Rounds done (every waiting link read once each)."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Callable[[], None] = lambda: None

    def start(self) -> None:
        self._unsubscribe = self.parked.station.events.subscribe(self._parked_changed)
        self._task = asyncio.get_running_loop().create_task(self._run())

    def _parked_changed(self, event: StationEvent) -> None:
        if isinstance(event, ParkedOrdersChanged) and event.parking.waiting:
            self.wake()

    def wake(self) -> None:
        """Read the waiting links now (an order was just parked)."""
        self._wake.set()

    async def aclose(self) -> None:
        self._unsubscribe()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        try:
            await self.parked.after_restart()
        except JournalError as error:
            log.error("the parked orders left by the last run could not be read: %s", error)
        while True:
            self._wake.clear()
            await self.watch_once()
            self.rounds += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.every)

    async def watch_once(self) -> None:
        """Read every waiting link once, each in a spare slot of the poll budget."""
        try:
            waiting = [p for p in await self.parked.station.journal.parked_orders() if p.link_id is not None]
        except JournalError as error:
            log.error("the parked orders could not be read: %s", error)
            return
        for parking in waiting:
            await self.scheduler.spare_slot()
            try:
                await self.parked.check(parking)
            except (PaymentsError, JournalError) as error:  # read again next round
                log.warning("the link of parked order %s was not read: %s", parking.order_key, error)
