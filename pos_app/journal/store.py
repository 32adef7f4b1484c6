"""``Journal``: the durable record of every money-moving terminal request.

Each write is its own ``BEGIN IMMEDIATE`` transaction, committed with ``synchronous=FULL``
before the method returns, so whatever a method reported is on disk. The checks that keep
money safe (one in-flight attempt per terminal, no second charge of an order whose earlier
attempt is unknown or approved, no second send) are made inside that same transaction, so
they hold between processes sharing the file, not just inside one.

The cash ledger and the Z reports live in the same file (``ledger.CashLedger``: its part of
``Journal``), so that an order's card charges and cash are judged in one transaction.

Rows are only ever inserted; the one exception is ``open_attempts``, an index of attempts
that still need an outcome, whose row is deleted when the attempt gets a final outcome.

Every JSON value written (request, events, outcomes, notes, decisions) first goes through
the ``redact`` function given to ``open``: the journal does not know the key-hash, the
station that opens it does (``pos_app.api.secrets.Redactor.value``), and this is the one
place all of its writers pass through, whatever the service echoed into their data.

Each open ``Journal`` is an *owner* (``owners``) and holds the attempts it begins. Another
process resumes an attempt only after ``claim`` handed it over, which happens only when its
holder is no longer alive; only the holder may send an attempt's request.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any

from pos_app.i18n import SOURCE_LANGUAGE, _, in_language
from pos_app.journal import balance, orders, owners, queries, reports
from pos_app.journal.codec import day_bounds, dump_json, parse_time, resolve_tz, time_text, utc_now
from pos_app.journal.errors import (
    AboveBalance,
    AttemptNotFound,
    ChargeTaken,
    GivenBackAlready,
    InvalidResolution,
    InvalidTransition,
    JournalCorrupt,
    JournalError,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    RefHasPendingFollowUp,
    TerminalBusy,
    from_sqlite,
)
from pos_app.journal.ledger import CashLedger
from pos_app.journal.models import (
    ATTEMPT_COLUMNS,
    CLAIMED,
    EVENT_COLUMNS,
    ORDER_OPERATIONS,
    OUTCOME,
    REF_OPERATIONS,
    REFUND_OPERATIONS,
    SENT,
    SHARED_CHARGE,
    Attempt,
    Operation,
    Outcome,
    check_attempt_args,
    check_kind,
    fold,
    fold_many,
    make_event,
    shared_charge_note,
)
from pos_app.journal.parked import ParkedBook
from pos_app.journal.returns import ReturnBook
from pos_app.journal.schema import connect

Redact = Callable[[Any], Any]
"""Takes the secrets out of a JSON value before it is written (the same shape back)."""

DEFAULT_BUSY_TIMEOUT = 2.0
"""Seconds a write waits for another process's transaction before ``JournalLocked``."""


def new_attempt_id() -> str:
    """``a-`` and 20 URL-safe characters (120 random bits)."""
    return "a-" + secrets.token_urlsafe(15)


class Journal(CashLedger, ReturnBook, ParkedBook):
    """One open journal file. Use from one thread; other processes may open the same file."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, clock: Callable[[], datetime], lock: owners.OwnerLock,
        redact: Redact | None = None,
    ) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._path = path
        self._clock = clock
        self._lock = lock
        self._redact: Redact = redact or _as_it_is

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        clock: Callable[[], datetime] | None = None,
        redact: Redact | None = None,
    ) -> Journal:
        """Open (creating it and its folders if needed) and migrate the journal at ``path``,
        as a new owner whose lock file is ``<path>.owners/<owner>.lock`` until ``close``.
        ``redact`` is applied to every JSON value before it is written (see the module).

        Raises ``JournalCorrupt`` (not SQLite, damaged, or not a pos-app journal),
        ``JournalTooNew`` (newer schema) or ``JournalLocked``; refused files are not written
        (and get no owner lock file).
        """
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(_("cannot create the folder for journal {path}: {error}").format(
                path=path, error=exc)) from None
        conn = connect(path, busy_timeout=busy_timeout)
        try:
            lock = owners.OwnerLock.acquire(path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, clock or utc_now, lock, redact)

    @property
    def path(self) -> Path:
        return self._path

    @property
    def owner(self) -> str:
        """This journal's owner id: the holder of the attempts it begins or claims."""
        return self._lock.id

    def close(self) -> None:
        """Close the file, then release the owner lock (deleting its file): from then on
        other processes see this owner as dead and may claim its unfinished attempts."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                conn.close()
            finally:
                self._lock.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def verify(self) -> None:
        """Read every page (``PRAGMA quick_check``); ``JournalCorrupt`` naming the damage.

        Not done by ``open``: it reads the whole file (about 0.2 s at 100,000 attempts),
        while ``open`` only makes the cheap checks. Meant for a maintenance command.
        """
        with self._read(_("checking the journal's integrity")) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise JournalCorrupt(_("journal {path} is damaged: {problems}").format(
                path=self._path, problems="; ".join(problems)))

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def _transaction(self, begin: str, action: str) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        if conn is None:
            raise JournalError(_("journal {path} is closed").format(path=self._path))
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

    def _write(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        return self._transaction("BEGIN IMMEDIATE", action)

    def _read(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        return self._transaction("BEGIN", action)

    def _now(self) -> str:
        return time_text(self._clock())

    def _append(self, conn: sqlite3.Connection, attempt_id: str, kind: str, data: dict[str, Any],
                outcome: Outcome | None = None) -> None:
        conn.execute(
            "INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES (?, ?, ?, ?, ?)",
            (attempt_id, kind, self._now(), outcome, dump_json(self._redact(data), what=f"{kind} data")),
        )

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
        request: dict[str, Any],
        cashier: str | None = None,
    ) -> Attempt:
        """Record a new attempt, durably, before its request may leave.

        Refused with ``TerminalBusy`` while the terminal has an attempt without an outcome
        and, for a sale or pre-auth, also while it holds a sale or pre-auth whose outcome is
        unknown (``unknown=True``); with ``OrderHasUnknownAttempt`` for an order key with an
        unresolved sale/pre-auth; with ``OrderAlreadyPaid`` for an order whose charges and
        cash cover its latest recorded total, or, when none was recorded, that has an
        approved sale/pre-auth (a late approval after a decision counts as paid); with
        ``AboveBalance`` for a charge above what is still due on a recorded order; with
        ``RefHasPendingFollowUp`` for a capture, void or refund whose reference has an
        unresolved one. ``ValueError`` for arguments that make
        no sense (and for a request naming the key-hash).
        """
        operation = Operation(operation)
        check_attempt_args(operation, terminal_id, gateway, amount, order_key, ref, request)
        request_text = dump_json(self._redact(request), what="request")
        attempt_id = new_attempt_id()
        created = self._clock()
        with self._write(_("starting a {operation} on terminal {terminal}").format(
                operation=operation, terminal=repr(terminal_id))) as conn:
            busy = conn.execute(queries.BUSY_SQL, (terminal_id,)).fetchone()
            if busy:
                raise TerminalBusy(terminal_id, busy[0])
            if operation in ORDER_OPERATIONS:
                held = conn.execute(queries.TERMINAL_HOLD_SQL, (terminal_id,)).fetchone()
                if held:
                    raise TerminalBusy(terminal_id, held[0], unknown=held[1] is not None)
            if operation in REF_OPERATIONS and ref is not None:
                pending = conn.execute(queries.REF_OPEN_SQL, (ref,)).fetchone()
                if pending:
                    raise RefHasPendingFollowUp(ref, pending[0])
                order_of_ref = balance.order_of_charge(conn, ref) if operation in REFUND_OPERATIONS else None
                if order_of_ref is not None and amount is not None:
                    kept = balance.order_kept_for_giving_back(conn, order_of_ref)
                    if amount > kept:
                        raise GivenBackAlready(order_of_ref, amount, kept)
            if operation in ORDER_OPERATIONS and order_key is not None:
                unresolved = conn.execute(queries.ORDER_OPEN_SQL, (order_key,)).fetchone()
                if unresolved:
                    raise OrderHasUnknownAttempt(order_key, unresolved[0], in_flight=unresolved[1] is None)
                due = balance.order_due(conn, order_key)
                if due is None:  # no total recorded: any charge not voided since pays the order
                    paid_by = next(iter(balance.order_charged(conn, order_key)), None)
                    if paid_by is not None:
                        raise OrderAlreadyPaid(order_key, paid_by)
                elif due[0] <= 0 and due[1] is not None:
                    raise OrderAlreadyPaid(order_key, due[1])
                elif amount is not None and amount > due[0]:
                    raise AboveBalance(order_key, amount, due[0])
            conn.execute(
                f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (attempt_id, operation.value, terminal_id, gateway, amount, order_key, ref,
                 time_text(created), request_text, self.owner, cashier),
            )
            conn.execute(
                "INSERT INTO open_attempts (attempt_id, terminal_id, order_key) VALUES (?, ?, ?)",
                (attempt_id, terminal_id, order_key),
            )
        return Attempt(
            id=attempt_id, operation=operation, terminal_id=terminal_id, gateway=gateway,
            amount=amount, order_key=order_key, ref=ref, created_at=parse_time(time_text(created)),
            request_text=request_text, sent=False, msg_identifier=None, last_status=None,
            outcome=None, result={}, resolved_by=None, owner=self.owner, cashier=cashier,
        )

    def record_order(self, order_key: str, *, subtotal: int, tax: int, taxes: Mapping[str, int],
                     lines: Iterable[orders.OrderLine] | None = None) -> None:
        """Record what the cart of ``order_key`` comes to as it is sent to be paid (cents;
        ``taxes``: by tax name; ``lines``: what it sells), durably, before the payment's
        attempt is begun. ``ValueError`` for totals that make no sense (a negative tax, a
        float, a blank key) or lines that are not ``OrderLine``s."""
        checked = orders.check_totals(order_key, subtotal, tax, taxes)
        kept = orders.check_lines(lines)
        with self._write(_("recording the totals of order {order}").format(order=order_key)) as conn:
            orders.insert(conn, order_key, self._now(), subtotal, tax, checked, kept)

    def order_lines(self, order_key: str) -> list[orders.OrderLine] | None:
        """The lines the order was last sent to be paid with (None: none were recorded)."""
        with self._read(_("reading the lines of order {order}").format(order=order_key)) as conn:
            return orders.read_lines(conn, order_key)

    def mark_sent(self, attempt_id: str) -> None:
        """Append ``sent`` right before the request leaves; a second send is refused, and so
        is a send by anyone but the attempt's holder (another process may have claimed it)."""
        with self._write(_("marking attempt {attempt} sent").format(attempt=attempt_id)) as conn:
            sent, outcome, holder = queries.attempt_state(conn, attempt_id)
            if outcome is not None:
                raise InvalidTransition(_(
                    "attempt {attempt} already has outcome {outcome}; its request must not be sent"
                ).format(attempt=attempt_id, outcome=repr(outcome.value)))
            if sent:
                raise InvalidTransition(_(
                    "attempt {attempt} was already sent; a request is never sent twice "
                    "(resume it by polling or looking it up instead)"
                ).format(attempt=attempt_id))
            if holder not in (None, self.owner):
                raise InvalidTransition(_(
                    "attempt {attempt} is held by {holder}, not by this process ({owner}); "
                    "its request must not be sent from here"
                ).format(attempt=attempt_id, holder=holder, owner=self.owner))
            self._append(conn, attempt_id, SENT, {})

    def record(self, attempt_id: str, kind: str, data: dict[str, Any] | None = None) -> None:
        """Append an event such as ``msg_identifier``, ``poll_status``, ``answer``, ``lookup``."""
        check_kind(kind)
        data = {} if data is None else data
        dump_json(data, what=f"{kind} data")  # refuse before taking the write lock
        with self._write(_("recording {kind} for attempt {attempt}").format(kind=kind, attempt=attempt_id)) as conn:
            queries.attempt_state(conn, attempt_id)
            self._append(conn, attempt_id, kind, data)

    def finish(self, attempt_id: str, outcome: Outcome | str, result: dict[str, Any] | None = None) -> Attempt:
        """Append the outcome. A final one frees the terminal and closes the attempt; ``UNKNOWN``
        frees the terminal but keeps the attempt in ``in_flight()`` and blocks its order.

        Finishing again with the same final outcome (and no new result) changes nothing;
        changing a final outcome raises ``InvalidResolution``. The holder is not checked:
        whoever learnt the outcome records it (a resuming process ``claim``s first).
        """
        outcome = Outcome(outcome)
        result = None if result is None else self._redact(result)  # compared below as it is stored
        data = {"outcome": outcome.value, "result": {} if result is None else result}
        dump_json(data, what="outcome result")  # not for people
        with self._write(_("finishing attempt {attempt} as {outcome}").format(
                attempt=attempt_id, outcome=outcome.value)) as conn:
            current = queries.attempt_state(conn, attempt_id).outcome
            repeated = current is outcome and outcome.is_final and (
                result is None or result == queries.latest_result(conn, attempt_id)
            )
            if current is not None and current.is_final and not repeated:
                raise InvalidResolution(_(
                    "attempt {attempt} already has the final outcome {outcome}; it cannot become {new}"
                ).format(attempt=attempt_id, outcome=repr(current.value), new=repr(outcome.value)))
            if not repeated:
                self._append(conn, attempt_id, OUTCOME, data, outcome)
                if outcome.is_final:
                    conn.execute("DELETE FROM open_attempts WHERE attempt_id = ?", (attempt_id,))
                if outcome.moved_money:
                    self._flag_shared_charge(conn, attempt_id, data["result"])
        return self.get(attempt_id)

    def _flag_shared_charge(self, conn: sqlite3.Connection, attempt_id: str, result: dict[str, Any]) -> None:
        """A charge recorded for ``attempt_id`` that another sale or pre-auth already counts
        as its own: both go on a manager's list (the service's record stands; one charge
        cannot pay two orders)."""
        payment, transaction = result.get("payment_id"), result.get("transaction_id")
        if not (payment or transaction):
            return
        operation = conn.execute("SELECT operation FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
        if operation is None or Operation(operation[0]) not in ORDER_OPERATIONS:
            return  # a capture, void or refund names its payment's charge: its own, not a second one
        row = conn.execute(queries.CHARGED_BY_SQL, (payment, attempt_id, transaction, attempt_id)).fetchone()
        if row is None:
            return
        other = str(row[0])
        charge = str(payment or transaction)
        with in_language(SOURCE_LANGUAGE):  # what the journal keeps; shown, the sentence is made again
            note = shared_charge_note(charge, other, attempt_id)
        for flagged in (attempt_id, other):
            self._append(conn, flagged, SHARED_CHARGE,
                         {"note": note, "attempts": [other, attempt_id], "charge": charge})

    def resolve_by_manager(
        self, attempt_id: str, *, paid: bool, reason: str, by: str, forced: bool = False,
        checked: dict[str, Any] | None = None, evidence: dict[str, Any] | None = None,
        partially: bool = False,
    ) -> Attempt:
        """A manager's decision on an ``unknown`` or in-flight attempt: paid → approved
        (``partially``: partially approved), not paid → failed, recorded with who decided,
        why, and when. ``checked`` is what the service said when it was asked first;
        ``evidence`` the ids and amounts of the charge it showed (kept in the result, for the
        receipt and later refunds); ``forced`` marks a decision taken without the service's
        answer (listed for a manager's attention)."""
        if not isinstance(paid, bool):
            raise ValueError(f"paid must be True or False, got {paid!r}")  # not for people
        if partially and not paid:
            raise ValueError("only a paid decision can be partial")  # not for people
        for name, value in (("reason", reason), ("by", by)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"a manager resolution needs a non-empty {name}")  # not for people
        outcome = (Outcome.PARTIALLY_APPROVED if partially else Outcome.APPROVED) if paid else Outcome.FAILED
        decision = "paid" if paid else "not_paid"
        with self._write(_("resolving attempt {attempt}").format(attempt=attempt_id)) as conn:
            current = queries.attempt_state(conn, attempt_id).outcome
            if current is not None and current.is_final:
                raise InvalidResolution(_(
                    "attempt {attempt} already has the final outcome {outcome}; a manager "
                    "resolves only attempts that are in flight or unknown"
                ).format(attempt=attempt_id, outcome=repr(current.value)))
            data = {
                "outcome": outcome.value,
                "result": {**(evidence or {}), "decision": decision, "reason": reason.strip()},
                "resolved_by": by.strip(),
                "reason": reason.strip(),
                "previous_outcome": None if current is None else current.value,
                **({"forced": True} if forced else {}),
                **({"checked": checked} if checked is not None else {}),
            }
            if paid:
                for reference in {str(v) for v in ((evidence or {}).get("payment_id"),
                                                   (evidence or {}).get("transaction_id")) if v}:
                    owner = conn.execute(queries.CHARGE_OWNER_SQL, (reference, reference)).fetchone()
                    if owner is not None and owner[0] != attempt_id:
                        raise ChargeTaken(attempt_id, str(owner[0]), reference)
            self._append(conn, attempt_id, OUTCOME, data, outcome)
            conn.execute("DELETE FROM open_attempts WHERE attempt_id = ?", (attempt_id,))
        return self.get(attempt_id)

    def claim(self, attempt_id: str) -> Attempt | None:
        """Hand the attempt to this journal's owner, atomically; ``None`` if it is not free.

        Free: it still needs resolution (no outcome, or ``unknown``) and its holder is this
        owner, nobody (begun before schema version 3) or an owner that is no longer alive.
        Taking it appends ``claimed`` ``{"owner": this owner, "from": previous holder}``; an
        attempt this owner already holds is returned as it is. The check and the event are
        one write transaction, so of processes claiming one attempt at once exactly one
        gets it. Raises ``AttemptNotFound``.
        """
        with self._write(_("claiming attempt {attempt}").format(attempt=attempt_id)) as conn:
            __, outcome, holder = queries.attempt_state(conn, attempt_id)
            if outcome is not None and outcome.is_final:
                return None
            if holder != self.owner:
                if holder is not None and owners.is_alive(self._path, holder):
                    return None
                self._append(conn, attempt_id, CLAIMED, {"owner": self.owner, "from": holder})
        return self.get(attempt_id)

    # -- reads --------------------------------------------------------------------------

    def get(self, attempt_id: str) -> Attempt:
        """The attempt with all its events; ``AttemptNotFound`` if there is none."""
        with self._read(_("reading attempt {attempt}").format(attempt=attempt_id)) as conn:
            row = conn.execute(f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
            if row is None:
                raise AttemptNotFound(attempt_id)
            events = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
            ).fetchall()
        return fold(row, map(make_event, events), keep_events=True)

    def payment_for_ref(self, ref: str) -> str | None:
        """The payment id an earlier outcome recorded for gateway transaction ``ref``, if any.

        Reads history (not a hot path: once before a capture, void or refund)."""
        with self._read(_("finding the payment of transaction {ref}").format(ref=ref)) as conn:
            row = conn.execute(queries.PAYMENT_FOR_REF_SQL, (ref,)).fetchone()
        return None if row is None or row[0] in (None, "") else str(row[0])

    def charge_owner(self, reference: str) -> str | None:
        """The sale or pre-auth whose outcome (or late answer) names ``reference`` as its
        payment id or gateway transaction id: a charge already accounted to that attempt.

        Reads history (not a hot path: once per manager decision that names a reference)."""
        with self._read(_("finding the attempt of payment {payment}").format(payment=reference)) as conn:
            row = conn.execute(queries.CHARGE_OWNER_SQL, (reference, reference)).fetchone()
        return None if row is None else str(row[0])

    def order_totals(self, order_keys: Iterable[str]) -> dict[str, tuple[orders.OrderTotals, ...]]:
        """The recorded totals of each of ``order_keys`` that has any, oldest first."""
        with self._read(_("reading the totals of orders")) as conn:
            return orders.read(conn, order_keys)

    def in_flight(self) -> list[Attempt]:
        """Attempts to resume: no outcome yet, or ``unknown`` and not resolved; in the order begun.

        ``sent`` False means the request certainly never left (``mark_sent`` precedes it);
        True means it may have. ``msg_identifier`` is set once one was recorded.
        """
        with self._read(_("listing attempts in flight")) as conn:
            rows = conn.execute(queries.IN_FLIGHT_ROWS_SQL).fetchall()
            events = conn.execute(queries.IN_FLIGHT_EVENTS_SQL).fetchall()
        found = fold_many(rows, events, keep_events=False)
        return [attempt for attempt in found if attempt.needs_resolution]

    def resumable(self) -> list[Attempt]:
        """The ``in_flight()`` attempts this process may resume: held by this owner, by
        nobody (begun before schema version 3) or by an owner that is no longer alive.

        A snapshot, for choosing what to resume: ``claim`` each one before acting on it.
        Costs one lock-file probe per distinct other holder.
        """
        found = self.in_flight()
        others = {attempt.owner for attempt in found if attempt.owner is not None} - {self.owner}
        alive = {holder for holder in others if owners.is_alive(self._path, holder)}
        return [attempt for attempt in found if attempt.owner not in alive]

    def attempts(
        self, *, day: date | None = None, terminal_id: str | None = None, tz: tzinfo | str | None = None,
        since: datetime | None = None,
    ) -> list[Attempt]:
        """Attempts created on ``day`` (calendar day in ``tz``, default local time) and/or on
        one terminal and/or from ``since`` on, in the order they were begun, without their events."""
        return self._list(day, terminal_id, tz, keep_events=False, since=since)

    def _list(
        self, day: date | None, terminal_id: str | None, tz: tzinfo | str | None, *, keep_events: bool,
        since: datetime | None = None,
    ) -> list[Attempt]:
        params: list[str] = []
        if day is not None:
            params.extend(day_bounds(day, resolve_tz(tz)))
        if terminal_id is not None:
            params.append(terminal_id)
        if since is not None:
            params.append(time_text(since))
        rows_sql, events_sql = queries.list_sql(day=day is not None, terminal=terminal_id is not None,
                                                since=since is not None)
        with self._read(_("listing attempts")) as conn:
            rows = conn.execute(rows_sql, params).fetchall()
            events = conn.execute(events_sql, params).fetchall()
        return fold_many(rows, events, keep_events=keep_events)

    def order_charges(self, order_key: str) -> dict[str, int]:
        """Cents each sale or pre-auth of the order charged and keeps (attempt id → cents):
        the charges voided since left out, approved refunds taken off (a charge refunded in
        full keeps 0). What the order has been paid so far by card."""
        with self._read(_("reading an order's charges")) as conn:
            return balance.order_charged(conn, order_key)

    def order_attempts(self, order_key: str) -> list[Attempt]:
        """The sales and pre-auths of one order, in the order they were begun (what a
        restored cart has been charged so far)."""
        with self._read(_("reading an order's attempts")) as conn:
            rows = conn.execute(queries.ORDER_ROWS_SQL, (order_key,)).fetchall()
            events = conn.execute(queries.ORDER_EVENTS_SQL, (order_key,)).fetchall()
        return fold_many(rows, events, keep_events=False)

    def newest_attempts(self, day: date, limit: int, tz: tzinfo | str | None = None) -> list[Attempt]:
        """The ``limit`` attempts of ``day`` begun last, in the order they were begun: the
        first screen of a day's history, read before the whole day is."""
        start, end = day_bounds(day, resolve_tz(tz))
        with self._read(_("listing the newest attempts")) as conn:
            rows = conn.execute(queries.NEWEST_ROWS_SQL, (start, end, limit)).fetchall()
            events = conn.execute(queries.NEWEST_EVENTS_SQL, (start, end, limit)).fetchall()
        return fold_many(rows, events, keep_events=False)

    def attempts_changed(
        self, day: date, mark: tuple[int, int] = (0, 0), tz: tzinfo | str | None = None
    ) -> tuple[list[Attempt], tuple[int, int]]:
        """The attempts of ``day`` begun or changed (a new event) since ``mark``, folded as
        ``attempts`` folds them, and the new mark. ``mark`` (0, 0) gives them all; a caller
        that keeps the day's attempts by id refreshes them by passing the mark it got."""
        start, end = day_bounds(day, resolve_tz(tz))
        with self._read(_("listing changed attempts")) as conn:
            new_rowid, new_seq = conn.execute(queries.MARK_SQL).fetchone()
            params = (start, end, new_rowid, mark[0], mark[1], new_seq)
            rows = conn.execute(queries.CHANGED_ROWS_SQL, params).fetchall()
            events = conn.execute(queries.CHANGED_EVENTS_SQL, (*params, new_seq)).fetchall() if rows else []
        return fold_many(rows, events, keep_events=False), (new_rowid, new_seq)

    def summary(self, day: date, tz: tzinfo | str | None = None) -> reports.Summary:
        """Counts and cents per terminal, operation and outcome for attempts created on ``day``."""
        zone = resolve_tz(tz)
        return reports.build_summary(day, zone, self.attempts(day=day, tz=zone))

    def reconcile(
        self, service_entries: list[dict[str, Any]], *, day: date | None = None, tz: tzinfo | str | None = None
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


def _as_it_is(value: Any) -> Any:
    return value
