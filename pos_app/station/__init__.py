"""A lane of the store, Qt-free: the wiring the command line and the GUI share.

``Station`` owns the client, the journal thread, the terminal service and the event
stream (``EventBus``); ``pos_app.ui`` turns its events into Qt signals in one bridge.
"""

from pos_app.station.events import EventBus, EventKind, StationEvent
from pos_app.station.station import Station

__all__ = ["EventBus", "EventKind", "Station", "StationEvent"]
