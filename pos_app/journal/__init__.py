"""The crash-safe local journal of money-moving terminal requests.

An attempt is written and committed before its request leaves; everything that happens
to it afterwards is appended as an event. After a crash, ``Journal.in_flight()`` lists
what still needs an answer, ``Journal.resumable()`` the part of it no live process holds,
and ``Journal.claim`` hands one such attempt over (see ``owners``). See ``store.Journal``
for the rules it enforces.

This package imports no Qt, no HTTP client and no other ``pos_app`` package; of ``pos_app``
it uses only the stdlib-only module ``pos_app.sqlite_file`` (opening and migrating the file).
"""

from pos_app.journal.cash import CashEntry, CashKind, ZReport
from pos_app.journal.errors import (
    AboveBalance,
    AttemptNotFound,
    ChargeTaken,
    GivenBackAlready,
    InvalidResolution,
    InvalidTransition,
    JournalCorrupt,
    JournalError,
    JournalLocked,
    JournalTooNew,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    RefHasPendingFollowUp,
    TerminalBusy,
)
from pos_app.journal.models import Attempt, Event, Operation, Outcome
from pos_app.journal.orders import OrderLine, OrderTotals
from pos_app.journal.parked import ParkedOrder, ParkingRefused, ParkStage
from pos_app.journal.reports import Match, Reconciliation, Summary, SummaryLine
from pos_app.journal.returns import ReturnRecord, ReturnStage
from pos_app.journal.schema import CURRENT_VERSION
from pos_app.journal.store import Journal

__all__ = [
    "CURRENT_VERSION",
    "AboveBalance",
    "GivenBackAlready",
    "CashEntry",
    "CashKind",
    "ZReport",
    "Attempt",
    "AttemptNotFound",
    "Event",
    "ChargeTaken",
    "InvalidResolution",
    "InvalidTransition",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalLocked",
    "JournalTooNew",
    "Match",
    "Operation",
    "OrderAlreadyPaid",
    "OrderHasUnknownAttempt",
    "OrderLine",
    "OrderTotals",
    "Outcome",
    "ParkStage",
    "ParkedOrder",
    "ParkingRefused",
    "Reconciliation",
    "RefHasPendingFollowUp",
    "ReturnRecord",
    "ReturnStage",
    "Summary",
    "SummaryLine",
    "TerminalBusy",
]
