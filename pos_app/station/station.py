"""``Station``: one lane, wired once, driven by both the command line and the GUI.

It owns the one ``PaymentsClient`` (the cashier's identity changes per sign-in without
rebuilding it), the journal on its own thread (``AsyncJournal``), the terminal service
with the station's shared poll budget, start-up recovery and the event stream that every
window follows. A payment runs as one task: ``stop_waiting`` cancels it, and the service
journals the attempt ``unknown`` (never resent) before the task ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import replace
from datetime import date
from types import TracebackType
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity
from pos_app.config import StoreConfig
from pos_app.journal import Journal, Operation, Outcome
from pos_app.journal.threaded import AsyncJournal
from pos_app.station.events import EventBus, EventKind
from pos_app.station.report import day_report
from pos_app.terminal.outcomes import OperationResult, Progress
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.service import TerminalService
from pos_app.terminal.slots import SharedPollBudget

log = logging.getLogger(__name__)


class Station:
    """One lane: config, identity, client, journal, terminal service and events."""

    def __init__(
        self, config: StoreConfig, client: PaymentsClient, journal: AsyncJournal, *, training: bool = False,
        budget: SharedPollBudget | None = None,
    ) -> None:
        self.config = config
        self.client = client
        self.journal = journal
        self.training = training
        self.events = EventBus()
        self.service = TerminalService(
            client, journal, gateway=config.gateway, wait_limit=config.poll_wait_limit, on_progress=self._progress,
            scheduler=PollScheduler(client.poll_message, shared=budget),
        )
        self._payment: asyncio.Task[OperationResult] | None = None

    @classmethod
    async def open(
        cls, config: StoreConfig, secret: str, *, threaded: bool = True, training: bool = False,
        cashier: str | None = None,
    ) -> Station:
        """Wire a station: the journal opened on its own thread (``threaded``) or inline
        (a one-shot command), the client with the station's identity. Raises the
        journal's errors (nothing is sent before the journal is open)."""
        identity = Identity(store=config.store_id, station=config.station_id,
                            cashier=cashier or os.environ.get("POS_CASHIER", config.cashier_id))
        if threaded:
            journal = await AsyncJournal.open(config.journal_path)
        else:
            journal = AsyncJournal(Journal.open(config.journal_path))
        try:
            client = PaymentsClient(config.base_url, secret, identity=identity, routes=config.route_table(),
                                    connect_timeout=config.connect_timeout, read_timeout=config.read_timeout)
        except BaseException:
            await journal.close()
            raise
        budget = SharedPollBudget(config.data_dir / "poll-budget", secret)
        return cls(config, client, journal, training=training, budget=budget)

    async def aclose(self) -> None:
        """Stop waiting on a payment (journaled unknown), close the client, then the journal.
        Call it while the event loop still runs."""
        if self._payment is not None and not self._payment.done():
            self._payment.cancel()
            await asyncio.gather(self._payment, return_exceptions=True)
        try:
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
        self.events.publish(EventKind.SIGNED_OUT)

    # payments ---------------------------------------------------------------------------

    @property
    def paying(self) -> bool:
        return self._payment is not None and not self._payment.done()

    async def recover(self) -> list[OperationResult]:
        """On start: settle what a dead process left in flight (never resending)."""
        results = await self.service.recover()
        if results:
            self.events.publish(EventKind.RECOVERED, results)
        return results

    async def pay(
        self, amount: int, *, order_key: str, terminal_id: str | None = None, preauth: bool = False,
        order_number: str | None = None,
    ) -> OperationResult:
        """A card sale (or pre-auth) of ``amount`` cents on the station's terminal.

        Progress and the outcome are published as events. ``stop_waiting`` ends the wait:
        the result is then ``unknown`` and the attempt stays resumable."""
        terminal = terminal_id or self.config.terminal_id
        if not terminal:
            raise ValueError("no payment terminal is set for this station (terminal_id / POS_TERMINAL)")
        if self.paying:
            raise RuntimeError("a payment is already in progress on this station")
        run = self.service.preauth if preauth else self.service.sale
        self._payment = asyncio.ensure_future(run(terminal, amount, order_key=order_key, order_number=order_number))
        try:
            result = await asyncio.shield(self._payment)
        except asyncio.CancelledError:
            if not self._payment.cancelled():
                raise  # this caller was cancelled, not the payment
            result = await self._stopped(terminal, amount, preauth)
        await self._published(result)
        return result

    def stop_waiting(self) -> bool:
        """Stop waiting on the payment in progress; False when there is none."""
        if not self.paying:
            return False
        assert self._payment is not None
        return self._payment.cancel()

    async def _stopped(self, terminal_id: str, amount: int, preauth: bool) -> OperationResult:
        """The result of a payment the cashier stopped waiting for, read from the journal."""
        pending = [a for a in await self.journal.in_flight() if a.terminal_id == terminal_id and a.sent]
        operation = Operation.PREAUTH if preauth else Operation.SALE
        if not pending:
            return OperationResult(Outcome.FAILED, operation, terminal_id, amount=amount,
                                   message="stopped before anything was sent: nothing was charged")
        return OperationResult.from_attempt(pending[-1], (
            "stopped waiting: the customer may still be charged; the sale stays blocked until "
            "\"check again\" finds it or a manager decides"))

    async def check_again(self, attempt_id: str, *, wait_limit: float = 0.0) -> OperationResult:
        """Poll, read or look the attempt up (never resend); the result is published."""
        result = await self.service.check(attempt_id, wait_limit=wait_limit)
        await self._published(result)
        return result

    async def resolve(self, attempt_id: str, *, paid: bool, reason: str, by: str,
                      force: bool = False) -> OperationResult:
        """A manager's decision, checked against the service first (see the service)."""
        result = await self.service.resolve(attempt_id, paid=paid, reason=reason, by=by, force=force)
        await self._published(result)
        return result

    async def report(self, day: date) -> dict[str, Any]:
        return await day_report(self.client, self.journal, day, Identity(station=self.config.station_id))

    def _progress(self, progress: Progress) -> None:
        self.events.publish(EventKind.PROGRESS, progress)

    async def _published(self, result: OperationResult) -> None:
        self.events.publish(EventKind.OUTCOME, result)
        if result.attempt_id:
            attempt = await self.journal.get(result.attempt_id)
            if attempt.conflict is not None:
                self.events.publish(EventKind.CONFLICT, attempt)
