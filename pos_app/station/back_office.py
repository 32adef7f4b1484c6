"""``BackOffice``: what a manager does at a station, Qt-free: the day's payments, void and
refund, the attempts that need a person, and the audit trail.

Every money-moving action here needs a manager (checked by PIN by the caller through
``verify_manager``) and a reason, goes through the station's service on the route that
took the payment (a terminal's, or the service's card-on-file and ACH routes; journaled before it
leaves, never resent) and is written to the audit trail with its outcome: who, when, what,
why. Journal reads run on the journal's thread, staff-file reads and writes on the
counter's disk thread, and merging the day's rows on a worker thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from pos_app.api.errors import PaymentsError
from pos_app.api.models import TransactionEntry
from pos_app.i18n import N_, _
from pos_app.journal import Attempt, Operation, Outcome, ParkedOrder
from pos_app.journal.words import operation_name, outcome_name
from pos_app.money import MoneyFormat
from pos_app.staff import AuditAction, AuditEntry, StaffMember
from pos_app.staff.audit import check_reason
from pos_app.station.counter import Counter
from pos_app.station.payments import Drafts, PaymentMethod, PaymentRow, PaymentStatus, merge_history
from pos_app.station.report import on_day
from pos_app.station.returns import OrderForReturn, ReturnDone, ReturnPlan, read_order, run_return
from pos_app.terminal.lookup import CLOCK_SLACK, entry_time, read_window
from pos_app.terminal.outcomes import OperationResult

FIRST_PAGE = 60
"""Payments read first on a cold F9: more than a screen's rows."""


@dataclass(frozen=True)
class History:
    rows: tuple[PaymentRow, ...]
    complete: bool
    """False when the service's list could not be read whole: rows may be missing."""
    problem: str | None = None
    """Why the list could not be read (the journal's rows are shown alone)."""
    first_page: bool = False
    """Only the journal's newest payments, read while the whole day is (``BackOffice.first_page``)."""


class Problem(StrEnum):
    UNRESOLVED = "unresolved"
    """In flight or unknown: money may or may not have moved."""
    CONFLICT = "conflict"
    """A late answer contradicts the decision (e.g. charged, but marked not paid)."""
    ATTENTION = "attention"
    """A possible match, several charges for one attempt, a decision forced without the service."""


@dataclass(frozen=True)
class AttentionItem:
    problem: Problem
    attempt: Attempt
    note: str
    """What happened and what to do, as a sentence."""


class BackOffice:
    """One per station window: it keeps the day's attempts (refreshed by what changed since
    the last read) and their drafted rows, so that opening the payments list again, or on a
    busy day once ``warm`` has run, reads and drafts only what is new."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self.station = counter.station
        self.money = counter.money
        self._day: date | None = None
        self._mark = (0, 0)
        self._attempts: dict[str, Attempt] = {}
        self._drafts: Drafts = {}
        self._reading = asyncio.Lock()
        self._merging = asyncio.Lock()

    async def day_attempts(self, day: date) -> list[Attempt]:
        """The journal's attempts of ``day`` in the order they were begun, kept up to date."""
        async with self._reading:  # one refresh at a time: the mark only moves forward
            if day != self._day:
                self._day, self._mark, self._attempts, self._drafts = day, (0, 0), {}, {}
            changed, self._mark = await self.station.journal.attempts_changed(day, self._mark)
            for attempt in changed:
                self._attempts[attempt.id] = attempt  # a changed one keeps its place
            return list(self._attempts.values())

    def is_warm(self, day: date) -> bool:
        """Whether ``day``'s payments were read before (a refresh reads only what changed)."""
        return self._day == day and bool(self._attempts)

    async def first_page(self, day: date, limit: int = FIRST_PAGE) -> History:
        """The journal's ``limit`` newest payments of ``day`` alone, for the screen to show
        at once while ``payments`` reads the whole day and the service's list (a cold first
        F9 on a day of thousands of payments). Their rows are not the ones to act on: the
        service's list may change what can be voided or refunded."""
        attempts = await self.station.journal.newest_attempts(day, limit)
        rows = await asyncio.to_thread(merge_history, attempts, [])
        return History(tuple(rows), False, first_page=True)

    async def warm(self, day: date) -> None:
        """Read the day's payments (journal and list) and build their rows ahead of the first
        F9, in the background: F9 then reads and rebuilds only what changed since."""
        await self.payments(day)

    # payments ---------------------------------------------------------------------------

    async def payments(self, day: date) -> History:
        """The day's payments: the journal's merged with the service's list (see
        ``pos_app.station.payments``). When the list cannot be read, the journal's rows come
        back alone with the reason."""
        attempts = await self.day_attempts(day)
        start = datetime.combine(day, datetime.min.time()).astimezone()
        try:
            window = await read_window(self.station.client, start - CLOCK_SLACK)
        except PaymentsError as error:
            return History(tuple(await self._merged(attempts, [])), False,
                           _("the service's list could not be read: {error}").format(error=error))
        entries = [e for e in window.entries if on_day(entry_time(e), day)]
        return History(tuple(await self._merged(attempts, entries)), window.complete)

    async def _merged(self, attempts: list[Attempt], entries: list[TransactionEntry]) -> list[PaymentRow]:
        async with self._merging:  # the kept rows are shared: one merge at a time, off the event loop
            return await asyncio.to_thread(merge_history, attempts, entries, drafts=self._drafts)

    async def void(self, row: PaymentRow, *, manager: StaffMember, reason: str) -> OperationResult:
        """Void an unsettled payment (or open pre-auth) on the terminal that took it; a card on
        file's or an ACH payment by its payment id on the service's routes."""
        reason = check_reason(reason)
        ref = row.follow_up_ref
        if not row.voidable or ref is None:
            raise ValueError(_not_voidable(row))
        by_link = await self._paid_by_link(row)  # a payment link's payment: the card routes by its payment id
        charged_by = Operation.CARD_CHARGE if by_link is not None else _CHARGED_BY.get(row.method)
        result = await self.station.void(self._lane(row, charged_by), ref, payment_id=by_link or row.payment_id,
                                         charged_by=charged_by)
        await self._audit(manager, AuditAction.VOID, _("void of {amount} ({ids}): {result}").format(
            amount=self.money(row.total), ids=_ids(row), result=_said(result)), reason)
        return result

    async def refund(self, row: PaymentRow, amount: int, *, manager: StaffMember, reason: str) -> OperationResult:
        """Refund ``amount`` base cents (at most ``row.refundable``) of a settled payment, on the
        route that took it (a terminal's, or the card-on-file or ACH routes by payment id)."""
        reason = check_reason(reason)
        ref = row.follow_up_ref
        if ref is None or row.refundable <= 0:
            raise ValueError(_not_refundable(row))
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= row.refundable:
            raise ValueError(_("a refund of this payment is between {least} and {most} (what is left of "
                               "{base})").format(least=self.money(1), most=self.money(row.refundable),
                                                 base=self.money(row.base or 0)))
        by_link = await self._paid_by_link(row)
        charged_by = Operation.CARD_CHARGE if by_link is not None else _CHARGED_BY.get(row.method)
        result = await self.station.refund(self._lane(row, charged_by), ref, amount,
                                           payment_id=by_link or row.payment_id, charged_by=charged_by)
        await self._audit(manager, AuditAction.REFUND, _("refund of {amount} of {total} ({ids}): {result}").format(
            amount=self.money(amount), total=self.money(row.total), ids=_ids(row), result=_said(result)), reason)
        return result

    async def _parking_paid_by(self, row: PaymentRow) -> ParkedOrder | None:
        """The parking (a phone order, ``station.parked``) whose payment link ``row``'s payment
        paid; its void, refund and return go through the service's card routes by its payment
        id, as ``station.link_returns`` says."""
        if row.attempt_id is not None or not row.payment_id:
            return None
        return await self.station.journal.paid_parking(payment_id=row.payment_id)

    async def _paid_by_link(self, row: PaymentRow) -> str | None:
        """``row``'s payment id when it paid a payment link of this station's, else None."""
        return row.payment_id if await self._parking_paid_by(row) is not None else None

    # returns ----------------------------------------------------------------------------

    async def order_for_return(self, row: PaymentRow) -> OrderForReturn:
        """The order of a payment row as a return sees it (``pos_app.station.returns``);
        ``ValueError`` for a payment this station made for no order (another lane's, the
        command line's) or an order whose lines were not kept."""
        parking = await self._parking_paid_by(row)
        if parking is not None:  # a phone order's payment link: its order is the parking's
            return await read_order(self.station, parking.order_key)
        if row.attempt_id is None:
            raise ValueError(_("this payment was not made at this station: its items are not known here"))
        attempt = await self.station.journal.get(row.attempt_id)
        if not attempt.order_key:
            raise ValueError(_("this payment was made for no sale (the command line): void or refund it instead"))
        return await read_order(self.station, attempt.order_key)

    async def return_items(self, plan: ReturnPlan, *, manager: StaffMember, reason: str) -> ReturnDone:
        """Run a return's plan (a manager's, with a reason; journaled and audited)."""
        return await run_return(self.counter, plan, manager=manager, reason=reason)

    # what needs a person ----------------------------------------------------------------

    async def needs_attention(self, *, days: int = 7) -> list[AttentionItem]:
        """Every open attempt (whatever its day), and the last ``days`` days' decided
        attempts with a conflict or a note, newest first."""
        items = [AttentionItem(Problem.UNRESOLVED, a, _unresolved_note(a, self.money))
                 for a in await self.station.journal.in_flight()]
        today = datetime.now().date()
        for back in range(days):
            for attempt in await self.station.journal.attempts(day=today - timedelta(days=back)):
                if not attempt.is_final or not (attempt.conflict or attempt.attention):
                    continue
                if attempt.conflict is not None:
                    items.append(AttentionItem(Problem.CONFLICT, attempt, _conflict_note(attempt)))
                items.extend(AttentionItem(Problem.ATTENTION, attempt, note) for note in attempt.attention)
        return sorted(items, key=lambda item: item.attempt.created_at, reverse=True)

    # audit ------------------------------------------------------------------------------

    async def verify_manager(self, pin: str) -> StaffMember:
        """The manager whose PIN this is (raises the staff errors; counts wrong PINs)."""
        return await self.counter.disk(self.counter.staff.check_manager, pin)

    async def audit(self, limit: int | None = None) -> list[AuditEntry]:
        return await self.counter.disk(self.counter.staff.audit, limit)

    async def _audit(self, manager: StaffMember, action: AuditAction, detail: str, reason: str) -> AuditEntry:
        cashier = self.counter.cashier
        if cashier is not None and cashier.name != manager.name:
            detail = _("{detail} (on {cashier}'s screen)").format(detail=detail, cashier=cashier.name)
        return await self.counter.disk(self.counter.staff.record, manager.name, action, detail, reason)

    def _lane(self, row: PaymentRow, charged_by: Operation | None) -> str:
        """The row's terminal; a payment of the service's own routes has none (it is given
        back by its payment id)."""
        if charged_by is not None:
            return row.terminal_id or "the service's payment routes"  # not for people: the lane journaled
        return row.terminal_id or self._terminal()

    def _terminal(self) -> str:
        terminal = self.station.config.terminal_id
        if not terminal:
            raise ValueError(_("no payment terminal is set for this station (terminal_id / POS_TERMINAL)"))
        return terminal


_CHARGED_BY = {PaymentMethod.CARD_ON_FILE: Operation.CARD_CHARGE, PaymentMethod.ACH: Operation.ACH_CHARGE}
"""What made a row's payment, when it was the service's own routes: how it is given back."""


_ID_LABELS = (N_("payment {id}"), N_("transaction {id}"), N_("attempt {id}"))


def _ids(row: PaymentRow) -> str:
    return ", ".join(_(label).format(id=value) for label, value in zip(
        _ID_LABELS, (row.payment_id, row.transaction_id, row.attempt_id), strict=True) if value)


def _said(result: OperationResult) -> str:
    text = outcome_name(result.outcome)
    if result.refusal is not None:
        text += f" ({result.refusal})"
    return text


def _not_voidable(row: PaymentRow) -> str:
    if row.settled:
        return _("this payment is settled: refund it instead of voiding it")
    if row.settled is None:
        return _("the service does not say whether this payment is settled yet: refresh the list and try again")
    return _("a {status} payment cannot be voided").format(status=row.status.label)


def _not_refundable(row: PaymentRow) -> str:
    if row.settled is False:
        return _("this payment is not settled yet: void it instead (a void returns everything, surcharge included)")
    if row.settled is None:
        return _("the service does not say whether this payment is settled yet: refresh the list and try again")
    if row.status is PaymentStatus.REFUNDED:
        return _("this payment is already fully refunded")
    return _("a {status} payment cannot be refunded").format(status=row.status.label)


def _unresolved_note(attempt: Attempt, money: MoneyFormat) -> str:
    said = (_("the {operation} of {amount} is still in flight: keep waiting or check again; if it stays unknown, "
              "look at the terminal and decide paid or not paid") if attempt.outcome is None else
            _("the {operation} of {amount} is unknown: keep waiting or check again; if it stays unknown, look at "
              "the terminal and decide paid or not paid"))
    return said.format(operation=operation_name(attempt.operation), amount=money(attempt.amount or 0))


def _conflict_note(attempt: Attempt) -> str:
    said = (attempt.conflict or {}).get("outcome")
    if attempt.outcome is not Outcome.APPROVED and said == "approved":
        return _("marked not paid, but the service charged the card: refund it if the customer paid another way")
    return _("decided {outcome}, but the service answered {said} later: check the payment").format(
        outcome=outcome_name(attempt.outcome), said=outcome_name(_outcome(said)))


def _outcome(value: object) -> Outcome | str:
    try:
        return Outcome(str(value))
    except ValueError:
        return str(value)
