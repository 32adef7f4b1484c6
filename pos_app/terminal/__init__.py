"""The terminal service layer: every money-moving terminal operation, journaled, never resent.

Qt-free. ``TerminalService`` runs operations; ``PollScheduler`` paces type S polls;
``OperationResult`` is what each operation ends in.
"""

from pos_app.terminal.outcomes import OperationResult, Progress
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.service import TerminalService

__all__ = ["OperationResult", "PollScheduler", "Progress", "TerminalService"]
