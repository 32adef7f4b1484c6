"""End of shift for one terminal, Qt-free: what this station's journal says happened since
the terminal's batch was last closed, checked against the service's transaction list; the
close batch's result as a state; and the figures of the end-of-shift report.

The shift of a terminal starts when the latest close batch of that terminal that the
journal records as approved (the batch closed) was begun; with none, at local midnight
today. It ends at the close. A close that failed or whose result is unknown does not end
the shift: the next shift end covers the same attempts again.

The figures (``figures``: gross, voids, refunds, net, surcharge, tax collected, held) come
from the journal's attempts (what this station did, who was signed in) and the carts'
totals, each attempt joined to its own entry of the transaction list (paired by the
attempt id in the entry's user-agent: ``journal.reports.reconcile``) for what only the
service knows: the surcharge, ``amount - baseAmount`` (both integer cents: the API
reference's money table lists transaction list entries under cents, so nothing is
converted), and the card. The service's entries that the journal does not know, approvals
that the service does not list and pairs that disagree are the differences a manager sees
before closing.

Money moved without a terminal (a card on file, ACH, and their follow-ups: journaled on
lanes of their own) belongs to the shift of the station's terminal by its time: each one
begun since the shift started is a line of it (``figures.SERVICE_ROUTE_OPERATIONS``), its
service entry paired as a sale's is, whatever terminal that entry names. So do the
orders paid by payment link (``station.link_figures``): each parking paid since the shift
started is a line of its own, paired with its payment's entry by payment id.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import PaymentsError
from pos_app.api.identity import Identity, attempt_in
from pos_app.api.models import TransactionEntry
from pos_app.i18n import N_, _
from pos_app.journal import Attempt, Operation, Outcome
from pos_app.journal.reports import Reconciliation, reconcile
from pos_app.journal.threaded import AsyncJournal
from pos_app.journal.words import operation_name
from pos_app.station.figures import (
    MONEY_OPERATIONS,
    SERVICE_ROUTE_OPERATIONS,
    Figures,
    Ledger,
    MoneyLine,
    cents_in,
)
from pos_app.station.link_figures import LinkPairing, LinkPayments
from pos_app.station.report import HISTORY_DAYS, ours
from pos_app.terminal.lookup import CLOCK_SLACK, entry_time, read_window
from pos_app.terminal.outcomes import OperationResult, Refusal

log = logging.getLogger(__name__)

REFUSED_BY_SERVICE = frozenset({Refusal.SERVICE_REFUSED, Refusal.BAD_CREDENTIALS})
WHAT_NAMES = {"auth": N_("auth"), "ach": N_("ach"), "transaction": N_("transaction"),
              "payment link": N_("payment link")}
"""A difference's ``what`` that is not an operation (a service entry's type, a payment link),
as a sentence names it."""


def what_name(what: str) -> str:
    """A difference's ``what`` in the language in force (an operation's name, a service
    entry's type); one not known as it is."""
    try:
        return operation_name(Operation(what))
    except ValueError:
        return _(WHAT_NAMES[what]) if what in WHAT_NAMES else what


class DifferenceKind(StrEnum):
    SERVICE_ONLY = "service_only"
    """The service lists a transaction this station's journal does not have."""
    JOURNAL_ONLY = "journal_only"
    """The journal has an approval the service does not list."""
    DISAGREES = "disagrees"
    """Both have it, but outcomes or amounts differ, or the service lists it twice."""


class CloseState(StrEnum):
    CLOSED = "closed"
    FAILED = "failed"
    """The service answered and the batch is not closed (a 2xx that is not success, a refusal)."""
    UNKNOWN = "unknown"
    """No usable answer: the batch may or may not be closed."""
    NOT_SENT = "not_sent"
    """The close was never sent (an unresolved attempt on the terminal, the journal, the network)."""


CLOSE_STATE_NAMES = {CloseState.CLOSED: N_("closed"), CloseState.FAILED: N_("failed"),
                     CloseState.UNKNOWN: N_("unknown"), CloseState.NOT_SENT: N_("not_sent")}
"""A close's state as a sentence names it (English: its value)."""


@dataclass(frozen=True)
class Difference:
    kind: DifferenceKind
    what: str
    """The operation or the entry's type (sale, auth, refund...)."""
    amount: int | None
    at: datetime | None
    attempt_id: str | None = None
    payment_id: str | None = None
    problem: str = ""

    def sentence(self, money: Callable[[int], str]) -> str:
        amount = money(self.amount) if self.amount is not None else _("an unknown amount")
        timed = self.at is not None
        if self.kind is DifferenceKind.SERVICE_ONLY:
            said = (_("The service lists a {what} of {amount} at {time} (payment {payment}) that this station's "
                      "journal does not have.") if timed else
                    _("The service lists a {what} of {amount} (payment {payment}) that this station's journal does "
                      "not have."))
        elif self.kind is DifferenceKind.JOURNAL_ONLY:
            said = (_("The journal has an approved {what} of {amount} at {time} (attempt {attempt}) that the service "
                      "does not list.") if timed else
                    _("The journal has an approved {what} of {amount} (attempt {attempt}) that the service does not "
                      "list."))
        else:
            said = (_("The {what} of {amount} at {time} (attempt {attempt}): {problem}.") if timed else
                    _("The {what} of {amount} (attempt {attempt}): {problem}."))
        return said.format(what=what_name(self.what), amount=amount,
                           time=f"{self.at.astimezone():%H:%M}" if self.at is not None else "",
                           payment=self.payment_id or "?", attempt=self.attempt_id, problem=self.problem)


@dataclass(frozen=True)
class ShiftCheck:
    """The shift of one terminal, reconciled with the service's transaction list."""

    terminal_id: str
    start: datetime
    since_close: bool
    """The shift starts at the last closed batch (else at the start of the day)."""
    checked_at: datetime
    lines: tuple[MoneyLine, ...]
    differences: tuple[Difference, ...]
    open_attempts: tuple[Attempt, ...]
    """Attempts of the terminal (whatever their day) still in flight or unknown."""
    list_complete: bool
    """Every page of the list that could hold an entry of the shift was read."""
    list_error: str | None = None
    """Why the transaction list could not be read (then nothing was reconciled)."""

    @property
    def clean(self) -> bool:
        return not self.differences and self.list_error is None and self.list_complete

    @cached_property
    def figures(self) -> Figures:
        return Figures(self.lines)


@dataclass(frozen=True)
class ShiftClose:
    state: CloseState
    sentence: str
    result: OperationResult


@dataclass(frozen=True)
class ShiftReport:
    """Everything the end-of-shift report says: the check, the close, who and where."""

    store_name: str
    store_id: str
    station: str
    currency: str
    training: bool
    check: ShiftCheck
    close: ShiftClose
    closed_by: str
    generated_at: datetime
    locale: str | None = None
    """How the report writes money (the store's setting; None: the OS's)."""

    @property
    def figures(self) -> Figures:
        return self.check.figures


@dataclass(frozen=True)
class ShiftEnd:
    """A shift end's report, its PDF, and where the PDF was saved (or why it was not)."""

    report: ShiftReport
    pdf: bytes
    path: Path | None
    save_error: str | None = None


def close_of(result: OperationResult) -> ShiftClose:
    """The close batch's result as judged by the terminal service (type S ``data.success``,
    type B ``status`` and ``gwResponse.resultTxt``: a 2xx alone is never success), as a
    state and a sentence for the manager."""
    said = result.gateway_text or result.message
    if result.outcome is Outcome.APPROVED:
        return ShiftClose(CloseState.CLOSED, _("The batch is closed ({said}).").format(said=said) if said
                          else _("The batch is closed."), result)
    if result.outcome is Outcome.DECLINED:
        return ShiftClose(CloseState.FAILED, _(
            "The batch was NOT closed: the service answered without success ({said}). Nothing was settled; try "
            "again later or call the payment service.").format(said=said or _("no reason given")), result)
    if result.outcome is Outcome.UNKNOWN:
        return ShiftClose(CloseState.UNKNOWN, _(
            "The service gave no clear answer: the batch may or may not be closed. Check the batch on the "
            "service's dashboard before closing again ({said}).").format(said=said or _("no answer")), result)
    if result.refusal in REFUSED_BY_SERVICE:
        return ShiftClose(CloseState.FAILED, _("The batch was NOT closed: {said}").format(said=said), result)
    return ShiftClose(CloseState.NOT_SENT, _("The close was not sent: {said}").format(said=said), result)


def unresolved_close(terminal_id: str, blocking: Attempt, money: Callable[[int], str]) -> ShiftClose:
    """The close refused because ``blocking`` (in flight or unknown) holds the terminal."""
    said = (_("The close was not sent: the {operation} of {amount} (attempt {attempt}) on {terminal} has no known "
              "result. Check it again, or have a manager decide it, then close the batch.")
            if blocking.amount is not None else
            _("The close was not sent: the {operation} (attempt {attempt}) on {terminal} has no known result. Check "
              "it again, or have a manager decide it, then close the batch."))
    sentence = said.format(operation=operation_name(blocking.operation),
                           amount=money(blocking.amount) if blocking.amount is not None else "",
                           attempt=blocking.id, terminal=blocking.terminal_id)
    result = OperationResult(Outcome.FAILED, Operation.CLOSE_BATCH, terminal_id, message=sentence,
                             refusal=Refusal.TERMINAL_HAS_UNKNOWN, blocked_by=blocking.id)
    return ShiftClose(CloseState.NOT_SENT, sentence, result)


def unknown_serial_close(serial: str) -> ShiftClose:
    """The close by serial refused because the service's terminal list does not name the
    terminal of ``serial`` (or cannot be read): its shift could not be ended under its id."""
    sentence = _("The close was not sent: no terminal with serial number {serial} is in the service's terminal "
                 "list (or the list could not be read). Check the serial, or close the batch by the terminal's "
                 "id.").format(serial=serial)
    result = OperationResult(Outcome.FAILED, Operation.CLOSE_BATCH, serial, message=sentence,
                             refusal=Refusal.INVALID_INPUT)
    return ShiftClose(CloseState.NOT_SENT, sentence, result)


def shift_start(attempts: Iterable[Attempt], now: datetime) -> tuple[datetime, bool]:
    """When the shift began: the latest approved close batch among ``attempts`` (one
    terminal's), else local midnight of ``now``'s day; and whether it was a close."""
    closes = [a.created_at for a in attempts if a.operation is Operation.CLOSE_BATCH and a.outcome is Outcome.APPROVED]
    if closes:
        return max(closes), True
    local = now.astimezone()
    return datetime.combine(local.date(), time.min, tzinfo=local.tzinfo), False


async def check_shift(
    client: PaymentsClient, journal: AsyncJournal, terminal_id: str, station: Identity, *, now: datetime,
    start: tuple[datetime, bool] | None = None,
) -> ShiftCheck:
    """The shift of ``terminal_id`` from the journal, reconciled with the transaction list.

    ``start`` (from ``shift_start``) fixes where the shift begins, e.g. as it was before a
    close that has just succeeded. A list that cannot be read gives a check without
    differences and with ``list_error``; it does not raise."""
    on_terminal = await journal.attempts(terminal_id=terminal_id)
    begun, since_close = start or shift_start(on_terminal, now)
    without_terminal = [a for a in await journal.attempts(since=begun - timedelta(days=HISTORY_DAYS))
                        if a.operation in SERVICE_ROUTE_OPERATIONS]
    everything = sorted([*on_terminal, *without_terminal], key=lambda attempt: attempt.created_at)
    shift = [a for a in everything if a.created_at >= begun and a.operation in MONEY_OPERATIONS]
    open_attempts = tuple(a for a in await journal.in_flight() if a.terminal_id == terminal_id)
    known = {a.id: a for a in everything}
    links = LinkPayments.of(await journal.parked_orders(since=begun - timedelta(days=HISTORY_DAYS)))
    orders = await journal.order_totals(Ledger.of(everything).order_keys(shift) | links.order_keys)

    def check(ledger: Ledger, own: Mapping[str, Mapping[str, Any]], differences: tuple[Difference, ...] = (),
              complete: bool = False, error: str | None = None) -> ShiftCheck:
        lines = [links.follow_up(ledger.line(a, own.get(a.id)), a, orders) for a in shift]
        lines += links.lines(begun, orders, own, everything)
        lines.sort(key=lambda line: line.at)
        return ShiftCheck(terminal_id, begun, since_close, now, tuple(lines), differences, open_attempts, complete,
                          error)

    try:
        window = await read_window(client, begun - CLOCK_SLACK)
    except PaymentsError as error:
        log.warning("shift of %s checked without the service's list: %s", terminal_id, error)
        return check(Ledger.of(everything, orders), {},
                     error=_("the service's transaction list could not be read ({error}): nothing was "
                             "reconciled").format(error=error))

    def reconciled() -> ShiftCheck:  # plain CPU work: off the event loop (the screen) for a long shift
        in_shift = {a.id for a in shift}
        listed = [entry.model_dump(by_alias=True, exclude_none=True) for entry in window.entries]
        paid_by_link = links.pair(begun, listed)  # a link's payment is its parking's, whatever its terminal
        entries = [entry for raw, entry in zip(window.entries, listed, strict=True)
                   if not links.is_payment_entry(entry) and _belongs(raw, terminal_id, station, begun, known, in_shift)]
        paired = reconcile(entries, shift, known.get)
        own: dict[str, Mapping[str, Any]] = {**paid_by_link.own}
        for match in paired.matched:
            own.setdefault(match.attempt.id, match.entry)
        ledger = Ledger.of(everything, orders, [*entries, *paid_by_link.own.values()])
        return check(ledger, own, (*differences(paired), *link_differences(paid_by_link)), window.complete)

    checked = await asyncio.to_thread(reconciled)
    log.info("shift of %s checked: %d payments, %d differences, %d without a known result", terminal_id,
             len(checked.lines), len(checked.differences), len(checked.open_attempts))
    return checked


def _belongs(entry: TransactionEntry, terminal_id: str, station: Identity, start: datetime,
             known: Mapping[str, Attempt], in_shift: set[str]) -> bool:
    """An entry of this station (or of no pos-app) of this shift: one naming an attempt the
    shift knows belongs when that attempt does (a card on file's names no terminal of ours);
    any other when it is of this terminal, by its time."""
    if not ours(entry.user_agent, station):
        return False
    named = attempt_in(entry.user_agent)
    if named is not None and named in known:
        return named in in_shift
    if entry.terminal_id not in (None, terminal_id):
        return False
    moment = entry_time(entry)
    return moment is None or moment >= start


def differences(reconciled: Reconciliation) -> tuple[Difference, ...]:
    found: list[Difference] = []
    for entry in reconciled.service_only:
        found.append(Difference(
            DifferenceKind.SERVICE_ONLY, str(entry.get("type") or "transaction"), cents_in(entry, "baseAmount"),
            _time(entry.get("createdAt")), payment_id=entry.get("paymentId") or entry.get("id")))
    for attempt in reconciled.journal_only:
        found.append(Difference(DifferenceKind.JOURNAL_ONLY, str(attempt.operation), attempt.amount,
                                attempt.created_at, attempt_id=attempt.id))
    for match in reconciled.problems:
        attempt = match.attempt
        found.append(Difference(DifferenceKind.DISAGREES, str(attempt.operation), attempt.amount, attempt.created_at,
                                attempt_id=attempt.id, payment_id=match.entry.get("paymentId"),
                                problem=match.problem or ""))
    return tuple(found)


def link_differences(pairing: LinkPairing) -> tuple[Difference, ...]:
    """A paid link's payment the service does not list, or lists otherwise."""
    found = [Difference(DifferenceKind.JOURNAL_ONLY, N_("payment link"), parking.amount, parking.paid_at,
                        attempt_id=parking.parking_id, payment_id=parking.payment_id)
             for parking in pairing.unlisted]
    found += [Difference(DifferenceKind.DISAGREES, N_("payment link"), odd.parking.amount, odd.parking.paid_at,
                         attempt_id=odd.parking.parking_id, payment_id=odd.parking.payment_id, problem=odd.problem)
              for odd in pairing.mismatched]
    return tuple(found)


def _time(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    return entry_time(TransactionEntry.model_validate({"createdAt": text}))
