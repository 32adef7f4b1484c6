"""``Station``: one lane, wired once, driven by both the command line and the GUI.

It owns the one ``PaymentsClient`` (the cashier's identity changes per sign-in without
rebuilding it), the journal on its own thread (``AsyncJournal``), the terminal service
with the station's shared poll budget, start-up recovery and the event stream that every
window follows (in the app, an outcome the disk refuses is kept and written again:
``OutcomeRecorder``). It is the one way money moves: sale, pre-auth, capture, void, refund,
check again, a manager's decision, close batch, cash into or out of the drawer and the
drawer's Z are its methods (the cashier's counter, the back office, ``pos-app terminal``
and ``pos-app shift`` call them, never the terminal service or the journal's cash ledger),
and each money-moving one publishes exactly one ``OperationEnded`` (cash: one
``CashMoved``). A sale runs as one task: ``stop_waiting`` cancels it, and the service
journals the attempt ``unknown`` (never resent) before the task ends.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Coroutine, Mapping
from dataclasses import replace
from datetime import UTC, date, datetime
from types import TracebackType
from typing import Any

from pos_app.api.charge_models import CardCharge, ChargeOrder, VoidReason
from pos_app.api.client import PaymentsClient
from pos_app.api.errors import InvalidInput, PaymentsError
from pos_app.api.identity import Identity
from pos_app.api.secrets import Redactor
from pos_app.config import StoreConfig
from pos_app.i18n import _
from pos_app.journal import Attempt, CashEntry, CashKind, Journal, JournalError, Operation, Outcome, ZReport
from pos_app.journal.codec import utc_now
from pos_app.journal.threaded import AsyncJournal
from pos_app.journal.words import operation_name, outcome_name
from pos_app.money import money_format
from pos_app.receipts.tables import render_tables, save_pdf
from pos_app.station.cash_shift import CashCount, CashShift, cash_shift
from pos_app.station.events import (
    AttemptsSettled,
    CashMoved,
    EventBus,
    LateConflict,
    OperationEnded,
    PaymentProgress,
    SaveTrouble,
)
from pos_app.station.report import day_report
from pos_app.station.shift import (
    ShiftCheck,
    ShiftClose,
    ShiftEnd,
    ShiftReport,
    check_shift,
    close_of,
    shift_start,
    unknown_serial_close,
    unresolved_close,
)
from pos_app.station.shift_document import report_stem, shift_document
from pos_app.terminal.charges import CHARGE_LANE, ChargeService, on_service_routes
from pos_app.terminal.hints import ListedAttempts
from pos_app.terminal.outcomes import OperationResult, Progress
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.slots import SharedPollBudget

log = logging.getLogger(__name__)


class Station:
    """One lane: config, identity, client, journal, terminal service and events."""

    def __init__(
        self, config: StoreConfig, client: PaymentsClient, journal: AsyncJournal, *, training: bool = False,
        budget: SharedPollBudget | None = None, events: EventBus | None = None,
    ) -> None:
        self.config = config
        self.client = client
        self.journal = journal
        self.training = training
        self.budget = budget
        self.events = events or EventBus()
        self.money = money_format(config.currency, config.locale)
        """How this store writes and reads amounts (its currency and locale)."""
        self.service = ChargeService(
            client, journal, gateway=config.gateway, wait_limit=config.poll_wait_limit, on_progress=self._progress,
            scheduler=PollScheduler(client.poll_message, shared=budget, hints=ListedAttempts(client)),
            save_later=journal.threaded,
            on_saved=self._saved_late,
        )
        self._payment: asyncio.Task[OperationResult] | None = None
        self._later: set[asyncio.Task[None]] = set()  # conflict checks of outcomes saved late

    @classmethod
    async def open(
        cls, config: StoreConfig, secret: str, *, threaded: bool = True, training: bool = False,
        cashier: str | None = None, events: EventBus | None = None,
    ) -> Station:
        """Wire a station: the journal opened on its own thread (``threaded``) or inline
        (a one-shot command), the client with the station's identity; ``events``: the
        stream the counter already publishes on (a new one otherwise). Raises the
        journal's errors (nothing is sent before the journal is open)."""
        identity = Identity(store=config.store_id, station=config.station_id,
                            cashier=cashier or os.environ.get("POS_CASHIER", config.cashier_id))
        redact = Redactor([secret]).value  # whatever the service echoes, the journal never keeps the key
        if threaded:
            journal = await AsyncJournal.open(config.journal_path, redact=redact)
        else:
            journal = AsyncJournal(Journal.open(config.journal_path, redact=redact))
        try:  # built on a worker thread: its TLS context loads the CA store (tens of ms), not the screen's time
            client = await asyncio.to_thread(functools.partial(
                PaymentsClient, config.base_url, secret, identity=identity, routes=config.route_table(),
                connect_timeout=config.connect_timeout, read_timeout=config.read_timeout))
        except BaseException:
            await journal.close()
            raise
        budget = SharedPollBudget(config.data_dir / "poll-budget", secret)
        return cls(config, client, journal, training=training, budget=budget, events=events)

    async def aclose(self) -> None:
        """Stop waiting on a payment (journaled unknown), close the client, then the journal.
        Call it while the event loop still runs."""
        if self._payment is not None and not self._payment.done():
            self._payment.cancel()
            await asyncio.gather(self._payment, return_exceptions=True)
        try:
            await self.service.aclose()
            await asyncio.gather(*self._later, return_exceptions=True)
            await self.client.aclose()
        finally:
            await self.journal.close()

    async def __aenter__(self) -> Station:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        await self.aclose()

    # identity ---------------------------------------------------------------------------

    @property
    def identity(self) -> Identity:
        return self.client.identity

    def sign_in(self, cashier: str) -> None:
        """Every later request names ``cashier`` in its user-agent (no new client)."""
        self.client.identity = replace(self.client.identity, cashier=cashier)

    def sign_out(self) -> None:
        self.client.identity = replace(self.client.identity, cashier="-")

    # money: every money-moving call of the app and the CLI goes through here, and each
    # publishes exactly one OperationEnded (recovery and resume one AttemptsSettled) -------

    @property
    def paying(self) -> bool:
        return self._payment is not None and not self._payment.done()

    async def recover(self) -> list[OperationResult]:
        """On start: settle what a dead process left in flight (never resending)."""
        results = await self.service.recover()
        if results:
            self.events.publish(AttemptsSettled(tuple(results)))
        return results

    async def resume(self, *, wait_limit: float | None = None) -> list[OperationResult]:
        """Settle every attempt still open (``pos-app terminal resume``), never resending."""
        results = await self.service.resume(wait_limit=wait_limit)
        self.events.publish(AttemptsSettled(tuple(results)))
        return results

    async def sale(
        self, amount: int, *, order_key: str | None = None, terminal_id: str | None = None, preauth: bool = False,
        order_number: str | None = None, email: str | None = None, phone: str | None = None, receipt: bool = False,
    ) -> OperationResult:
        """A card sale (or pre-auth) of ``amount`` cents on ``terminal_id`` (default: the
        station's terminal) for the order ``order_key`` (default: the order number).

        It runs as one task: ``stop_waiting`` ends the wait, the result is then ``unknown``
        and the attempt stays resumable. A caller cancelled meanwhile (Ctrl-C) leaves the
        task to ``aclose``, which journals it ``unknown`` the same way."""
        terminal = terminal_id or self.config.terminal_id
        if not terminal:
            raise ValueError(_("no payment terminal is set for this station (terminal_id / POS_TERMINAL)"))
        if self.paying:
            raise RuntimeError(_("a payment is already in progress on this station"))
        run = self.service.preauth if preauth else self.service.sale
        asked = Operation.PREAUTH if preauth else Operation.SALE
        return await self._as_payment(run(terminal, amount, order_key=order_key, order_number=order_number,
                                          email=email, phone=phone, receipt=receipt),
                                      asked, terminal, amount, order_key or order_number)

    async def card_on_file(self, customer_id: str, method_id: str, amount: int, *, order_key: str) -> OperationResult:
        """Charge ``amount`` base cents (the service adds the surcharge) to the stored card
        ``method_id`` of the customer ``customer_id`` for the order ``order_key``: one
        payment task as a sale (``stop_waiting`` ends the wait, the charge then stays
        ``unknown`` and resumable). ``ValueError`` for ids or an amount the reference refuses
        (nothing sent)."""
        if self.paying:
            raise RuntimeError(_("a payment is already in progress on this station"))
        try:
            request = CardCharge(amount=amount, customerId=customer_id, overrideDefaultPaymentMethod=method_id,
                                 order=ChargeOrder(orderId=order_key))
        except InvalidInput as error:
            raise ValueError(str(error)) from error
        return await self._as_payment(self.service.card_charge(request, order_key=order_key), Operation.CARD_CHARGE,
                                      CHARGE_LANE.format(customer_id), amount, order_key)

    async def _as_payment(self, run: Coroutine[Any, Any, OperationResult], operation: Operation, terminal_id: str,
                          amount: int, order_key: str | None) -> OperationResult:
        """``run`` as the station's one payment task, its result published."""
        started = utc_now()
        self._payment = asyncio.ensure_future(run)
        try:
            result = await asyncio.shield(self._payment)
        except asyncio.CancelledError:
            if not self._payment.cancelled():
                raise  # this caller was cancelled, not the payment
            result = await self._stopped(operation, terminal_id, amount, order_key, started)
        return await self._published(result)

    def stop_waiting(self) -> bool:
        """Stop waiting on the payment in progress; False when there is none."""
        if not self.paying:
            return False
        assert self._payment is not None
        return self._payment.cancel()

    async def _stopped(self, operation: Operation, terminal_id: str, amount: int, order_key: str | None,
                       started: datetime) -> OperationResult:
        """The result of a payment the cashier stopped waiting for, read from the journal: the
        attempt this call began (its operation, terminal, amount and order, begun since it
        started), never another one the call was checking first."""
        pending = [a for a in await self.journal.in_flight()
                   if a.terminal_id == terminal_id and a.sent and a.operation is operation and a.amount == amount
                   and a.order_key == order_key and a.created_at >= started]
        if not pending:
            return OperationResult(Outcome.FAILED, operation, terminal_id, amount=amount, order_key=order_key,
                                   message=_("stopped before anything was sent: nothing was charged"))
        return OperationResult.from_attempt(pending[-1], _(
            "stopped waiting: the customer may still be charged; the sale stays blocked until "
            "\"check again\" finds it or a manager decides"))

    async def capture(self, terminal_id: str, ref: str, amount: int, *,
                      payment_id: str | None = None) -> OperationResult:
        """Capture ``amount`` cents (at most what was held) of the pre-auth ``ref``."""
        return await self._published(await self.service.capture(terminal_id, ref, amount, payment_id=payment_id))

    async def void(self, terminal_id: str, ref: str, *, payment_id: str | None = None,
                   charged_by: Operation | None = None) -> OperationResult:
        """Void the unsettled payment (or open pre-auth) ``ref``. A charge made on the
        service's routes (``terminal_id`` its journal lane: ``vault:<id>`` for a card on file;
        ``charged_by`` the operation that made it, when known) is voided by its payment id on
        the matching void route (card or ACH), never on a terminal."""
        if charged_by is Operation.ACH_CHARGE:
            return await self._published(await self.service.ach_void(
                self._payment_id(terminal_id, payment_id), VoidReason.USER_CANCEL.value))
        if charged_by is Operation.CARD_CHARGE or on_service_routes(terminal_id):
            return await self._published(await self.service.card_void(
                self._payment_id(terminal_id, payment_id), VoidReason.USER_CANCEL.value))
        return await self._published(await self.service.void(terminal_id, ref, payment_id=payment_id))

    async def refund(self, terminal_id: str, ref: str, amount: int, *, payment_id: str | None = None,
                     charged_by: Operation | None = None) -> OperationResult:
        """Refund ``amount`` base cents of the settled payment ``ref``; a charge made on the
        service's routes by its payment id on the matching refund route, as ``void``."""
        reason = "requested_by_customer"
        if charged_by is Operation.ACH_CHARGE:
            return await self._published(await self.service.ach_refund(
                self._payment_id(terminal_id, payment_id), amount, reason))
        if charged_by is Operation.CARD_CHARGE or on_service_routes(terminal_id):
            return await self._published(await self.service.card_refund(
                self._payment_id(terminal_id, payment_id), amount, reason))
        return await self._published(await self.service.refund(terminal_id, ref, amount, payment_id=payment_id))

    async def published(self, sent: Awaitable[OperationResult]) -> OperationResult:
        """A call of the service's own payment routes (``self.service``: a card on file's or an
        ACH payment's void or refund), its one outcome event published as every other's."""
        return await self._published(await sent)

    @staticmethod
    def _payment_id(terminal_id: str, payment_id: str | None) -> str:
        if not payment_id:
            raise ValueError(_("the charge on {lane} has no payment id to give it back by: see the back "
                               "office (F9)").format(lane=terminal_id))
        return payment_id

    async def check_again(self, attempt_id: str, *, wait_limit: float = 0.0) -> OperationResult:
        """Poll, read or look the attempt up (never resend)."""
        return await self._published(await self.service.check(attempt_id, wait_limit=wait_limit))

    async def resolve(self, attempt_id: str, *, paid: bool, reason: str, by: str, force: bool = False,
                      reference: str | None = None) -> OperationResult:
        """A manager's decision, checked against the service first; "paid" needs the
        service's evidence of the charge (see ``TerminalService.resolve``)."""
        return await self._published(await self.service.resolve(
            attempt_id, paid=paid, reason=reason, by=by, force=force, reference=reference))

    async def take_cash(self, order_key: str, tendered: int, *, cashier: str | None = None) -> CashEntry:
        """Cash handed over for the order, journaled (it pays what is due, the rest is change)
        before anyone opens the drawer; see ``Journal.record_cash_sale`` for the refusals."""
        entry = await self.journal.record_cash_sale(order_key, tendered, station_id=self.config.station_id,
                                                    cashier=cashier)
        self.events.publish(CashMoved(entry))
        return entry

    async def move_cash(self, kind: CashKind, amount: int, *, reason: str, by: str,
                        order_key: str | None = None, for_card: bool = False) -> CashEntry:
        """Cash in, cash out, no sale, or cash given back for an order, journaled before the
        drawer opens (``Journal.record_cash``; ``for_card``: a manager's refund in cash of
        what a card paid)."""
        entry = await self.journal.record_cash(kind, amount, reason=reason, order_key=order_key,
                                               station_id=self.config.station_id, cashier=by, for_card=for_card)
        self.events.publish(CashMoved(entry))
        return entry

    async def cash_shift(self) -> CashShift:
        """The drawer's shift so far (the X report's cash): the movements since the last Z,
        from its float (before the first Z, the ``opening_float`` setting)."""
        last, movements = await self.journal.shift_cash()
        return cash_shift(last, movements, self.config.opening_float)

    async def close_cash(self, shift: CashShift, count: CashCount, *, terminal_id: str | None, by: str,
                         figures: Mapping[str, Any]) -> ZReport:
        """Number and keep the shift's Z (never rewritten): the count of ``shift`` (as read
        before the count; what moved since is the next shift's). ``InvalidTransition``
        when another Z closed this shift first."""
        return await self.journal.close_z(
            station_id=self.config.station_id, terminal_id=terminal_id, opening_float=shift.figures.opening_float,
            expected=count.expected, counted=count.counted, left_in_drawer=count.left_in_drawer, by=by,
            last_seq=shift.last_seq, after=shift.after, reason=count.reason, figures=figures)

    async def report(self, day: date) -> dict[str, Any]:
        return await day_report(self.client, self.journal, day, Identity(station=self.config.station_id))

    # shift end ---------------------------------------------------------------------------

    async def shift_check(self, terminal_id: str) -> ShiftCheck:
        """The terminal's shift so far, reconciled with the service (read-only)."""
        return await check_shift(self.client, self.journal, terminal_id, Identity(station=self.config.station_id),
                                 now=datetime.now(UTC))

    async def shift_end(self, terminal_id: str, *, by: str, by_serial: bool = False) -> ShiftEnd:
        """Close the terminal's batch (through the terminal service: journaled, judged by the
        type S/B rules) unless an attempt on it is still unresolved, then reconcile the shift
        and write the end-of-shift report PDF to ``<data dir>/reports/`` (whatever the close
        gave). ``by_serial``: ``terminal_id`` is the terminal's serial number (type S); the
        close is journaled under the terminal's id all the same (the serial as detail), so it
        ends that terminal's shift. The close's result is published as any operation's."""
        serial = terminal_id if by_serial else None
        terminal = await self._terminal_of_serial(terminal_id) if by_serial else terminal_id
        if terminal is None:
            close = unknown_serial_close(terminal_id)
            report = await self._shift_report(terminal_id, close, by, shift_start([], datetime.now(UTC)))
            await self._published(close.result)
            return report
        start = shift_start(await self.journal.attempts(terminal_id=terminal), datetime.now(UTC))
        # by serial, the terminal list names the terminal: were it wrong, the close would leave for
        # another one, so no terminal of the station may hold an unknown then
        blocking = await self._unresolved(None if by_serial else terminal)
        if blocking is not None:
            close = unresolved_close(terminal, blocking, self.money)
        else:
            close = close_of(await self.service.close_batch(terminal, serial=serial))
        await self._published(close.result)
        return await self._shift_report(terminal, close, by, start)

    async def _shift_report(self, terminal: str, close: ShiftClose, by: str,
                            start: tuple[datetime, bool]) -> ShiftEnd:
        """The shift reconciled with the service and its report PDF, saved under ``reports/``."""
        now = datetime.now(UTC)
        check = await check_shift(self.client, self.journal, terminal, Identity(station=self.config.station_id),
                                  now=now, start=start)
        config = self.config
        report = ShiftReport(config.store_name or config.store_id, config.store_id, config.station_id,
                             config.currency, self.training, check, close, by, now, locale=self.money.locale)
        pdf = await asyncio.to_thread(lambda: render_tables(shift_document(report)))
        try:
            path = await asyncio.to_thread(save_pdf, pdf, config.data_dir / "reports", report_stem(terminal, now))
        except OSError as error:
            log.error("the shift report could not be saved: %s", error)
            return ShiftEnd(report, pdf, None, _("the report could not be saved under {folder}: {error}").format(
                folder=config.data_dir / "reports", error=error.strerror or error))
        return ShiftEnd(report, pdf, path)

    async def _unresolved(self, terminal_id: str | None) -> Attempt | None:
        """The first attempt on the terminal (any terminal: None) still in flight or
        unknown, after a brief check of each with the service (never resent; the checks
        are published as one ``AttemptsSettled``)."""
        mine = [a for a in await self.journal.in_flight() if terminal_id in (None, a.terminal_id)]
        checked = [await self.service.check(attempt.id) for attempt in mine]
        if checked:
            self.events.publish(AttemptsSettled(tuple(checked)))
        still = [a for a in await self.journal.in_flight() if terminal_id in (None, a.terminal_id)]
        return still[0] if still else None

    async def _terminal_of_serial(self, serial: str) -> str | None:
        """The id of the terminal with that serial number (the journal's name for it); None
        when the service's terminal list does not show it (or cannot be read)."""
        try:
            listing = await self.client.list_terminals()
        except PaymentsError as error:
            log.warning("terminal list not read for serial %s: %s", serial, error)
            return None
        return next((t.id for t in listing.data if t.serial_number == serial), None)

    def _progress(self, progress: Progress) -> None:
        self.events.publish(PaymentProgress(progress))

    def _saved_late(self, result: OperationResult) -> None:
        """A kept outcome is in the journal now (or a decision taken meanwhile was found:
        then the kept answer is a late one, and a contradiction a conflict)."""
        self.events.publish(SaveTrouble("outcome", _("The {operation} {attempt} ({outcome}) "
                                                     "is saved on this computer now.").format(
            operation=operation_name(result.operation), attempt=result.attempt_id,
            outcome=outcome_name(result.outcome)), saved=True))
        if result.attempt_id is not None:
            task = asyncio.get_running_loop().create_task(self._conflict_of(result.attempt_id))
            self._later.add(task)
            task.add_done_callback(self._later.discard)

    async def _conflict_of(self, attempt_id: str) -> None:
        try:
            attempt = await self.journal.get(attempt_id)
        except JournalError as error:
            log.warning("attempt %s not read back for conflicts: %s", attempt_id, error)
            return
        if attempt.conflict is not None:
            self.events.publish(LateConflict(attempt))

    async def _published(self, result: OperationResult) -> OperationResult:
        if not result.saved:
            self.events.publish(SaveTrouble("outcome", _(
                "The {operation} is {outcome}, but this computer could not save it yet (disk full or "
                "not writable). It is kept and saved as soon as the disk allows: do not switch the computer off.")
                .format(operation=operation_name(result.operation), outcome=outcome_name(result.outcome))))
        self.events.publish(OperationEnded(result))
        if result.attempt_id:
            await self._conflict_of(result.attempt_id)
        return result
