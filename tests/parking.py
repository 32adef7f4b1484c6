"""Helpers of the pay-by-link tests (station, kill -9 worker, window): a lane on the sandbox
(station and counter as the app wires them, merchant B, a type B terminal), the parked
orders and their watcher on it, and the events they publish."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos_app.config import StoreConfig
from pos_app.station import Station
from pos_app.station.counter import Counter
from pos_app.station.events import LinkOrderPaid, ParkedOrdersChanged, StationEvent
from pos_app.station.link_watcher import LinkWatcher
from pos_app.station.parked import ParkedOrders
from tests.counters import counter_for

PHONE = "(555) 123-4567"


def lane_config(sandbox: Any, data_dir: Path) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-3", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=data_dir)


@dataclass
class Lane:
    station: Station
    counter: Counter
    parked: ParkedOrders
    watcher: LinkWatcher
    seen: list[StationEvent] = field(default_factory=list)

    @property
    def completed(self) -> list[LinkOrderPaid]:
        return [event for event in self.seen if isinstance(event, LinkOrderPaid)]

    @property
    def changes(self) -> list[ParkedOrdersChanged]:
        return [event for event in self.seen if isinstance(event, ParkedOrdersChanged)]


@asynccontextmanager
async def lane(sandbox: Any, data_dir: Path, *, every: float = 0.2, watching: bool = True) -> AsyncIterator[Lane]:
    """A lane with its parked orders; its watcher reads waiting links every ``every`` s
    (started when ``watching``); every station event is kept in ``seen``."""
    async with await Station.open(lane_config(sandbox, data_dir), sandbox.keys["B"], training=True) as station:
        seen: list[StationEvent] = []
        station.events.subscribe(seen.append)
        counter = await counter_for(station)
        parked = ParkedOrders(counter)
        watcher = LinkWatcher(parked, station.service.scheduler, every=every)
        if watching:
            watcher.start()
        try:
            yield Lane(station, counter, parked, watcher, seen)
        finally:
            await watcher.aclose()
            await counter.aclose()
