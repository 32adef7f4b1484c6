"""Property: whatever a cashier, a manager, the network and a crash do, no money moves twice.

A Hypothesis state machine drives the real ``TerminalService`` against the real sandbox
over loopback HTTP: sales and pre-auths with a fault drawn per step (decline, answer lost
after the charge, connection reset, 503, gateway failure, a lagging transaction list, a
foreign user-agent), captures, voids and refunds of earlier approvals (answers lost too),
close batch, a sale cancelled after its request left, a crash of the app (idle, mid-request
or before a follow-up left) and its restart on the same journal file, ``resume``, manager
decisions (forced or not) and a manager deciding while the answer is still on its way
(the late answer, type B and type S). Mostly type B (synchronous, fast); a few type S steps.

After every step the journal is checked against the sandbox's own record (its payments,
their follow-ups, its request counters, and the type S messages that will still charge):

- every pay/auth/capture/void/refund/close-batch request the sandbox received is one
  journaled attempt marked sent, and no attempt was sent twice;
- every sandbox payment names a journaled attempt, at most one payment per attempt, at most
  one paid payment per order (unless a manager forced a decision on that order);
- never more refunded than captured, and the refunds add up;
- a journal ``approved`` (by evidence) has its sandbox transaction, a ``declined``/``failed``
  has none that went through, unless a manager's decision was contradicted later (a
  conflict) or forced (attention);
- every attempt has a final outcome or is in ``in_flight()`` and resumable by this process.

Step by step, a charge leaves only once whatever held its terminal or order was settled
(never resent), expected outcomes match the fault drawn, and every FAILED result that sent
nothing carries a typed ``refusal``.

One sandbox, event loop, client set and journal folder per run of the machine. A failure
shows its whole run; ``POS_MACHINE_SHRINK=1`` shrinks it (minutes: every step is real HTTP).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity, attempt_in
from pos_app.journal import Attempt, Journal, Operation, Outcome
from pos_app.sandbox.records import APPROVE, TIMEOUT_FOREVER, TIMEOUT_THEN_COMPLETE
from pos_app.sandbox.server import SandboxConfig, SandboxServer
from pos_app.terminal import TerminalService
from pos_app.terminal.outcomes import OperationResult, Phase, Refusal
from tests.waiting import wait_until_async

TERMINALS = {"B": ("tb-2001", "tb-2002"), "S": ("ts-1001", "ts-1002")}
ORDERS = ("o-1", "o-2", "o-3", None)
AMOUNTS = st.integers(min_value=100, max_value=8999)  # clear of the 99xx test amounts
ORDER_OPS = frozenset({Operation.SALE, Operation.PREAUTH})
FOLLOW_UPS = frozenset({Operation.CAPTURE, Operation.VOID, Operation.REFUND})
ROUTE = {
    Operation.SALE: "terminal.pay", Operation.PREAUTH: "terminal.auth", Operation.CAPTURE: "terminal.capture",
    Operation.VOID: "terminal.void", Operation.REFUND: "terminal.refund", Operation.CLOSE_BATCH: "terminal.close_batch",
}
CHARGE_ROUTES = ("terminal.pay", "terminal.auth")

# fault name: (amount to send instead of the drawn one, knobs set for the step)
B_FAULTS: dict[str, tuple[int | None, dict[str, int]]] = {
    "none": (None, {}),
    "decline": (99, {}),
    "answer_lost": (None, {"drop_next": 1}),
    "reset_before_processing": (None, {"reset_next": 1}),
    "unavailable_503": (9908, {}),
    "gateway_failure": (9901, {}),
    "foreign_agent_answer_lost": (None, {"foreign_user_agent": 1, "drop_next": 1}),
}
B_EXPECTED = {"none": Outcome.APPROVED, "decline": Outcome.DECLINED}  # any other fault: unknown
S_DELAY = (0.2, 0.4)
KNOBS_AT_REST = {"drop_next": 0, "reset_next": 0, "latency_ms": 0, "list_lag_s": 0, "foreign_user_agent": 0,
                 "s_delay_min": S_DELAY[0], "s_delay_max": S_DELAY[1]}
SLOW_MESSAGE = {"s_delay_min": 5.0, "s_delay_max": 5.0}
"""A type S message interrupted by a cancel or a crash completes only after the example:
the sandbox's pending messages tell what it will charge (see ``truth``)."""
CHARGING = frozenset({APPROVE, TIMEOUT_THEN_COMPLETE, TIMEOUT_FOREVER})

LATENCY_MS = 100
"""How long the sandbox holds an answer back in the steps that act while a request is out."""
PICKS = st.integers(min_value=0, max_value=15)
"""Which earlier approval or pending attempt a step acts on (modulo how many there are)."""
STEP_LIMIT = 30.0
WAIT_LIMIT = 60.0
"""Longer than a run: a "not paid" on an unanswered attempt is always too early without force."""
MAX_S_STEPS = 2
"""Type S steps poll (about half a second each): a few per run keep the file fast."""


@dataclass(frozen=True)
class Charge:
    """An approved sale or pre-auth: what a capture, void or refund acts on."""

    merchant: str
    terminal: str
    operation: Operation
    ref: str
    payment_id: str | None
    amount: int


class Lane:
    """One merchant's station: client, journal file and service; ``close`` then ``open`` is a restart."""

    def __init__(self, server: SandboxServer, merchant: str, folder: Path) -> None:
        self.server = server
        self.merchant = merchant
        self.path = folder / f"journal-{merchant}.sqlite3"
        self.open()

    def open(self) -> None:
        self.client = PaymentsClient(self.server.base_url, self.server.keys[self.merchant],
                                     identity=Identity("s1", f"lane-{self.merchant}", "c7"))
        self.journal = Journal.open(self.path)
        self.service = TerminalService(self.client, self.journal, wait_limit=WAIT_LIMIT, brief_wait=0.6)

    async def close(self) -> None:
        try:
            await self.client.aclose()
        finally:
            self.journal.close()


def late_approved(attempt: Attempt) -> bool:
    return (attempt.conflict or {}).get("outcome") == "approved"


def charged_ref(attempt: Attempt) -> str | None:
    """The transaction id a charge (or its late approval) was given: what a void names."""
    return attempt.result.get("transaction_id") or (attempt.conflict or {}).get("transaction_id")


class ServiceMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="service-machine-"))
        self.server = SandboxServer(SandboxConfig(s_delay=S_DELAY, seed=1))
        self.server.start()
        self.http = httpx.Client(base_url=self.server.base_url, timeout=10)
        self.loop = asyncio.new_event_loop()
        self.lanes = {m: Lane(self.server, m, self.folder) for m in ("B", "S")}
        self.charges: list[Charge] = []  # approvals seen so far, for captures, voids and refunds
        self.attributed: dict[str, str] = {}  # payment id -> attempt id, for payments without our agent
        self.s_steps = 0
        self._truth: dict[str, Any] | None = None

    def teardown(self) -> None:
        try:
            for lane in self.lanes.values():
                self.loop.run_until_complete(lane.close())
        finally:
            self.loop.close()
            self.http.close()
            self.server.stop()
            shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ helpers

    def run(self, coroutine: Any) -> Any:
        self._truth = None
        return self.loop.run_until_complete(asyncio.wait_for(coroutine, STEP_LIMIT))

    def knobs(self, **knobs: int | float) -> None:
        self._truth = None
        self.server.set_faults(**knobs)

    def requests(self, merchant: str) -> Counter[str]:
        return Counter(self.server.stats()["requests"].get(merchant, {}))

    def charges_sent(self, merchant: str) -> int:
        counts = self.requests(merchant)
        return sum(counts[route] for route in CHARGE_ROUTES)

    def check_typed(self, lane: Lane, result: OperationResult) -> None:
        """A FAILED operation that sent nothing says why, in a machine-readable refusal."""
        for each in (result, *result.recovered):
            if each.outcome is Outcome.FAILED and each.refusal is None:
                assert each.attempt_id is not None, f"failed without an attempt and without a refusal: {each}"
                assert lane.journal.get(each.attempt_id).sent, f"nothing sent, yet no refusal: {each}"
            if each.attempt_id is None:
                assert each.outcome is Outcome.FAILED and each.refusal is not None, each

    def keep_approvals(self, lane: Lane, results: list[OperationResult]) -> None:
        """Approved sales and pre-auths (found at once or later) that a follow-up may act on."""
        for result in results:
            for each in (result, *result.recovered):
                if (each.outcome is Outcome.APPROVED and each.operation in ORDER_OPS and each.transaction_id
                        and each.refusal is None and each.attempt_id is not None):
                    attempt = lane.journal.get(each.attempt_id)
                    if attempt.resolved_by is None:
                        self.charges.append(Charge(lane.merchant, each.terminal_id, each.operation,
                                                   each.transaction_id, each.payment_id, attempt.amount or 0))

    def pick_charge(self, pick: int) -> Charge | None:
        """An earlier approval, chosen by a draw whose range does not depend on what happened
        (outcomes depend on timing: a bundle or a precondition would make the draws flaky)."""
        if not self.charges:
            event("no approval to act on yet")
            return None
        return self.charges[pick % len(self.charges)]

    def payment_ids(self, merchant: str) -> set[str]:
        return {p["id"] for p in self.server.stats()["payments"] if p["merchant"] == merchant}

    def held(self, lane: Lane, terminal: str, order: str | None) -> list[Attempt]:
        """Unresolved attempts that must be settled (never resent) before a new charge leaves."""
        return [a for a in lane.journal.in_flight()
                if (a.terminal_id == terminal and (a.outcome is None or a.operation in ORDER_OPS))
                or (order is not None and a.order_key == order and a.operation in ORDER_OPS)]

    def order_paid(self, lane: Lane, order: str | None) -> bool:
        """An approval (or a late one) of the order that no approved void took back since: a
        voided charge pays nothing, so the order may be charged again."""
        if order is None:
            return False
        attempts = lane.journal.attempts()
        voided = {a.ref for a in attempts if a.operation is Operation.VOID and a.outcome is Outcome.APPROVED}
        return any(
            a.order_key == order and a.operation in ORDER_OPS and (a.outcome is Outcome.APPROVED or late_approved(a))
            and not (charged_ref(a) and charged_ref(a) in voided)
            for a in attempts)

    def check_new_charge(self, lane: Lane, sent: int, held: list[Attempt], paid_before: bool,
                         result: OperationResult) -> None:
        """A charge left only if every attempt holding its terminal or order was settled first
        (and not approved), and its order was not paid."""
        assert sent in (0, 1), f"{sent} charge requests for one sale"
        if not sent:
            return
        assert not paid_before, f"an already paid order was charged again: {result}"
        for blocker in held:
            now = lane.journal.get(blocker.id)
            if blocker.operation in ORDER_OPS:  # a charge of the terminal or the order: settled, not approved
                assert now.is_final and now.outcome is not Outcome.APPROVED, (
                    f"a charge left while {blocker.id} held its terminal/order (now {now.outcome}): {result}")
            else:  # a follow-up that kept the terminal busy: looked up first (an unknown one no longer holds it)
                assert now.outcome is not None, f"a charge left while {blocker.id} kept the terminal busy: {result}"

    async def start_and_wait_sent(self, lane: Lane, merchant_route: str, start: Any) -> tuple[asyncio.Task, bool]:
        """Start an operation; return once its request reached the sandbox (True) or it ended
        without sending anything (False)."""
        before = self.requests(lane.merchant)[merchant_route]
        sending = asyncio.Event()
        lane.service.on_progress = lambda p: sending.set() if p.phase is Phase.SENDING else None
        task = asyncio.ensure_future(start())
        waiter = asyncio.ensure_future(sending.wait())
        try:
            await asyncio.wait({task, waiter}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            lane.service.on_progress = None
        if not sending.is_set():
            assert task.done(), "the operation neither sent its request nor ended"
            return task, False
        await wait_until_async(lambda: self.requests(lane.merchant)[merchant_route] == before + 1,
                               timeout=5, interval=0.003, what=f"{merchant_route} reaching the sandbox")
        return task, True

    # ------------------------------------------------------------------ sales and pre-auths

    @rule(terminal=st.sampled_from(TERMINALS["B"]), order=st.sampled_from(ORDERS),
          operation=st.sampled_from([Operation.SALE, Operation.PREAUTH]), amount=AMOUNTS,
          fault=st.sampled_from(sorted(B_FAULTS)), lagging_list=st.booleans())
    def charge(self, terminal, order, operation, amount, fault, lagging_list):
        lane = self.lanes["B"]
        forced_amount, knobs = B_FAULTS[fault]
        amount = forced_amount or amount
        held, paid_before = self.held(lane, terminal, order), self.order_paid(lane, order)
        sent_before, payments_before = self.charges_sent("B"), self.payment_ids("B")
        self.knobs(**knobs, list_lag_s=600 if lagging_list else 0)
        try:
            method = lane.service.sale if operation is Operation.SALE else lane.service.preauth
            result = self.run(method(terminal, amount, order_number=order))
        finally:
            self.knobs(**KNOBS_AT_REST)
        sent = self.charges_sent("B") - sent_before
        event(f"charge {fault}: {result.outcome} {result.refusal or ''}")
        self.check_typed(lane, result)
        self.check_new_charge(lane, sent, held, paid_before, result)
        for payment_id in self.payment_ids("B") - payments_before:
            assert sent and result.attempt_id, f"payment {payment_id} appeared without a charge request"
            self.attributed[payment_id] = result.attempt_id
        if sent:
            assert result.attempt_id and lane.journal.get(result.attempt_id).sent, result
            assert result.refusal is None, result
            assert result.outcome is B_EXPECTED.get(fault, Outcome.UNKNOWN), (fault, result)
        else:
            assert result.outcome is Outcome.FAILED and result.refusal is not None, result
        self.keep_approvals(lane, [result])

    @precondition(lambda self: self.s_steps < MAX_S_STEPS)
    @rule(terminal=st.sampled_from(TERMINALS["S"]), order=st.sampled_from(ORDERS),
          amount=AMOUNTS, fault=st.sampled_from(["none", "decline", "answer_lost"]))
    def type_s_sale(self, terminal, order, amount, fault):
        self.s_steps += 1
        lane = self.lanes["S"]
        amount = {"decline": 99, "answer_lost": 9906}.get(fault, amount)
        held, paid_before, sent_before = self.held(lane, terminal, order), self.order_paid(lane, order), \
            self.charges_sent("S")
        result = self.run(lane.service.sale(terminal, amount, order_number=order))
        sent = self.charges_sent("S") - sent_before
        self.check_typed(lane, result)
        self.check_new_charge(lane, sent, held, paid_before, result)
        if sent:
            expected = {"none": Outcome.APPROVED, "decline": Outcome.DECLINED}.get(fault, Outcome.UNKNOWN)
            assert result.outcome is expected, (fault, result)
        self.keep_approvals(lane, [result])

    # ------------------------------------------------------------------ follow-ups

    @rule(pick=PICKS, operation=st.sampled_from([Operation.CAPTURE, Operation.VOID, Operation.REFUND]),
          part=st.sampled_from([1.0, 0.5, 0.3]), fault=st.sampled_from(["none", "answer_lost", "reset"]),
          name_payment=st.booleans())
    def follow_up(self, pick, operation, part, fault, name_payment):
        charge = self.pick_charge(pick)
        if charge is None:
            return
        lane = self.lanes[charge.merchant]
        amount = max(1, int(charge.amount * part))
        before = self.truth()["by_ref"].get((charge.merchant, charge.ref))
        pending = [a for a in lane.journal.in_flight() if a.ref == charge.ref or a.terminal_id == charge.terminal]
        sent_before = self.requests(charge.merchant)[ROUTE[operation]]
        payment_id = charge.payment_id if name_payment else None
        self.knobs(**{"answer_lost": {"drop_next": 1}, "reset": {"reset_next": 1}}.get(fault, {}))
        try:
            if operation is Operation.VOID:
                result = self.run(lane.service.void(charge.terminal, charge.ref, payment_id=payment_id))
            else:
                call = lane.service.capture if operation is Operation.CAPTURE else lane.service.refund
                result = self.run(call(charge.terminal, charge.ref, amount, payment_id=payment_id))
        finally:
            self.knobs(**KNOBS_AT_REST)
        sent = self.requests(charge.merchant)[ROUTE[operation]] - sent_before
        event(f"{operation} {fault}: {result.outcome} {result.refusal or ''}")
        self.check_typed(lane, result)
        assert sent in (0, 1)
        if not sent:
            assert result.outcome is Outcome.FAILED and result.refusal is not None, result
            return
        for blocker in pending:  # a follow-up left only once the earlier one was settled
            now = lane.journal.get(blocker.id)
            if blocker.ref == charge.ref:  # the same money: settled, and it had not moved
                assert now.is_final and now.outcome is not Outcome.APPROVED, (blocker, now, result)
            elif blocker.outcome is None:  # its terminal was busy: looked up first (unknown frees it)
                assert now.outcome is not None, (blocker, now, result)
        allowed = before is not None and follow_up_allowed(operation, amount, before)
        attempt = lane.journal.get(result.attempt_id)
        if not allowed:
            assert result.outcome is not Outcome.APPROVED, (operation, amount, before, result)
        elif fault == "none" or (fault == "answer_lost" and attempt.payment_before is not None):
            assert result.outcome is Outcome.APPROVED, (fault, operation, amount, before, result)
        if fault == "reset":  # no answer: nothing proves it did not reach the service, so never "failed" yet
            assert result.outcome is Outcome.UNKNOWN or result.refusal is not None, (fault, result)

    @rule(merchant=st.sampled_from(["B", "B", "S"]), index=st.integers(0, 1), answer_lost=st.booleans())
    def close_batch(self, merchant, index, answer_lost):
        lane = self.lanes[merchant]
        terminal = TERMINALS[merchant][index]
        sent_before = self.requests(merchant)["terminal.close_batch"]
        self.knobs(drop_next=int(answer_lost))
        try:
            result = self.run(lane.service.close_batch(terminal))
        finally:
            self.knobs(**KNOBS_AT_REST)
        self.check_typed(lane, result)
        if self.requests(merchant)["terminal.close_batch"] > sent_before:
            assert result.outcome is (Outcome.UNKNOWN if answer_lost else Outcome.APPROVED), result

    # ------------------------------------------------------------------ stopping, crashing, restarting

    @rule(merchant=st.sampled_from(["B", "B", "S"]), terminal_index=st.integers(0, 1), order=st.sampled_from(ORDERS),
          amount=AMOUNTS)
    def cancel_after_the_request_left(self, merchant, terminal_index, order, amount):
        """The cashier stops waiting once the request left (its answer is on its way)."""
        lane = self.lanes[merchant]
        terminal = TERMINALS[merchant][terminal_index]

        async def scenario() -> OperationResult | None:
            task, sent = await self.start_and_wait_sent(
                lane, "terminal.pay", lambda: lane.service.sale(terminal, amount, order_number=order))
            if not sent:
                return task.result()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return None

        self.knobs(latency_ms=LATENCY_MS, **SLOW_MESSAGE)
        try:
            result = self.run(scenario())
        finally:
            self.knobs(**KNOBS_AT_REST)
        event(f"cancel: {'refused' if result else 'cancelled'}")
        if result is not None:  # refused before anything left
            self.check_typed(lane, result)
            assert result.outcome is Outcome.FAILED and result.refusal is not None, result
            return
        [stopped] = [a for a in lane.journal.in_flight() if a.terminal_id == terminal and a.outcome is Outcome.UNKNOWN
                     and "stopped waiting" in a.result.get("message", "")] or [None]
        assert stopped is not None and stopped.sent, lane.journal.in_flight()

    @rule(moment=st.sampled_from(["idle", "mid_request"]), merchant=st.sampled_from(["B", "B", "S"]),
          terminal_index=st.integers(0, 1), amount=AMOUNTS)
    def crash_and_restart(self, moment, merchant, terminal_index, amount):
        """The app dies (nothing more is journaled) and starts again on the same journal."""
        lane = self.lanes[merchant]
        terminal = TERMINALS[merchant][terminal_index]
        crashed: str | None = None
        if moment == "mid_request":
            async def scenario() -> str | None:
                task, sent = await self.start_and_wait_sent(
                    lane, "terminal.pay", lambda: lane.service.sale(terminal, amount))
                if not sent:
                    self.check_typed(lane, task.result())
                    return None
                [attempt] = [a for a in lane.journal.in_flight() if a.terminal_id == terminal and a.outcome is None]
                lane.journal.close()  # the process is gone: whatever it does next is not journaled
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                return attempt.id

            self.knobs(latency_ms=LATENCY_MS, **SLOW_MESSAGE)
            try:
                crashed = self.run(scenario())
            finally:
                self.knobs(**KNOBS_AT_REST)
        event(f"crash {moment}: {'mid-request' if crashed else 'idle'}")
        self.run(lane.close())
        lane.open()
        if crashed is not None:
            attempt = lane.journal.get(crashed)
            assert attempt.sent and attempt.outcome is None, attempt
            assert crashed in {a.id for a in lane.journal.resumable()}

    @rule(pick=PICKS)
    def crash_before_a_follow_up_left(self, pick):
        """The app dies while a void reads its payment, before the request leaves."""
        charge = self.pick_charge(pick)
        if charge is None or charge.payment_id is None:
            return
        lane = self.lanes[charge.merchant]

        async def scenario() -> str | None:
            before = self.requests(charge.merchant)["payment.get"]
            task = asyncio.ensure_future(lane.service.void(charge.terminal, charge.ref, payment_id=charge.payment_id))
            await wait_until_async(lambda: task.done() or self.requests(charge.merchant)["payment.get"] > before,
                                   timeout=10, interval=0.003, what="the reading before the void")
            unsent = [a for a in lane.journal.in_flight() if a.ref == charge.ref and a.outcome is None and not a.sent]
            if task.done() or not unsent:
                self.check_typed(lane, await task)
                return None
            lane.journal.close()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return unsent[0].id

        self.knobs(latency_ms=LATENCY_MS)
        try:
            crashed = self.run(scenario())
        finally:
            self.knobs(**KNOBS_AT_REST)
        event(f"crash before a follow-up: {'caught' if crashed else 'missed'}")
        self.run(lane.close())
        lane.open()
        if crashed is not None:
            attempt = lane.journal.get(crashed)
            assert not attempt.sent and attempt.outcome is None, attempt

    @rule(merchant=st.sampled_from(["B", "S"]))
    def resume(self, merchant):
        lane = self.lanes[merchant]
        pending = {a.id for a in lane.journal.in_flight()}
        results = self.run(lane.service.resume(wait_limit=0))
        assert {r.attempt_id for r in results} == pending
        for result in results:
            event(f"resume: {result.outcome}")
            self.check_typed(lane, result)
            attempt = lane.journal.get(result.attempt_id)
            assert attempt.outcome is result.outcome or (attempt.outcome is None and result.outcome is Outcome.UNKNOWN)
            if not attempt.sent:
                assert attempt.outcome is Outcome.FAILED, attempt  # never sent now: proven nothing moved
        self.keep_approvals(lane, results)

    # ------------------------------------------------------------------ managers

    @rule(pick=PICKS, paid=st.booleans(), force=st.booleans())
    def manager_decides(self, pick, paid, force):
        pending = [(lane, a) for lane in self.lanes.values() for a in lane.journal.in_flight()]
        if not pending:
            event("nothing for a manager to decide")
            return
        lane, attempt = pending[pick % len(pending)]
        result = self.run(lane.service.resolve(attempt.id, paid=paid, reason="checked the printout", by="mgr",
                                               force=force))
        after = lane.journal.get(attempt.id)
        event(f"decision paid={paid} force={force}: {result.outcome} {result.refusal or ''}")
        decided = Outcome.APPROVED if paid else Outcome.FAILED
        assert result.refusal in (None, Refusal.SERVICE_SHOWS_OTHERWISE, Refusal.POSSIBLE_MATCH,
                                  Refusal.TOO_EARLY, Refusal.NO_CHARGE_FOUND), result
        if result.refusal is None:
            assert after.is_final and after.outcome is result.outcome, (result, after)
            if after.resolved_by is not None:
                assert after.outcome is decided
        elif result.refusal is Refusal.SERVICE_SHOWS_OTHERWISE:
            assert after.is_final and after.outcome is not decided and after.resolved_by is None, (result, after)
        elif result.refusal is Refusal.NO_CHARGE_FOUND:  # "paid" without the service's evidence, forced or not
            assert paid and after.needs_resolution, (result, after)
        else:  # a possible match, or the request may still be processed: "not paid" needs force
            assert not paid and not force and after.needs_resolution, (result, after)
        self.keep_approvals(lane, [result])

    @precondition(lambda self: self.s_steps < MAX_S_STEPS)
    @rule(terminal=st.sampled_from(TERMINALS["S"]), order=st.sampled_from(ORDERS), amount=AMOUNTS,
          paid=st.booleans(), force=st.booleans())
    def manager_decides_while_the_answer_is_on_its_way(self, terminal, order, amount, paid, force):
        """Type S: a manager decides as soon as the message id is journaled; the answer comes later."""
        self.s_steps += 1
        lane = self.lanes["S"]
        held, paid_before, sent_before = self.held(lane, terminal, order), self.order_paid(lane, order), \
            self.charges_sent("S")

        async def scenario() -> tuple[OperationResult, OperationResult | None]:
            task = asyncio.ensure_future(lane.service.sale(terminal, amount, order_number=order))
            await wait_until_async(
                lambda: task.done() or any(a.msg_identifier and a.terminal_id == terminal and a.outcome is None
                                           for a in lane.journal.in_flight()),
                timeout=10, interval=0.003, what="the message id")
            if task.done():
                return task.result(), None
            [attempt] = [a for a in lane.journal.in_flight() if a.terminal_id == terminal and a.outcome is None]
            decision = await lane.service.resolve(attempt.id, paid=paid, reason="the customer left", by="mgr",
                                                  force=force)
            return await task, decision

        result, decision = self.run(scenario())
        event(f"late answer paid={paid} force={force}: "
              f"{'not sent' if decision is None else decision.refusal} -> {result.outcome}")
        self.check_typed(lane, result)
        self.check_new_charge(lane, self.charges_sent("S") - sent_before, held, paid_before, result)
        if decision is None:
            assert result.outcome is Outcome.FAILED and result.refusal is not None, result
            return
        attempt = lane.journal.get(result.attempt_id)
        assert attempt.outcome is Outcome.APPROVED or late_approved(attempt), attempt
        if decision.refusal is None and attempt.resolved_by is not None and not paid:
            assert "later answer was approved" in result.message and self.order_paid(lane, order) == (order is not None)

    @rule(terminal=st.sampled_from(TERMINALS["B"]), order=st.sampled_from(ORDERS), amount=AMOUNTS,
          declined=st.booleans(), lagging_list=st.booleans(), paid=st.booleans(), force=st.booleans())
    def manager_decides_while_a_type_b_answer_is_held(self, terminal, order, amount, declined, lagging_list, paid,
                                                      force):
        """Type B: the sale was processed, its answer is held back; a manager decides meanwhile
        (the list may not show it yet). Whichever ends first, the other is told, never raises."""
        lane = self.lanes["B"]
        amount = 99 if declined else amount
        held, paid_before, sent_before = self.held(lane, terminal, order), self.order_paid(lane, order), \
            self.charges_sent("B")

        async def scenario() -> tuple[OperationResult, OperationResult | None]:
            task, sent = await self.start_and_wait_sent(
                lane, "terminal.pay", lambda: lane.service.sale(terminal, amount, order_number=order))
            if not sent:
                return task.result(), None
            [attempt] = [a for a in lane.journal.in_flight() if a.terminal_id == terminal and a.outcome is None]
            decision = await lane.service.resolve(attempt.id, paid=paid, reason="the customer left", by="mgr",
                                                  force=force)
            return await task, decision

        self.knobs(latency_ms=LATENCY_MS, list_lag_s=600 if lagging_list else 0)
        try:
            result, decision = self.run(scenario())
        finally:
            self.knobs(**KNOBS_AT_REST)
        event(f"type B late answer paid={paid} force={force}: "
              f"{'not sent' if decision is None else decision.refusal} -> {result.outcome}")
        self.check_typed(lane, result)
        self.check_new_charge(lane, self.charges_sent("B") - sent_before, held, paid_before, result)
        if decision is None:
            assert result.outcome is Outcome.FAILED and result.refusal is not None, result
            return
        attempt = lane.journal.get(result.attempt_id)
        assert attempt.is_final, attempt
        if attempt.resolved_by is None:  # the service's answer (or its record) came first
            assert attempt.outcome is (Outcome.DECLINED if declined else Outcome.APPROVED), attempt
        elif attempt.outcome is not (Outcome.DECLINED if declined else Outcome.APPROVED):
            assert attempt.conflict is not None, attempt  # the late answer contradicts the decision
        self.keep_approvals(lane, [result])

    # ------------------------------------------------------------------ the sandbox's truth

    def truth(self) -> dict[str, Any]:
        """The sandbox's record, read once per step: payments (with order number, refunds and
        follow-ups) and request counters, per merchant."""
        if self._truth is not None:
            return self._truth
        stats = self.server.stats()
        payments = []
        for summary in stats["payments"]:
            answer = self.http.get(f"/public/payment/{summary['id']}",
                                   headers={"key-hash": self.server.keys[summary["merchant"]]})
            assert answer.status_code == 200, answer.text
            payments.append({**answer.json()["data"], **summary})
        sandbox = self.server.sandbox
        with sandbox.lock:  # type S messages still on their way: charges the sandbox will make
            sandbox.materialize()
            will_charge = {code: {attempt_in(m.sale.user_agent) for m in book.messages.values()
                                  if m.payment_id is None and m.outcome in CHARGING}
                           for code, book in sandbox.books.items()}
        self._truth = {
            "requests": {m: Counter(stats["requests"].get(m, {})) for m in self.lanes},
            "will_charge": will_charge,
            "payments": payments,
            "by_ref": {(p["merchant"], p["transactionId"]): p for p in payments},
        }
        return self._truth

    def attempt_of(self, payment: dict) -> str | None:
        return attempt_in(payment["userAgent"]) or self.attributed.get(payment["id"])

    @invariant()
    def every_request_is_one_journaled_attempt_sent_once(self):
        truth = self.truth()
        for merchant, lane in self.lanes.items():
            sent = Counter(ROUTE[a.operation] for a in lane.journal.attempts() if a.sent)
            for route in ROUTE.values():
                assert truth["requests"][merchant][route] == sent[route], (
                    f"{merchant} {route}: the sandbox received {truth['requests'][merchant][route]} requests, "
                    f"the journal sent {sent[route]} attempts")

    @invariant()
    def no_order_and_no_attempt_is_charged_twice(self):
        truth = self.truth()
        for merchant, lane in self.lanes.items():
            attempts = {a.id: a for a in lane.journal.attempts()}
            mine = [p for p in truth["payments"] if p["merchant"] == merchant]
            per_attempt = Counter()
            paid_per_order: dict[str, list[str]] = defaultdict(list)
            for payment in mine:
                attempt_id = self.attempt_of(payment)
                assert attempt_id in attempts, f"payment {payment['id']} names no journaled attempt ({attempt_id})"
                attempt = attempts[attempt_id]
                assert attempt.operation in ORDER_OPS and payment["terminalId"] == attempt.terminal_id
                assert payment["orderNumber"] == attempt.order_key and payment["amount"] <= attempt.amount
                per_attempt[attempt_id] += 1
                if payment["paid"] and payment["status"] != "voided" and attempt.order_key is not None:
                    paid_per_order[attempt.order_key].append(attempt_id)
            for attempt_id in truth["will_charge"][merchant]:
                assert attempt_id in attempts, f"a pending type S charge names no journaled attempt ({attempt_id})"
                per_attempt[attempt_id] += 1
                if attempts[attempt_id].order_key is not None:
                    paid_per_order[attempts[attempt_id].order_key].append(attempt_id)
            assert max(per_attempt.values(), default=0) <= 1, f"an attempt charged twice: {per_attempt}"
            for order, charged in paid_per_order.items():
                if len(charged) > 1:
                    forced = [a for a in attempts.values() if a.order_key == order and a.attention
                              and a.resolved_by is not None]
                    assert forced, f"order {order} ({merchant}) paid {len(charged)} times: {charged}"

    @invariant()
    def never_more_refunded_than_captured(self):
        for payment in self.truth()["payments"]:
            refunds = sum(step["amount"] for step in payment["transactions"] if step["type"] == "refund")
            assert payment["refundedAmount"] == refunds <= payment["amount"], payment
            if refunds:
                assert payment["settled"] and payment["status"] in ("refunded", "partially_refunded"), payment

    @invariant()
    def the_journal_agrees_with_the_sandbox(self):
        truth = self.truth()
        for merchant, lane in self.lanes.items():
            mine = [p for p in truth["payments"] if p["merchant"] == merchant]
            charged = {self.attempt_of(p): p for p in mine}
            followed: dict[str, list[tuple[str, dict]]] = defaultdict(list)
            for payment in mine:
                for step in payment["transactions"]:
                    followed[attempt_in(step["userAgent"]) or "?"].append((step["type"], payment))
            assert "?" not in followed, "a follow-up without our attempt id"
            for attempt in lane.journal.attempts():
                if not attempt.is_final:
                    continue
                excused = attempt.conflict is not None or bool(attempt.attention)
                if attempt.operation in ORDER_OPS:  # charged, or a type S message will charge it
                    payment = charged.get(attempt.id)
                    went_through = ((payment is not None and payment["paid"])
                                    or attempt.id in truth["will_charge"][merchant])
                elif attempt.operation in FOLLOW_UPS:
                    steps = followed.get(attempt.id, [])
                    assert all(kind == attempt.operation.value for kind, _ in steps), (attempt, steps)
                    assert len(steps) <= 1, f"follow-up {attempt.id} went through {len(steps)} times"
                    went_through = bool(steps)
                else:
                    continue
                if attempt.outcome is Outcome.APPROVED:
                    if attempt.resolved_by is None:  # approved on evidence: the sandbox shows it
                        assert went_through, f"journal approved {attempt.operation} {attempt.id}, sandbox: nothing"
                elif went_through:
                    assert excused and attempt.resolved_by is not None, (
                        f"journal {attempt.outcome} for {attempt.operation} {attempt.id} (resolved by "
                        f"{attempt.resolved_by}, no conflict, no attention), but the sandbox shows it went through; "
                        f"its events: {[(e.kind, e.data) for e in lane.journal.get(attempt.id).events]}")

    @invariant()
    def every_attempt_is_final_or_resumable(self):
        for lane in self.lanes.values():
            everything = lane.journal.attempts()
            open_ids = {a.id for a in lane.journal.in_flight()}
            assert open_ids == {a.id for a in everything if not a.is_final}
            assert {a.id for a in lane.journal.resumable()} == open_ids  # every earlier owner is dead
            for attempt in everything:
                if attempt.outcome is not None and not attempt.sent:
                    assert attempt.outcome is Outcome.FAILED, f"never sent, yet {attempt.outcome}: {attempt}"


def follow_up_allowed(operation: Operation, amount: int, payment: dict) -> bool:
    """Whether the sandbox accepts this capture, void or refund of the payment as it is now."""
    status = payment["status"]
    if operation is Operation.CAPTURE:
        return status == "auth" and amount <= payment["amount"]
    if operation is Operation.VOID:
        return status not in ("voided", "declined") and not payment["settled"]
    return (status in ("captured", "partially_refunded") and payment["settled"]
            and amount <= payment["amount"] - payment["refundedAmount"])


SHRINK = os.environ.get("POS_MACHINE_SHRINK") == "1"
"""Shrinking a failure replays real HTTP steps for minutes: off unless asked for; a failure
then shows its whole (up to 20-step) run, and ``POS_MACHINE_SHRINK=1`` finds the shortest."""

ServiceMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=20, deadline=None,
    phases=tuple(stage for stage in Stage if SHRINK or stage is not Stage.shrink),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestServiceMachine = ServiceMachine.TestCase
