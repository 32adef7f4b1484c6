"""The journal's vocabulary: operations, outcomes, attempts and events as frozen values.

An ``Attempt`` is never stored as such: the attempt row holds what was asked (operation,
terminal, amount, request) and the append-only event rows hold what happened. ``fold``
is the single place that turns the two into the current view, so ``get``, ``in_flight``
and the reports can never disagree about an attempt's state. The argument rules of a new
attempt (which operations carry an amount or a ref) live here beside the enums they use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from itertools import groupby
from typing import Any, NamedTuple

from pos_app.i18n import _
from pos_app.journal.codec import load_json, parse_time


class Operation(StrEnum):
    SALE = "sale"
    PREAUTH = "preauth"
    CAPTURE = "capture"
    VOID = "void"
    REFUND = "refund"
    CLOSE_BATCH = "close_batch"
    CARD_CHARGE = "card_charge"
    """A charge through the service's charge route: a customer's card on file (no terminal)."""
    CARD_CAPTURE = "card_capture"
    CARD_VOID = "card_void"
    CARD_REFUND = "card_refund"
    """Follow-ups of a service payment, named by its payment id (``ref``)."""
    ACH_CHARGE = "ach_charge"
    ACH_VOID = "ach_void"
    ACH_REFUND = "ach_refund"
    SUBSCRIPTION_RETRY = "subscription_retry"
    """A subscription's schedule entry charged again now (a state-changing GET): its order is
    ``schedule:<entry id>``, so the same entry is never charged twice."""

    @property
    def acts_as(self) -> Operation:
        """The terminal operation this one moves money like (a card charge like a sale, an
        ACH refund like a refund): how its answers and payments are judged."""
        return _ACTS_AS.get(self, self)


class Outcome(StrEnum):
    APPROVED = "approved"
    """Money moved, for the amount asked (or, flagged for a manager, for more)."""
    PARTIALLY_APPROVED = "partially_approved"
    """Money moved for less than a sale or pre-auth asked: ``result.approved_amount`` cents."""
    DECLINED = "declined"
    FAILED = "failed"
    UNKNOWN = "unknown"

    @property
    def is_final(self) -> bool:
        return self is not Outcome.UNKNOWN

    @property
    def moved_money(self) -> bool:
        """The card was charged (or the amount held, or the follow-up done), in full or in part."""
        return self in (Outcome.APPROVED, Outcome.PARTIALLY_APPROVED)


_ACTS_AS = {
    Operation.CARD_CHARGE: Operation.SALE, Operation.ACH_CHARGE: Operation.SALE,
    Operation.SUBSCRIPTION_RETRY: Operation.SALE,
    Operation.CARD_CAPTURE: Operation.CAPTURE,
    Operation.CARD_VOID: Operation.VOID, Operation.ACH_VOID: Operation.VOID,
    Operation.CARD_REFUND: Operation.REFUND, Operation.ACH_REFUND: Operation.REFUND,
}
MONEY_OPERATIONS = frozenset({Operation.SALE, Operation.PREAUTH, Operation.CAPTURE, Operation.REFUND,
                              Operation.CARD_CHARGE, Operation.CARD_CAPTURE, Operation.CARD_REFUND,
                              Operation.ACH_CHARGE, Operation.ACH_REFUND, Operation.SUBSCRIPTION_RETRY})
"""Operations that carry an amount in cents."""
REF_OPERATIONS = frozenset({Operation.CAPTURE, Operation.VOID, Operation.REFUND, Operation.CARD_CAPTURE,
                            Operation.CARD_VOID, Operation.CARD_REFUND, Operation.ACH_VOID, Operation.ACH_REFUND})
"""Operations that act on an earlier transaction: its pnRefNum on a terminal, its payment
id on the service's payment routes."""
ORDER_OPERATIONS = frozenset({Operation.SALE, Operation.PREAUTH, Operation.CARD_CHARGE, Operation.ACH_CHARGE,
                              Operation.SUBSCRIPTION_RETRY})
"""Operations that charge an order and are therefore guarded per order key."""
LISTED_OPERATIONS = ORDER_OPERATIONS - {Operation.SUBSCRIPTION_RETRY}
"""Charges the service's transaction list shows: a subscription's retry is not listed there."""
VOID_OPERATIONS = frozenset({Operation.VOID, Operation.CARD_VOID, Operation.ACH_VOID})
REFUND_OPERATIONS = frozenset({Operation.REFUND, Operation.CARD_REFUND, Operation.ACH_REFUND})


def sql_list(operations: frozenset[Operation]) -> str:
    """``('a', 'b')``: the operations as an SQL list, for the guards' queries."""
    return "(" + ", ".join(f"'{o.value}'" for o in sorted(operations)) + ")"
GATEWAYS = frozenset({"S", "B", "auto"})

SENT = "sent"
OUTCOME = "outcome"
CLAIMED = "claimed"
LATE_ANSWER = "late_answer"
"""An answer that arrived after the attempt already had a final outcome (``data.outcome``)."""
PAYMENT_BEFORE = "payment_before"
"""The payment's state read right before a capture, void or refund left (to verify it later)."""
AMOUNT_MISMATCH = "amount_mismatch"
"""The service approved more than was asked: the customer must get the difference back."""
SHARED_CHARGE = "shared_charge"
"""The payment an outcome names is already another attempt's charge: one charge, two orders."""
ATTENTION_KINDS = frozenset({"possible_match", "duplicate_entries", AMOUNT_MISMATCH, SHARED_CHARGE})
"""Events that put an attempt on a manager's list; each carries a ``note`` for a person."""
RESERVED_KINDS = frozenset({SENT, OUTCOME, CLAIMED})
"""Event kinds only ``mark_sent``, ``finish``/``resolve_by_manager`` and ``claim`` may append."""


@dataclass(frozen=True)
class Event:
    seq: int
    attempt_id: str
    kind: str
    at: datetime
    data: dict[str, Any]


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
    request_text: str
    """The request as journaled (JSON); ``request`` decodes it when asked, so that listing
    thousands of attempts never pays for it."""
    sent: bool
    msg_identifier: str | None
    last_status: str | None
    outcome: Outcome | None
    result: dict[str, Any]
    resolved_by: str | None
    owner: str | None
    """The owner (see ``owners``) holding the attempt now: the latest to ``claim`` it, else
    the one that began it; ``None`` if begun before schema version 3 and never claimed."""
    cashier: str | None = None
    """Who was signed in at the station when the attempt began; ``None`` for attempts begun
    without a cashier (automation) or before schema version 4."""
    events: tuple[Event, ...] = ()
    payment_before: dict[str, Any] | None = None
    """A follow-up's reading of its payment before the request left (``PAYMENT_BEFORE``)."""
    conflict: dict[str, Any] | None = None
    """The latest late answer whose outcome contradicts the final one: a problem to act on."""
    attention: tuple[str, ...] = ()
    """Notes for a manager (possible match, several service entries, a forced decision)."""

    @property
    def request(self) -> dict[str, Any]:
        return load_json(self.request_text)

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

    @property
    def charged(self) -> int | None:
        """Cents this attempt moved (what the service approved), ``None`` when it moved
        nothing or nobody knows yet."""
        if self.outcome is None or not self.outcome.moved_money:
            return None
        approved = self.result.get("approved_amount")
        return approved if isinstance(approved, int) and not isinstance(approved, bool) else self.amount


ATTEMPT_COLUMNS = (
    "id, operation, terminal_id, gateway, amount, order_key, ref, created_at, request, owner, cashier"  # not for people
)
EVENT_COLUMNS = "seq, attempt_id, kind, at, outcome, data"  # not for people
Row = tuple[Any, ...]
"""A row as ``sqlite3`` returns it, its columns in ``ATTEMPT_COLUMNS`` or ``EVENT_COLUMNS`` order."""


def make_event(row: Row) -> Event:
    seq, attempt_id, kind, at, _outcome, data = row
    return Event(seq=seq, attempt_id=attempt_id, kind=kind, at=parse_time(at), data=load_json(data))


class _Folded(NamedTuple):
    """What ``fold`` reads of an event when the events are not kept (no time to parse)."""

    kind: str
    data: dict[str, Any]


def fold(row: Row, events: Iterable[Event] | Iterable[_Folded], *, keep_events: bool) -> Attempt:
    """The current view of one attempt: its row plus its events in ``seq`` order."""
    attempt_id, operation, terminal_id, gateway, amount, order_key, ref, created_at, request, owner, cashier = row
    sent = False
    msg_identifier: str | None = None
    last_status: str | None = None
    outcome: Outcome | None = None
    result: dict[str, Any] = {}
    resolved_by: str | None = None
    payment_before: dict[str, Any] | None = None
    late: dict[str, Any] | None = None
    attention: list[str] = []
    kept: list[Event] = []
    for event in events:
        if keep_events and isinstance(event, Event):
            kept.append(event)
        data = event.data
        if event.kind == SENT:
            sent = True
        elif event.kind == "poll_status" and isinstance(data.get("status"), str):
            last_status = data["status"]
        elif event.kind == CLAIMED:
            owner = data.get("owner")
        elif event.kind == OUTCOME:
            outcome = Outcome(data["outcome"])
            result = data.get("result") or {}
            resolved_by = data.get("resolved_by")
            if data.get("forced"):
                attention.append(_("decided by {manager} without the service's answer: {reason}").format(
                    manager=resolved_by, reason=data.get("reason")))
            data = result
        elif event.kind == LATE_ANSWER:
            late = data
        elif event.kind == PAYMENT_BEFORE:
            payment_before = data
        elif event.kind == SHARED_CHARGE and _is_pair(data.get("attempts")) and isinstance(data.get("charge"), str):
            attention.append(shared_charge_note(data["charge"], *data["attempts"]))
        elif event.kind in ATTENTION_KINDS and isinstance(data.get("note"), str):
            attention.append(data["note"])
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
        request_text=request,
        sent=sent,
        msg_identifier=msg_identifier,
        last_status=last_status,
        outcome=outcome,
        result=result,
        resolved_by=resolved_by,
        owner=owner,
        cashier=cashier,
        events=tuple(kept),
        payment_before=payment_before,
        conflict=late if _contradicts(late, outcome) else None,
        attention=tuple(attention),
    )


def _contradicts(late: dict[str, Any] | None, outcome: Outcome | None) -> bool:
    """A late final answer that differs from the final outcome the attempt was given."""
    if late is None or outcome is None or not outcome.is_final:
        return False
    said = late.get("outcome")
    return said in {o.value for o in Outcome if o.is_final} and said != outcome.value


def fold_many(rows: list[Row], events: list[Row], *, keep_events: bool) -> list[Attempt]:
    """Attempt rows and the events of all of them (in ``seq`` order) as current views."""
    by_attempt: dict[str, list[Event] | list[_Folded]] = {}
    for attempt_id, group in groupby(sorted(events, key=lambda e: (e[1], e[0])), key=lambda e: e[1]):
        if keep_events:
            by_attempt[attempt_id] = [make_event(e) for e in group]
        else:
            by_attempt[attempt_id] = [_Folded(e[2], load_json(e[5])) for e in group]
    return [fold(row, by_attempt.get(row[0], ()), keep_events=keep_events) for row in rows]


def shared_charge_note(charge: str, other: str, attempt_id: str) -> str:
    """The sentence of a ``SHARED_CHARGE`` event, in the language in force (the event keeps
    its English ``note`` and what it names: the sentence is made again when shown)."""
    return _("one charge ({charge}) is recorded for attempts {other} and {attempt}: it paid one order only; "
             "check both with the customer").format(charge=charge, other=other, attempt=attempt_id)


def _is_pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(item, str) for item in value)


def check_attempt_args(
    operation: Operation, terminal_id: object, gateway: object, amount: object,
    order_key: object, ref: object, request: object,
) -> None:
    """``ValueError`` for an attempt that makes no sense (wrong amount, missing ref...)."""
    if not isinstance(terminal_id, str) or not terminal_id.strip():
        raise ValueError(f"terminal_id must be a non-empty string, got {terminal_id!r}")  # not for people
    if gateway not in GATEWAYS:
        raise ValueError(f"gateway must be one of {sorted(GATEWAYS)}, got {gateway!r}")  # not for people
    if operation in MONEY_OPERATIONS:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise ValueError(
                f"a {operation} needs amount as a positive whole number of cents, got {amount!r}")  # not for people
    elif amount is not None:
        raise ValueError(f"a {operation} carries no amount, got {amount!r}")  # not for people
    if operation in REF_OPERATIONS and (not isinstance(ref, str) or not ref.strip()):
        raise ValueError(f"a {operation} needs ref (the pnRefNum it acts on), got {ref!r}")  # not for people
    if ref is not None and not isinstance(ref, str):
        raise ValueError(f"ref must be a string, got {ref!r}")  # not for people
    if order_key is not None and (not isinstance(order_key, str) or not order_key.strip()):
        raise ValueError(f"order_key must be None or a non-empty string, got {order_key!r}")  # not for people
    if not isinstance(request, dict):
        raise ValueError(f"request must be a dict (the body as sent), got {type(request).__name__}")  # not for people
    if amount is not None and "amount" in request and request["amount"] != amount:
        raise ValueError(
            f"request amount {request['amount']!r} differs from the attempt amount {amount}")  # not for people
    named = request.get("terminalId", terminal_id)
    by_serial = operation is Operation.CLOSE_BATCH and named == request.get("serial")  # the terminal's serial
    if named != terminal_id and not by_serial:
        raise ValueError(
            f"request terminalId {request['terminalId']!r} differs from terminal_id {terminal_id!r}")  # not for people


_KIND = re.compile(r"[a-z][a-z0-9_]{0,39}")


def check_kind(kind: object) -> None:
    """``ValueError`` unless ``kind`` is a short lower_snake_case name ``record`` may write."""
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        raise ValueError(f"event kind must be a short lower_snake_case name, got {kind!r}")  # not for people
    if kind in RESERVED_KINDS:
        raise ValueError(
            f"event kind {kind!r} is written only by mark_sent/finish/resolve_by_manager/claim")  # not for people
