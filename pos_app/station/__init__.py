"""A lane of the store, Qt-free: the wiring the command line and the GUI share.

``Station`` owns the client, the journal thread and the terminal service; ``Counter`` the
sale in progress (catalog, cart, staff), opened first; both publish on one event stream
(``EventBus``), which ``pos_app.ui`` turns into Qt signals in one bridge. The names are
imported when first used (``pos_app.lazy``): the counter opens before the payment stack.
"""

from typing import TYPE_CHECKING

from pos_app.lazy import exports
from pos_app.station.events import EventBus, StationEvent

if TYPE_CHECKING:
    from pos_app.station.station import Station

_HOMES = {"pos_app.station.station": ("Station",)}
__getattr__ = exports(__name__, _HOMES)
__all__ = ["EventBus", "Station", "StationEvent"]
