"""``AsyncJournal``: the journal's calls, awaited, on the journal's own thread.

A write with ``synchronous=FULL`` takes milliseconds (tens at p95 on a store PC's disk)
and a lock wait up to the busy timeout: an app must never stall its event loop (and so
its screen) on them. ``AsyncJournal.open`` opens the journal on one dedicated thread and
runs every later call there (the SQLite connection never leaves that thread), so callers
``await`` each call while the loop goes on. Wrapped around an already open ``Journal``
(the command line, tests) it calls inline: same interface, no thread.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any, TypeVar

from pos_app.journal.cash import CashEntry, CashKind, ZReport
from pos_app.journal.models import Attempt, Operation, Outcome
from pos_app.journal.orders import OrderLine, OrderTotals
from pos_app.journal.parked import ParkedOrder, ParkStage
from pos_app.journal.reports import Reconciliation, Summary
from pos_app.journal.returns import ReturnRecord
from pos_app.journal.store import Journal

T = TypeVar("T")


class AsyncJournal:
    """One ``Journal`` whose every call is awaited (see the module docstring)."""

    def __init__(self, journal: Journal, executor: ThreadPoolExecutor | None = None) -> None:
        self.journal = journal
        self._executor = executor

    @classmethod
    async def open(cls, path: str | Path, **options: Any) -> AsyncJournal:
        """Open the journal at ``path`` on a new journal thread (``Journal.open``'s errors)."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        try:
            journal = await asyncio.get_running_loop().run_in_executor(
                executor, functools.partial(Journal.open, path, **options))
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(journal, executor)

    @property
    def threaded(self) -> bool:
        return self._executor is not None

    @property
    def path(self) -> Path:
        return self.journal.path

    async def _call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._executor is None:
            return method(*args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, functools.partial(method, *args, **kwargs))

    async def close(self) -> None:
        """Close the journal (on its thread), then stop the thread."""
        try:
            await self._call(self.journal.close)
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=True)

    # the Journal's interface, awaited ---------------------------------------------------

    async def begin_attempt(
        self, *, operation: Operation | str, terminal_id: str, gateway: str, amount: int | None = None,
        order_key: str | None = None, ref: str | None = None, request: dict[str, Any], cashier: str | None = None,
    ) -> Attempt:
        return await self._call(self.journal.begin_attempt, operation=operation, terminal_id=terminal_id,
                                gateway=gateway, amount=amount, order_key=order_key, ref=ref, request=request,
                                cashier=cashier)

    async def record_order(self, order_key: str, *, subtotal: int, tax: int, taxes: Mapping[str, int],
                           lines: Iterable[OrderLine] | None = None) -> None:
        await self._call(self.journal.record_order, order_key, subtotal=subtotal, tax=tax, taxes=taxes,
                         lines=None if lines is None else list(lines))

    async def order_lines(self, order_key: str) -> list[OrderLine] | None:
        return await self._call(self.journal.order_lines, order_key)

    async def begin_return(self, order_key: str, lines: Mapping[int, int], amount: int, *, by: str,
                           reason: str, returns_before: int | None = None) -> ReturnRecord:
        return await self._call(self.journal.begin_return, order_key, dict(lines), amount, by=by, reason=reason,
                                returns_before=returns_before)

    async def end_return(self, begun: ReturnRecord, *, given_back: int, problem: str = "") -> ReturnRecord:
        return await self._call(self.journal.end_return, begun, given_back=given_back, problem=problem)

    async def order_returns(self, order_key: str) -> list[ReturnRecord]:
        return await self._call(self.journal.order_returns, order_key)

    async def order_totals(self, order_keys: Iterable[str]) -> dict[str, tuple[OrderTotals, ...]]:
        return await self._call(self.journal.order_totals, list(order_keys))

    async def mark_sent(self, attempt_id: str) -> None:
        await self._call(self.journal.mark_sent, attempt_id)

    async def record(self, attempt_id: str, kind: str, data: dict[str, Any] | None = None) -> None:
        await self._call(self.journal.record, attempt_id, kind, data)

    async def finish(self, attempt_id: str, outcome: Outcome | str, result: dict[str, Any] | None = None) -> Attempt:
        return await self._call(self.journal.finish, attempt_id, outcome, result)

    async def resolve_by_manager(
        self, attempt_id: str, *, paid: bool, reason: str, by: str, forced: bool = False,
        checked: dict[str, Any] | None = None, evidence: dict[str, Any] | None = None, partially: bool = False,
    ) -> Attempt:
        return await self._call(self.journal.resolve_by_manager, attempt_id, paid=paid, reason=reason, by=by,
                                forced=forced, checked=checked, evidence=evidence, partially=partially)

    async def claim(self, attempt_id: str) -> Attempt | None:
        return await self._call(self.journal.claim, attempt_id)

    async def get(self, attempt_id: str) -> Attempt:
        return await self._call(self.journal.get, attempt_id)

    async def in_flight(self) -> list[Attempt]:
        return await self._call(self.journal.in_flight)

    async def resumable(self) -> list[Attempt]:
        return await self._call(self.journal.resumable)

    async def payment_for_ref(self, ref: str) -> str | None:
        return await self._call(self.journal.payment_for_ref, ref)

    async def charge_owner(self, reference: str) -> str | None:
        return await self._call(self.journal.charge_owner, reference)

    async def attempts(
        self, *, day: date | None = None, terminal_id: str | None = None, tz: tzinfo | str | None = None,
        since: datetime | None = None,
    ) -> list[Attempt]:
        return await self._call(self.journal.attempts, day=day, terminal_id=terminal_id, tz=tz, since=since)

    async def order_charges(self, order_key: str) -> dict[str, int]:
        return await self._call(self.journal.order_charges, order_key)

    async def order_attempts(self, order_key: str) -> list[Attempt]:
        return await self._call(self.journal.order_attempts, order_key)

    async def record_cash_sale(self, order_key: str, tendered: int, *, station_id: str | None = None,
                               cashier: str | None = None) -> CashEntry:
        return await self._call(self.journal.record_cash_sale, order_key, tendered, station_id=station_id,
                                cashier=cashier)

    async def record_cash(self, kind: CashKind, amount: int, *, reason: str, order_key: str | None = None,
                          station_id: str | None = None, cashier: str | None = None,
                          for_card: bool = False) -> CashEntry:
        return await self._call(self.journal.record_cash, kind, amount, reason=reason, order_key=order_key,
                                station_id=station_id, cashier=cashier, for_card=for_card)

    async def order_cash(self, order_key: str) -> list[CashEntry]:
        return await self._call(self.journal.order_cash, order_key)

    async def shift_cash(self) -> tuple[ZReport | None, list[CashEntry]]:
        return await self._call(self.journal.shift_cash)

    async def close_z(self, **fields: Any) -> ZReport:
        return await self._call(self.journal.close_z, **fields)

    async def z_reports(self) -> list[ZReport]:
        return await self._call(self.journal.z_reports)

    async def newest_attempts(self, day: date, limit: int, tz: tzinfo | str | None = None) -> list[Attempt]:
        return await self._call(self.journal.newest_attempts, day, limit, tz)

    async def attempts_changed(
        self, day: date, mark: tuple[int, int] = (0, 0), tz: tzinfo | str | None = None
    ) -> tuple[list[Attempt], tuple[int, int]]:
        return await self._call(self.journal.attempts_changed, day, mark, tz)

    async def summary(self, day: date, tz: tzinfo | str | None = None) -> Summary:
        return await self._call(self.journal.summary, day, tz)

    async def reconcile(
        self, service_entries: list[dict[str, Any]], *, day: date | None = None, tz: tzinfo | str | None = None
    ) -> Reconciliation:
        return await self._call(self.journal.reconcile, service_entries, day=day, tz=tz)

    # orders parked on a payment link (``parked``) ---------------------------------------

    async def begin_parking(self, order_key: str, amount: int, *, contact: str, cart: str,
                            cashier: str | None) -> ParkedOrder:
        return await self._call(self.journal.begin_parking, order_key, amount, contact=contact, cart=cart,
                                cashier=cashier)

    async def record_link(self, parking: ParkedOrder, link_id: str, url: str | None) -> ParkedOrder:
        return await self._call(self.journal.record_link, parking, link_id, url)

    async def end_parking(self, parking: ParkedOrder, stage: ParkStage, detail: str) -> ParkedOrder:
        return await self._call(self.journal.end_parking, parking, stage, detail)

    async def record_link_paid(self, parking: ParkedOrder, *, payment_id: str | None, surcharge: int,
                               detail: str) -> ParkedOrder | None:
        return await self._call(self.journal.record_link_paid, parking, payment_id=payment_id, surcharge=surcharge,
                                detail=detail)

    async def record_receipt(self, parking: ParkedOrder) -> ParkedOrder | None:
        return await self._call(self.journal.record_receipt, parking)

    async def parked_orders(self, *, since: datetime | None = None) -> list[ParkedOrder]:
        return await self._call(self.journal.parked_orders, since=since)

    async def paid_parking(self, *, order_key: str | None = None,
                           payment_id: str | None = None) -> ParkedOrder | None:
        return await self._call(self.journal.paid_parking, order_key=order_key, payment_id=payment_id)

    async def parking(self, parking_id: str) -> ParkedOrder:
        return await self._call(self.journal.parking, parking_id)
