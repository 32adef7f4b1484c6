"""A counter for a station already open, as the app wires them (the counter on the
station's settings and event stream, then the station attached)."""

from __future__ import annotations

from pos_app.station.counter import Counter
from pos_app.station.station import Station


async def counter_for(station: Station) -> Counter:
    counter = await Counter.open(station.config, station.events, training=station.training)
    counter.attach(station)
    return counter
