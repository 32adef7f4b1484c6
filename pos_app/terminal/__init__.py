"""The terminal service layer: every money-moving terminal operation, journaled, never resent.

Qt-free. ``TerminalService`` runs operations; ``PollScheduler`` paces type S polls;
``OperationResult`` is what each operation ends in. The names are imported when first
used (``pos_app.lazy``): ``outcomes`` alone does not bring in the client.
"""

from typing import TYPE_CHECKING

from pos_app.lazy import exports

if TYPE_CHECKING:
    from pos_app.terminal.outcomes import OperationResult, Progress
    from pos_app.terminal.poller import PollScheduler
    from pos_app.terminal.service import TerminalService

_HOMES = {
    "pos_app.terminal.outcomes": ("OperationResult", "Progress"),
    "pos_app.terminal.poller": ("PollScheduler",),
    "pos_app.terminal.service": ("TerminalService",),
}
__getattr__ = exports(__name__, _HOMES)
__all__ = [
    "OperationResult", "PollScheduler", "Progress", "TerminalService",
]
