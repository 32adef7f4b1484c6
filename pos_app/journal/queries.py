"""The SQL of the journal's hot paths, written so that none of them reads history.

Every check made while a cashier waits (is the terminal busy, is the order unresolved or
paid, what state is this attempt in) and the recovery scan start from the small
``open_attempts`` index or a primary key. They live here, apart from the ``Journal``
logic, so that the query-plan test checks exactly the text the store runs; so do the two
small readers that decode an attempt's state and latest result for the write guards.
"""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from pos_app.journal.codec import load_json
from pos_app.journal.errors import AttemptNotFound
from pos_app.journal.models import (
    ATTEMPT_COLUMNS,
    EVENT_COLUMNS,
    ORDER_OPERATIONS,
    REFUND_OPERATIONS,
    VOID_OPERATIONS,
    Outcome,
    sql_list,
)

_A_COLUMNS = ", ".join("a." + column for column in ATTEMPT_COLUMNS.split(", "))
_CHARGES = sql_list(ORDER_OPERATIONS)
_VOIDS = sql_list(VOID_OPERATIONS)
_REFUNDS = sql_list(REFUND_OPERATIONS)
_E_COLUMNS = ", ".join("e." + column for column in EVENT_COLUMNS.split(", "))

LATEST_OUTCOME = (
    "(SELECT e.outcome FROM events e WHERE e.attempt_id = {id} AND e.kind = 'outcome' "
    "ORDER BY e.seq DESC LIMIT 1)"
)
BUSY_SQL = (
    "SELECT o.attempt_id FROM open_attempts o WHERE o.terminal_id = ? AND NOT EXISTS "
    "(SELECT 1 FROM events e WHERE e.attempt_id = o.attempt_id AND e.kind = 'outcome') LIMIT 1"
)
# A sale or pre-auth whose outcome is unknown still holds its terminal for the next sale or
# pre-auth: its message may still be pending there, and the same customer is in front of it.
TERMINAL_HOLD_SQL = (
    f"SELECT o.attempt_id, {LATEST_OUTCOME.format(id='o.attempt_id')} "
    "FROM open_attempts o CROSS JOIN attempts a ON a.id = o.attempt_id "
    f"WHERE o.terminal_id = ? AND a.operation IN {_CHARGES} ORDER BY a.rowid LIMIT 1"
)
# A capture, void or refund on a reference whose earlier follow-up is unresolved could move
# the money twice: the reference is held until that one is resolved.
REF_OPEN_SQL = (
    "SELECT o.attempt_id FROM open_attempts o CROSS JOIN attempts a ON a.id = o.attempt_id "
    "WHERE a.ref = ? ORDER BY a.rowid LIMIT 1"
)
ORDER_OPEN_SQL = (
    f"SELECT o.attempt_id, {LATEST_OUTCOME.format(id='o.attempt_id')} FROM open_attempts o "
    "WHERE o.order_key = ? ORDER BY o.attempt_id LIMIT 1"
)
# Paid: an approved (or partially approved) outcome, or a late approval that arrived after
# a decision (a conflict: the customer was charged whatever the journal decided), with the
# transaction id charged. A partial approval counts: the rest is taken another way, never by
# charging the order again. A charge voided since (``VOID_OF_SQL``) no longer pays the order.
ORDER_PAID_SQL = (
    "SELECT a.id, (SELECT coalesce(json_extract(e.data, '$.result.transaction_id'), "
    "json_extract(e.data, '$.transaction_id')) FROM events e WHERE e.attempt_id = a.id "
    "AND e.kind IN ('outcome', 'late_answer') ORDER BY e.seq DESC LIMIT 1) "
    f"FROM attempts a WHERE a.order_key = ? AND a.operation IN {_CHARGES} "
    "AND EXISTS (SELECT 1 FROM events e WHERE e.attempt_id = a.id AND ("
    "(e.kind = 'outcome' AND e.outcome IN ('approved', 'partially_approved')) OR "
    "(e.kind = 'late_answer' AND json_extract(e.data, '$.outcome') IN ('approved', 'partially_approved'))))"
)
VOID_OF_SQL = (
    "SELECT v.id FROM attempts v CROSS JOIN events e ON e.attempt_id = v.id WHERE v.ref = ? "
    f"AND v.operation IN {_VOIDS} AND e.kind = 'outcome' AND e.outcome = 'approved' LIMIT 1"
)
# cents approved refunds gave back of a charge (its transaction id): what it no longer pays
REFUNDED_OF_SQL = (
    f"SELECT coalesce(sum(r.amount), 0) FROM attempts r WHERE r.ref = ? AND r.operation IN {_REFUNDS} "
    "AND EXISTS (SELECT 1 FROM events e WHERE e.attempt_id = r.id AND e.kind = 'outcome' "
    "AND e.outcome = 'approved')"
)
# cents follow-ups with no known answer yet (in flight or unknown) may have given back of a
# charge: open refunds' amounts, and whether an open void may have taken all of it
OPEN_REFUNDS_OF_SQL = (
    "SELECT coalesce(sum(a.amount), 0) FROM open_attempts o CROSS JOIN attempts a ON a.id = o.attempt_id "
    f"WHERE a.ref = ? AND a.operation IN {_REFUNDS}"
)
OPEN_VOID_OF_SQL = (
    "SELECT o.attempt_id FROM open_attempts o CROSS JOIN attempts a ON a.id = o.attempt_id "
    f"WHERE a.ref = ? AND a.operation IN {_VOIDS} LIMIT 1"
)
# the order a charge (its transaction id or payment id) paid, when it was made for one
ORDER_OF_CHARGE_SQL = (
    f"SELECT a.order_key FROM attempts a WHERE a.order_key IS NOT NULL AND a.operation IN {_CHARGES} "
    "AND EXISTS (SELECT 1 FROM events e WHERE e.attempt_id = a.id AND e.kind IN ('outcome', 'late_answer') "
    "AND (coalesce(json_extract(e.data, '$.result.transaction_id'), json_extract(e.data, '$.transaction_id')) = ? "
    "OR coalesce(json_extract(e.data, '$.result.payment_id'), json_extract(e.data, '$.payment_id')) = ?)) "
    "ORDER BY a.rowid LIMIT 1"
)
ORDER_ROWS_SQL = (
    f"SELECT {_A_COLUMNS} FROM attempts a WHERE a.order_key = ? AND a.operation IN {_CHARGES} "
    "ORDER BY a.rowid"
)
ORDER_EVENTS_SQL = (
    f"SELECT {_E_COLUMNS} FROM attempts a CROSS JOIN events e ON e.attempt_id = a.id "
    f"WHERE a.order_key = ? AND a.operation IN {_CHARGES} ORDER BY e.seq"
)
# Not a hot path (a follow-up names a pnRefNum the journal may know): the payment id an
# earlier outcome recorded for that gateway transaction id.
PAYMENT_FOR_REF_SQL = (
    "SELECT json_extract(e.data, '$.result.payment_id') FROM events e WHERE e.kind = 'outcome' "
    "AND json_extract(e.data, '$.result.transaction_id') = ? "
    "AND json_extract(e.data, '$.result.payment_id') IS NOT NULL ORDER BY e.seq DESC LIMIT 1"
)
CHARGE_OWNER_SQL = (
    "SELECT e.attempt_id FROM events e CROSS JOIN attempts a ON a.id = e.attempt_id "
    f"WHERE e.kind IN ('outcome', 'late_answer') AND a.operation IN {_CHARGES} "
    "AND coalesce(json_extract(e.data, '$.result.payment_id'), json_extract(e.data, '$.payment_id')) = ? "
    f"OR e.kind IN ('outcome', 'late_answer') AND a.operation IN {_CHARGES} "
    "AND coalesce(json_extract(e.data, '$.result.transaction_id'), json_extract(e.data, '$.transaction_id')) = ? "
    "ORDER BY e.seq LIMIT 1"
)
# The other sale or pre-auth whose outcome charged the same payment (by id, then by gateway
# transaction id), through the outcome indexes of version 7.
CHARGED_BY_SQL = (
    "SELECT e.attempt_id FROM events e CROSS JOIN attempts a ON a.id = e.attempt_id "
    "WHERE e.kind = 'outcome' AND json_extract(e.data, '$.result.payment_id') = ? AND e.attempt_id <> ? "
    f"AND e.outcome IN ('approved', 'partially_approved') AND a.operation IN {_CHARGES} "
    "UNION ALL "
    "SELECT e.attempt_id FROM events e CROSS JOIN attempts a ON a.id = e.attempt_id "
    "WHERE e.kind = 'outcome' AND json_extract(e.data, '$.result.transaction_id') = ? AND e.attempt_id <> ? "
    f"AND e.outcome IN ('approved', 'partially_approved') AND a.operation IN {_CHARGES} LIMIT 1"
)
STATE_SQL = (
    "SELECT EXISTS (SELECT 1 FROM events e WHERE e.attempt_id = a.id AND e.kind = 'sent'), "
    f"{LATEST_OUTCOME.format(id='a.id')}, "
    "(SELECT e.data FROM events e WHERE e.attempt_id = a.id AND e.kind = 'claimed' "
    "ORDER BY e.seq DESC LIMIT 1), a.owner FROM attempts a WHERE a.id = ?"
)
# CROSS JOIN pins the small open_attempts index as the outer loop (SQLite keeps the order
# of CROSS JOIN operands); without statistics the planner would otherwise scan history.
IN_FLIGHT_ROWS_SQL = (
    f"SELECT {_A_COLUMNS} "
    "FROM open_attempts o CROSS JOIN attempts a ON a.id = o.attempt_id ORDER BY a.rowid"
)
IN_FLIGHT_EVENTS_SQL = (
    f"SELECT {_E_COLUMNS} "
    "FROM open_attempts o CROSS JOIN events e ON e.attempt_id = o.attempt_id ORDER BY e.seq"
)


def list_sql(*, day: bool, terminal: bool, since: bool = False) -> tuple[str, str]:
    """Attempt rows and their events, optionally limited to a created_at range, a terminal
    and a start.

    Parameters, in order: ``start, end`` (UTC text) when ``day``, then the terminal id, then
    the start (UTC text) when ``since``.
    """
    where = []
    if day:
        where.append("a.created_at >= ? AND a.created_at < ?")
    if terminal:
        where.append("a.terminal_id = ?")
    if since:
        where.append("a.created_at >= ?")
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = f"SELECT {_A_COLUMNS} FROM attempts a {clause} ORDER BY a.rowid"
    events = f"SELECT {_E_COLUMNS} FROM attempts a CROSS JOIN events e ON e.attempt_id = a.id {clause} ORDER BY e.seq"
    return rows, events


CHANGED_WHERE = ("WHERE a.created_at >= ? AND a.created_at < ? AND a.rowid <= ? "
                 "AND (a.rowid > ? OR a.id IN (SELECT attempt_id FROM events WHERE seq > ? AND seq <= ?))")
CHANGED_ROWS_SQL = f"SELECT {_A_COLUMNS} FROM attempts a {CHANGED_WHERE} ORDER BY a.rowid"
CHANGED_EVENTS_SQL = (f"SELECT {_E_COLUMNS} FROM attempts a CROSS JOIN events e ON e.attempt_id = a.id "
                      f"{CHANGED_WHERE} AND e.seq <= ? ORDER BY e.seq")
"""Attempts of a day begun, or given an event, after a mark (last rowid, last seq), and all
their events up to the new mark. Parameters: start, end, new rowid, old rowid, old seq, new
seq (and new seq again for the events)."""
_NEWEST_WHERE = ("WHERE a.rowid IN (SELECT rowid FROM attempts WHERE created_at >= ? AND created_at < ? "
                 "ORDER BY rowid DESC LIMIT ?)")
NEWEST_ROWS_SQL = f"SELECT {_A_COLUMNS} FROM attempts a {_NEWEST_WHERE} ORDER BY a.rowid"
NEWEST_EVENTS_SQL = (f"SELECT {_E_COLUMNS} FROM attempts a CROSS JOIN events e ON e.attempt_id = a.id "
                     f"{_NEWEST_WHERE} ORDER BY e.seq")
"""The ``limit`` attempts of a day begun last, and their events. Parameters: start, end, limit."""
MARK_SQL = "SELECT (SELECT coalesce(max(rowid), 0) FROM attempts), (SELECT coalesce(max(seq), 0) FROM events)"


class State(NamedTuple):
    """What the write guards need to know of one attempt, read inside their transaction."""

    sent: bool
    outcome: Outcome | None
    """The latest outcome, if any."""
    holder: str | None
    """The owner of the latest ``claimed`` event, else the owner that began the attempt."""


def attempt_state(conn: sqlite3.Connection, attempt_id: str) -> State:
    """The attempt's ``State``; ``AttemptNotFound`` if there is none."""
    row = conn.execute(STATE_SQL, (attempt_id,)).fetchone()
    if row is None:
        raise AttemptNotFound(attempt_id)
    sent, outcome, claim, begun_by = row
    holder = load_json(claim).get("owner") if claim else begun_by
    return State(bool(sent), None if outcome is None else Outcome(outcome), holder)


def latest_result(conn: sqlite3.Connection, attempt_id: str) -> dict[str, Any]:
    """The ``result`` of the attempt's latest outcome event (``{}`` if none)."""
    row = conn.execute(
        "SELECT data FROM events WHERE attempt_id = ? AND kind = 'outcome' ORDER BY seq DESC LIMIT 1",
        (attempt_id,),
    ).fetchone()
    return load_json(row[0]).get("result") or {} if row else {}
