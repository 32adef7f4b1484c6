"""``Journal``: the durable record of every money-moving terminal request.

Each write is its own ``BEGIN IMMEDIATE`` transaction, committed with ``synchronous=FULL``
before the method returns, so whatever a method reported is on disk. The checks that keep
money safe (one in-flight attempt per terminal, no second charge of an order whose earlier
attempt is unknown or approved, no second send) are made inside that same transaction, so
they hold between processes sharing the file, not just inside one.

Rows are only ever inserted; the one exception is ``open_attempts``, an index of attempts
that still need an outcome, whose row is deleted when the attempt gets a final outcome.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path

from pos_app.journal import queries, reports
from pos_app.journal.codec import day_bounds, dump_json, load_json, parse_time, resolve_tz, time_text, utc_now
from pos_app.journal.errors import (
    AttemptNotFound,
    InvalidResolution,
    InvalidTransition,
    JournalCorrupt,
    JournalError,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    TerminalBusy,
    from_sqlite,
)
from pos_app.journal.models import (
    ATTEMPT_COLUMNS,
    EVENT_COLUMNS,
    ORDER_OPERATIONS,
    OUTCOME,
    SENT,
    Attempt,
    Operation,
    Outcome,
    check_attempt_args,
    check_kind,
    fold,
    fold_many,
    make_event,
)
from pos_app.journal.schema import connect

DEFAULT_BUSY_TIMEOUT = 2.0
"""Seconds a write waits for another process's transaction before ``JournalLocked``."""

def new_attempt_id() -> str:
    """``a-`` and 20 URL-safe characters (120 random bits)."""
    return "a-" + secrets.token_urlsafe(15)


class Journal:
    """One open journal file. Use from one thread; other processes may open the same file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], datetime]) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._path = path
        self._clock = clock

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        clock: Callable[[], datetime] | None = None,
    ) -> Journal:
        """Open (creating it and its folders if needed) and migrate the journal at ``path``.

        Raises ``JournalCorrupt`` (not SQLite, damaged, or not a pos-app journal),
        ``JournalTooNew`` (newer schema) or ``JournalLocked``; refused files are not written.
        """
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the folder for journal {path}: {exc}") from None
        return cls(connect(path, busy_timeout=busy_timeout), path, clock or utc_now)

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def verify(self) -> None:
        """Read every page (``PRAGMA quick_check``); ``JournalCorrupt`` naming the damage.

        Not done by ``open``: it reads the whole file (about 0.2 s at 100,000 attempts),
        while ``open`` only makes the cheap checks. Meant for a maintenance command.
        """
        with self._read("checking the journal's integrity") as conn:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise JournalCorrupt(f"journal {self._path} is damaged: {'; '.join(problems)}")

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def _transaction(self, begin: str, action: str) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        if conn is None:
            raise JournalError(f"journal {self._path} is closed")
        try:
            conn.execute(begin)
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise from_sqlite(exc, self._path, action) from None

    def _write(self, action: str):
        return self._transaction("BEGIN IMMEDIATE", action)

    def _read(self, action: str):
        return self._transaction("BEGIN", action)

    def _now(self) -> str:
        return time_text(self._clock())

    def _append(self, conn: sqlite3.Connection, attempt_id: str, kind: str, data: dict,
                outcome: Outcome | None = None) -> None:
        conn.execute(
            "INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES (?, ?, ?, ?, ?)",
            (attempt_id, kind, self._now(), outcome, dump_json(data, what=f"{kind} data")),
        )

    @staticmethod
    def _state(conn: sqlite3.Connection, attempt_id: str) -> tuple[bool, Outcome | None]:
        row = conn.execute(queries.STATE_SQL, (attempt_id,)).fetchone()
        if row is None:
            raise AttemptNotFound(attempt_id)
        return bool(row[0]), None if row[1] is None else Outcome(row[1])

    # -- writes -------------------------------------------------------------------------

    def begin_attempt(
        self,
        *,
        operation: Operation | str,
        terminal_id: str,
        gateway: str,
        amount: int | None = None,
        order_key: str | None = None,
        ref: str | None = None,
        request: dict,
    ) -> Attempt:
        """Record a new attempt, durably, before its request may leave.

        Raises ``TerminalBusy``, ``OrderHasUnknownAttempt``, ``OrderAlreadyPaid``, or
        ``ValueError`` for arguments that make no sense (and for a request naming the key-hash).
        """
        operation = Operation(operation)
        check_attempt_args(operation, terminal_id, gateway, amount, order_key, ref, request)
        request_text = dump_json(request, what="request")
        attempt_id = new_attempt_id()
        created = self._clock()
        with self._write(f"starting a {operation} on terminal {terminal_id!r}") as conn:
            busy = conn.execute(queries.BUSY_SQL, (terminal_id,)).fetchone()
            if busy:
                raise TerminalBusy(terminal_id, busy[0])
            if operation in ORDER_OPERATIONS and order_key is not None:
                unresolved = conn.execute(queries.ORDER_OPEN_SQL, (order_key,)).fetchone()
                if unresolved:
                    raise OrderHasUnknownAttempt(order_key, unresolved[0], in_flight=unresolved[1] is None)
                paid = conn.execute(queries.ORDER_PAID_SQL, (order_key,)).fetchone()
                if paid:
                    raise OrderAlreadyPaid(order_key, paid[0])
            conn.execute(
                f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (attempt_id, operation.value, terminal_id, gateway, amount, order_key, ref,
                 time_text(created), request_text),
            )
            conn.execute(
                "INSERT INTO open_attempts (attempt_id, terminal_id, order_key) VALUES (?, ?, ?)",
                (attempt_id, terminal_id, order_key),
            )
        return Attempt(
            id=attempt_id, operation=operation, terminal_id=terminal_id, gateway=gateway,
            amount=amount, order_key=order_key, ref=ref, created_at=parse_time(time_text(created)),
            request=load_json(request_text), sent=False, msg_identifier=None, last_status=None,
            outcome=None, result={}, resolved_by=None,
        )

    def mark_sent(self, attempt_id: str) -> None:
        """Append ``sent`` right before the request leaves; a second send is refused."""
        with self._write(f"marking attempt {attempt_id} sent") as conn:
            sent, outcome = self._state(conn, attempt_id)
            if outcome is not None:
                raise InvalidTransition(
                    f"attempt {attempt_id} already has outcome {outcome.value!r}; its request must not be sent"
                )
            if sent:
                raise InvalidTransition(
                    f"attempt {attempt_id} was already sent; a request is never sent twice "
                    "(resume it by polling or looking it up instead)"
                )
            self._append(conn, attempt_id, SENT, {})

    def record(self, attempt_id: str, kind: str, data: dict | None = None) -> None:
        """Append an event such as ``msg_identifier``, ``poll_status``, ``answer``, ``lookup``."""
        check_kind(kind)
        data = {} if data is None else data
        dump_json(data, what=f"{kind} data")  # refuse before taking the write lock
        with self._write(f"recording {kind} for attempt {attempt_id}") as conn:
            self._state(conn, attempt_id)
            self._append(conn, attempt_id, kind, data)

    def finish(self, attempt_id: str, outcome: Outcome | str, result: dict | None = None) -> Attempt:
        """Append the outcome. A final one frees the terminal and closes the attempt; ``UNKNOWN``
        frees the terminal but keeps the attempt in ``in_flight()`` and blocks its order.

        Finishing again with the same final outcome (and no new result) changes nothing;
        changing a final outcome raises ``InvalidResolution``.
        """
        outcome = Outcome(outcome)
        data = {"outcome": outcome.value, "result": {} if result is None else result}
        dump_json(data, what="outcome result")
        with self._write(f"finishing attempt {attempt_id} as {outcome.value}") as conn:
            _, current = self._state(conn, attempt_id)
            repeated = current is outcome and outcome.is_final and (
                result is None or result == self._latest_result(conn, attempt_id)
            )
            if current is not None and current.is_final and not repeated:
                raise InvalidResolution(
                    f"attempt {attempt_id} already has the final outcome {current.value!r}; "
                    f"it cannot become {outcome.value!r}"
                )
            if not repeated:
                self._append(conn, attempt_id, OUTCOME, data, outcome)
                if outcome.is_final:
                    conn.execute("DELETE FROM open_attempts WHERE attempt_id = ?", (attempt_id,))
        return self.get(attempt_id)

    def resolve_by_manager(self, attempt_id: str, *, paid: bool, reason: str, by: str) -> Attempt:
        """A manager's decision on an ``unknown`` or in-flight attempt: paid → approved,
        not paid → failed, recorded with who decided, why, and when."""
        if not isinstance(paid, bool):
            raise ValueError(f"paid must be True or False, got {paid!r}")
        for name, value in (("reason", reason), ("by", by)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"a manager resolution needs a non-empty {name}")
        outcome = Outcome.APPROVED if paid else Outcome.FAILED
        decision = "paid" if paid else "not_paid"
        with self._write(f"resolving attempt {attempt_id}") as conn:
            _, current = self._state(conn, attempt_id)
            if current is not None and current.is_final:
                raise InvalidResolution(
                    f"attempt {attempt_id} already has the final outcome {current.value!r}; a manager "
                    "resolves only attempts that are in flight or unknown"
                )
            data = {
                "outcome": outcome.value,
                "result": {"decision": decision, "reason": reason.strip()},
                "resolved_by": by.strip(),
                "reason": reason.strip(),
                "previous_outcome": None if current is None else current.value,
            }
            self._append(conn, attempt_id, OUTCOME, data, outcome)
            conn.execute("DELETE FROM open_attempts WHERE attempt_id = ?", (attempt_id,))
        return self.get(attempt_id)

    @staticmethod
    def _latest_result(conn: sqlite3.Connection, attempt_id: str) -> dict:
        row = conn.execute(
            "SELECT data FROM events WHERE attempt_id = ? AND kind = 'outcome' ORDER BY seq DESC LIMIT 1",
            (attempt_id,),
        ).fetchone()
        return load_json(row[0]).get("result") or {} if row else {}

    # -- reads --------------------------------------------------------------------------

    def get(self, attempt_id: str) -> Attempt:
        """The attempt with all its events; ``AttemptNotFound`` if there is none."""
        with self._read(f"reading attempt {attempt_id}") as conn:
            row = conn.execute(f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
            if row is None:
                raise AttemptNotFound(attempt_id)
            events = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
            ).fetchall()
        return fold(row, map(make_event, events), keep_events=True)

    def in_flight(self) -> list[Attempt]:
        """Attempts to resume: no outcome yet, or ``unknown`` and not resolved; in the order begun.

        ``sent`` False means the request certainly never left (``mark_sent`` precedes it);
        True means it may have. ``msg_identifier`` is set once one was recorded.
        """
        with self._read("listing attempts in flight") as conn:
            rows = conn.execute(queries.IN_FLIGHT_ROWS_SQL).fetchall()
            events = conn.execute(queries.IN_FLIGHT_EVENTS_SQL).fetchall()
        found = fold_many(rows, events, keep_events=False)
        return [attempt for attempt in found if attempt.needs_resolution]

    def attempts(
        self, *, day: date | None = None, terminal_id: str | None = None, tz: tzinfo | str | None = None
    ) -> list[Attempt]:
        """Attempts created on ``day`` (calendar day in ``tz``, default local time) and/or on
        one terminal, in the order they were begun, without their events."""
        return self._list(day, terminal_id, tz, keep_events=False)

    def _list(
        self, day: date | None, terminal_id: str | None, tz: tzinfo | str | None, *, keep_events: bool
    ) -> list[Attempt]:
        params: list[str] = []
        if day is not None:
            params.extend(day_bounds(day, resolve_tz(tz)))
        if terminal_id is not None:
            params.append(terminal_id)
        rows_sql, events_sql = queries.list_sql(day=day is not None, terminal=terminal_id is not None)
        with self._read("listing attempts") as conn:
            rows = conn.execute(rows_sql, params).fetchall()
            events = conn.execute(events_sql, params).fetchall()
        return fold_many(rows, events, keep_events=keep_events)

    def summary(self, day: date, tz: tzinfo | str | None = None) -> reports.Summary:
        """Counts and cents per terminal, operation and outcome for attempts created on ``day``."""
        zone = resolve_tz(tz)
        return reports.build_summary(day, zone, self.attempts(day=day, tz=zone))

    def reconcile(
        self, service_entries: list[dict], *, day: date | None = None, tz: tzinfo | str | None = None
    ) -> reports.Reconciliation:
        """Compare the service's transaction list with the journal (all of it, or ``day``)."""
        zone = resolve_tz(tz)
        candidates = self._list(day, None, zone, keep_events=True)

        def lookup(attempt_id: str) -> Attempt | None:
            try:
                return self.get(attempt_id)
            except AttemptNotFound:
                return None

        return reports.reconcile(service_entries, candidates, lookup)
