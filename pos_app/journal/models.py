"""The journal's vocabulary: operations, outcomes, attempts and events as frozen values.

An ``Attempt`` is never stored as such: the attempt row holds what was asked (operation,
terminal, amount, request) and the append-only event rows hold what happened. ``fold``
is the single place that turns the two into the current view, so ``get``, ``in_flight``
and the reports can never disagree about an attempt's state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pos_app.journal.codec import load_json, parse_time


class Operation(StrEnum):
    SALE = "sale"
    PREAUTH = "preauth"
    CAPTURE = "capture"
    VOID = "void"
    REFUND = "refund"
    CLOSE_BATCH = "close_batch"


class Outcome(StrEnum):
    APPROVED = "approved"
    DECLINED = "declined"
    FAILED = "failed"
    UNKNOWN = "unknown"

    @property
    def is_final(self) -> bool:
        return self is not Outcome.UNKNOWN


MONEY_OPERATIONS = frozenset({Operation.SALE, Operation.PREAUTH, Operation.CAPTURE, Operation.REFUND})
"""Operations that carry an amount in cents."""
REF_OPERATIONS = frozenset({Operation.CAPTURE, Operation.VOID, Operation.REFUND})
"""Operations that act on an earlier transaction named by its pnRefNum."""
ORDER_OPERATIONS = frozenset({Operation.SALE, Operation.PREAUTH})
"""Operations that charge an order and are therefore guarded per order key."""
GATEWAYS = frozenset({"S", "B", "auto"})

SENT = "sent"
OUTCOME = "outcome"
RESERVED_KINDS = frozenset({SENT, OUTCOME})
"""Event kinds only ``mark_sent`` and ``finish``/``resolve_by_manager`` may append."""


@dataclass(frozen=True)
class Event:
    seq: int
    attempt_id: str
    kind: str
    at: datetime
    data: dict


@dataclass(frozen=True)
class Attempt:
    id: str
    operation: Operation
    terminal_id: str
    gateway: str
    amount: int | None
    order_key: str | None
    ref: str | None
    created_at: datetime
    request: dict
    sent: bool
    msg_identifier: str | None
    last_status: str | None
    outcome: Outcome | None
    result: dict
    resolved_by: str | None
    events: tuple[Event, ...] = ()

    @property
    def in_flight(self) -> bool:
        """No outcome recorded yet: the terminal is still taken by this attempt."""
        return self.outcome is None

    @property
    def needs_resolution(self) -> bool:
        """In flight or ``unknown``: money may or may not have moved."""
        return self.outcome is None or self.outcome is Outcome.UNKNOWN

    @property
    def is_final(self) -> bool:
        return self.outcome is not None and self.outcome.is_final


ATTEMPT_COLUMNS = "id, operation, terminal_id, gateway, amount, order_key, ref, created_at, request"
EVENT_COLUMNS = "seq, attempt_id, kind, at, outcome, data"


def make_event(row: tuple) -> Event:
    seq, attempt_id, kind, at, _outcome, data = row
    return Event(seq=seq, attempt_id=attempt_id, kind=kind, at=parse_time(at), data=load_json(data))


def fold(row: tuple, events: Iterable[Event], *, keep_events: bool) -> Attempt:
    """The current view of one attempt: its row plus its events in ``seq`` order."""
    attempt_id, operation, terminal_id, gateway, amount, order_key, ref, created_at, request = row
    sent = False
    msg_identifier: str | None = None
    last_status: str | None = None
    outcome: Outcome | None = None
    result: dict = {}
    resolved_by: str | None = None
    kept: list[Event] = []
    for event in events:
        if keep_events:
            kept.append(event)
        data = event.data
        if event.kind == SENT:
            sent = True
        elif event.kind == "poll_status" and isinstance(data.get("status"), str):
            last_status = data["status"]
        elif event.kind == OUTCOME:
            outcome = Outcome(data["outcome"])
            result = data.get("result") or {}
            resolved_by = data.get("resolved_by")
            data = result
        identifier = data.get("msgIdentifier")
        if isinstance(identifier, str) and identifier:
            msg_identifier = identifier
    return Attempt(
        id=attempt_id,
        operation=Operation(operation),
        terminal_id=terminal_id,
        gateway=gateway,
        amount=amount,
        order_key=order_key,
        ref=ref,
        created_at=parse_time(created_at),
        request=load_json(request),
        sent=sent,
        msg_identifier=msg_identifier,
        last_status=last_status,
        outcome=outcome,
        result=result,
        resolved_by=resolved_by,
        events=tuple(kept),
    )
