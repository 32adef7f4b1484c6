"""The chaos run: many orders rung at the lanes of both sandbox merchants, paid by card, in
cash or both, with random faults and crashes; then the journal is checked against the
sandbox (``chaos_checks``).

Used by ``test_chaos.py`` (small) and ``make bench`` (``tests/bench/bench_chaos.py``, large).
Each active terminal of both merchants is a lane whose cashier rings orders one after
another the way the counter's till does: the order's totals are journaled, then it is paid
by its tender plan: the card for the whole, a card part and the rest in cash, cash first
and the rest by card, two card parts and cash, or cash alone (``Journal.record_cash_sale``,
the counter's ``pay_cash``). Each card part draws a fault: declines, gateway failures,
answers lost after the charge, 5xx, connection resets, timeout states, poll 429s, partial
approvals (one with its answer lost), and two kinds of crash: the sale's task cancelled
mid-flight, and the sale run as a ``pos-app terminal sale`` child process on the same
journal file, SIGKILLed mid-request (the sandbox answers slowly meanwhile), mid-poll, once
its attempt is begun, or after a random delay. Each merchant deals every fault kind it
can meet once (every other card part) before the draws turn random, so that a small run
meets them all.

A card part that ends unknown (or crashed, or killed) holds the order: the cashier's cash
is refused; the next customer's order may be rung up meanwhile (its cash is taken, its
card is not sent on the held terminal); an impatient re-ring of the balance must not be
sent while the part cannot be settled; then the cashier checks it again (F9), the app
restarted after a kill recovers it, a hurried manager decides it at random (paid or not
paid, checked against the service, which refuses what it disproves or what is too early
to tell; a "paid" only with the service's evidence) and at last a manager reads the
terminal's printout. A part declined, failed or found not paid is rung again; after
``MAX_RERINGS`` the customer pays the rest in cash, or walks away when nothing was kept.
Meanwhile a back office resumes every lane's unknowns, as an app does on start, and a
hurried manager decides some of them.

A sale is an order driven to an end (paid, or given up); what was refused on the way (cash
while a card part was unknown, re-rings, a manager's decision) is counted apart.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass
from enum import StrEnum

from pos_app.api.client import Identity, PaymentsClient
from pos_app.api.identity import attempt_in
from pos_app.journal import Attempt, CashKind, Journal, JournalError, OrderHasUnknownAttempt
from pos_app.terminal import TerminalService
from pos_app.terminal.evidence import age
from pos_app.terminal.outcomes import OperationResult, Refusal
from tests.terminal.chaos_checks import ChaosReport, check_run, count_resolutions, printed_reference, settle


@dataclass(frozen=True)
class Fault:
    amount: int | None
    """The card part's sandbox test amount (None: a normal amount)."""
    knobs: dict[str, int]
    """Sandbox knobs set for the part (reset once it ends)."""
    merchants: str
    weight: int
    """How often it is drawn once every kind was dealt (a clean part weighs most)."""


FAULTS = {
    "clean": Fault(None, {}, "SB", 80),
    "decline": Fault(99, {}, "SB", 3),
    "decline_2xx": Fault(9904, {}, "SB", 2),
    "decline_501": Fault(9905, {}, "B", 2),
    "gateway_failure": Fault(9901, {}, "SB", 2),
    "answer_dropped": Fault(9906, {}, "SB", 4),
    "server_5xx": Fault(9908, {}, "SB", 2),
    "connection_reset": Fault(None, {"reset_next": 1}, "SB", 3),
    "dropped_by_knob": Fault(None, {"drop_next": 1}, "SB", 3),
    "partial_approval": Fault(None, {}, "SB", 2),
    "partial_answer_dropped": Fault(None, {"drop_next": 1}, "SB", 2),
    "timeout_then_complete": Fault(9902, {}, "S", 2),
    "timeout_forever": Fault(9903, {}, "S", 2),
    "poll_429": Fault(9907, {}, "S", 2),
    "crash": Fault(None, {}, "SB", 3),
    "kill": Fault(None, {}, "SB", 2),
}
KILL_PHASES = {"S": ("mid_request", "mid_poll", "begun", "timer"), "B": ("mid_request", "begun", "timer")}
KILL_LATENCY_MS = 400
"""While a sale is to be killed mid-request the sandbox answers this late (every request)."""
PLANS = {"card": 40, "card_and_cash": 30, "cash_and_card": 10, "two_cards_and_cash": 12, "cash": 8}
"""Tender plans and their weights."""
MAX_RERINGS = 2
"""Re-rings of an order's card parts that paid nothing before the customer pays the rest in cash (or walks away)."""
HOLD_CHECKS = 2
""""Check again" (F9) tries on a held order before a manager is called."""
MAX_HOLD_TRIES = 100
BACK_OFFICE_EVERY = 1.0


class Tender(StrEnum):
    CARD = "card"
    CASH = "cash"


class End(StrEnum):
    PAID = "paid"
    GIVEN_UP = "given_up"


@dataclass(frozen=True)
class Step:
    tender: Tender
    amount: int | None = None
    """Cents of this part; None: what is still due."""


@dataclass
class ChaosOrder:
    key: str
    merchant: str
    total: int
    plan: str
    steps: deque[Step]
    """The tenders still to take (a part rung again goes back in front)."""
    failed: int = 0
    """Card attempts of the order that paid nothing."""
    unsure: tuple[Step, int] | None = None
    """A card part begun before the order's turn whose result is not known yet, and what was due before it."""
    end: End | None = None


@dataclass
class Side:
    """One merchant as the run uses it: the app's client, journal and terminal service,
    the environment of its ``pos-app terminal`` children, its lanes and the fault kinds
    not dealt yet."""

    code: str
    client: PaymentsClient
    journal: Journal
    service: TerminalService
    env: dict[str, str]
    terminals: list[str]
    deck: list[str]
    kill_phases: list[str]
    """The phases of its next kills: mid-request first, then drawn at random."""
    turn: int = 0
    """Card parts dealt a fault so far."""


async def run_chaos(sandbox, journal_dir, *, sales: int, seed: int = 7, wait_limit: float = 2.0) -> ChaosReport:
    """Ring ``sales`` orders over every lane (see the module), settle what is left, check.
    ``wait_limit``: how long a type S sale polls its message (a type B sale's service,
    whose requests are processed before they are answered, tells "too early" for a quarter of it)."""
    report = ChaosReport()
    sandbox.set_faults(timeout_hold_s=1.0, poll_429_count=2)
    inactive = {t["id"] for t in sandbox.stats()["terminals"] if not t["isActive"]}  # type B lists omit it
    sides: dict[str, Side] = {}
    try:
        for merchant in "SB":
            client = PaymentsClient(sandbox.base_url, sandbox.keys[merchant],
                                    identity=Identity("chaos", merchant, "bot"))
            data_dir = journal_dir / f"chaos-{merchant}"
            journal = Journal.open(data_dir / "journal.sqlite3")  # where `pos-app terminal` keeps it too
            env = {"PATH": "/usr/bin:/bin", "POS_BASE_URL": sandbox.base_url, "POS_GATEWAY": "auto",
                   "POS_KEY_HASH": sandbox.keys[merchant], "POS_DATA_DIR": str(data_dir)}
            service = TerminalService(client, journal, wait_limit=wait_limit if merchant == "S" else wait_limit / 4,
                                      brief_wait=0.5)
            terminals = [t.id for t in (await client.list_terminals()).data if t.id not in inactive]
            deck = [name for name, fault in FAULTS.items() if merchant in fault.merchants and name != "clean"]
            random.Random(f"{seed}:{merchant}:deck").shuffle(deck)
            sides[merchant] = Side(merchant, client, journal, service, env, terminals, deck, ["mid_request"])
        run = ChaosRun(sandbox, sides, report, sales=sales, seed=seed)
        await run.run()
        await settle(sides, sandbox, report)
        count_resolutions(sides, report)
        check_run(sides, run.orders, sandbox, report)
    finally:
        for side in sides.values():
            await side.client.aclose()
            side.journal.close()
    return report


class ChaosRun:
    """The lanes' cashiers, the back office and the managers of one run."""

    def __init__(self, sandbox, sides: dict[str, Side], report: ChaosReport, *, sales: int, seed: int) -> None:
        self.sandbox = sandbox
        self.sides = sides
        self.report = report
        self.sales = sales
        self.seed = seed
        self.orders: list[ChaosOrder] = []
        self._next: dict[str, ChaosOrder] = {}  # terminal → the next customer's order, begun while one was held
        self._slowed = 0  # sales to be killed mid-request right now (the sandbox answers late while any is)

    async def run(self) -> None:
        done = asyncio.Event()
        office = asyncio.ensure_future(self._back_office(done, random.Random(f"{self.seed}:office")))
        try:
            await asyncio.gather(*(self._cashier(side, terminal, random.Random(f"{self.seed}:{terminal}"))
                                   for side in self.sides.values() for terminal in side.terminals))
        finally:
            done.set()
            await office

    # ------------------------------------------------------------ a lane

    async def _cashier(self, side: Side, terminal: str, rng: random.Random) -> None:
        """One lane: orders rung one after another until the run has rung enough (the next
        customer's may have begun while the one before was held)."""
        while (order := self._next.pop(terminal, None)) or len(self.orders) < self.sales:
            order = order or self._ring_up(side, rng)
            order.end = await self._ring(order, side, terminal, rng)
            self.report.sales += 1
            self.report.ends[order.end.value] += 1
            self.report.lanes[terminal] += 1

    def _ring_up(self, side: Side, rng: random.Random) -> ChaosOrder:
        """A new order: its total and tender plan drawn, its totals journaled (as the till
        does before it takes a payment)."""
        total = rng.randrange(500, 50_000)
        plan = rng.choices(list(PLANS), weights=list(PLANS.values()))[0]
        order = ChaosOrder(f"chaos-{self.seed}-{len(self.orders) + 1}", side.code, total, plan, deque())
        order.steps.extend(_plan(order, rng))
        self.orders.append(order)
        self.report.plans[plan] += 1
        subtotal = total * 10_000 // 10_825
        side.journal.record_order(order.key, subtotal=subtotal, tax=total - subtotal,
                                  taxes={"Sales tax": total - subtotal})
        return order

    async def _ring(self, order: ChaosOrder, side: Side, terminal: str, rng: random.Random) -> End:
        """Drive one order to its end: its plan's tenders, its re-rings."""
        if not await self._settle_hold(order, side, terminal, rng):  # begun while the order before was held
            return End.GIVEN_UP  # a problem, reported: the order cannot go on
        steps = order.steps
        if order.unsure is not None:
            self._ring_again_if_unpaid(order, *order.unsure)
        while (due := _due(side.journal, order.key)) > 0:
            step = steps.popleft() if steps else Step(Tender.CARD)
            if step.tender is Tender.CARD and order.failed > MAX_RERINGS:
                if _kept(side.journal, order.key) == 0 and rng.random() < 0.5:
                    return End.GIVEN_UP  # the customer walks away
                step = Step(Tender.CASH)  # the customer pays the rest in cash
            if step.tender is Tender.CASH:
                if not self._cash(order, side, due, step.amount, rng):
                    return End.GIVEN_UP  # a problem, reported: the order cannot go on
                continue
            if order.failed:
                self.report.rerings += 1
            await self._card(order, side, terminal, min(step.amount or due, due), due, rng)
            if not await self._settle_hold(order, side, terminal, rng):
                return End.GIVEN_UP  # a problem, reported: the order cannot go on
            self._ring_again_if_unpaid(order, step, due)
        return End.PAID

    def _ring_again_if_unpaid(self, order: ChaosOrder, step: Step, due: int) -> None:
        """A card part that paid nothing is rung again (the balance, if it was a test amount)."""
        if _due(self.sides[order.merchant].journal, order.key) == due:
            order.failed += 1
            order.steps.appendleft(Step(Tender.CARD, step.amount if _normal_amount(step.amount) else None))

    def _cash(self, order: ChaosOrder, side: Side, due: int, part: int | None, rng: random.Random) -> bool:
        """Cash handed over: ``part`` cents (a first part), or what is due with some change
        (False: refused, a problem: nothing holds the order now)."""
        tendered = part if part is not None else due + rng.choice([0, 0, -due % 500, -due % 2000, 1000])
        try:
            side.journal.record_cash_sale(order.key, tendered, station_id=f"lane-{order.merchant}", cashier="chaos")
        except JournalError as error:
            self.report.problems.append(f"{order.key}: cash refused with {due} cents due: {error}")
            return False
        self.report.cash_lines += 1
        return True

    async def _card(self, order: ChaosOrder, side: Side, terminal: str, amount: int, due: int,
                    rng: random.Random) -> None:
        """One card part with a fault dealt for it (a test amount only where the rest stays due)."""
        if not _normal_amount(amount):  # a few cents, or a sandbox test amount: the cashier takes it in cash
            self._cash(order, side, due, amount, rng)
            return
        name = self._deal(side, rng, room=due - 100, amount=amount)
        fault = FAULTS[name]
        amount = fault.amount or amount
        self.report.faults[name] += 1
        self.report.card_attempts += 1
        if name == "kill":
            outcome = await self._killed_sale(order, side, terminal, amount, rng)
        else:
            if fault.knobs:
                self.sandbox.set_faults(**fault.knobs)
            try:
                sale = asyncio.ensure_future(self._outcome_of(side.service.sale(terminal, amount,
                                                                                order_number=order.key)))
                if name.startswith("partial"):
                    await self._capped(side, order, sale, cap=amount // 2)
                outcome = await (_crash_soon(sale, rng) if name == "crash" else sale)
            finally:
                if fault.knobs:
                    self.sandbox.set_faults(**{knob: 0 for knob in fault.knobs})
        self.report.card_outcomes[outcome] += 1

    async def _capped(self, side: Side, order: ChaosOrder, sale: asyncio.Future[str], *, cap: int) -> None:
        """The sandbox approves at most ``cap`` cents until it took the sale's request (the
        knob holds for every sale: the other lanes' are spared as far as can be)."""
        self.sandbox.set_faults(approve_at_most=cap)
        try:
            while not sale.done() and not any(a.sent and (a.msg_identifier or a.outcome)
                                              for a in _held_by(side.journal, order.key)):
                await asyncio.sleep(0.005)
        finally:
            self.sandbox.set_faults(approve_at_most=0)

    def _deal(self, side: Side, rng: random.Random, *, room: int, amount: int) -> str:
        """The fault of the next card part: every other part, the merchant's next kind not
        dealt yet that fits (a test amount below ``room``); else a weighted draw of those that fit."""
        def fits(name: str) -> bool:
            test = FAULTS[name].amount
            return (test is None or test <= room) and (not name.startswith("partial") or amount >= 300)

        side.turn += 1
        for index, name in enumerate(side.deck if side.turn % 2 else []):
            if fits(name):
                return side.deck.pop(index)
        names = [name for name, fault in FAULTS.items() if side.code in fault.merchants and fits(name)]
        return rng.choices(names, weights=[FAULTS[name].weight for name in names])[0]

    async def _outcome_of(self, sale: Awaitable[OperationResult]) -> str:
        result: OperationResult = await sale
        if result.refusal is not None and result.attempt_id is None:
            self.report.refusals[str(result.refusal)] += 1
            return "refused"
        return str(result.outcome)

    async def _killed_sale(self, order: ChaosOrder, side: Side, terminal: str, amount: int,
                           rng: random.Random) -> str:
        """The sale in a child process, SIGKILLed at a phase drawn at random (unless it ended
        first); then the app starts again and recovers what the child left."""
        phase = side.kill_phases.pop() if side.kill_phases else rng.choice(KILL_PHASES[side.code])
        delay = rng.uniform(0.2, 1.5)
        slowed = False
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "pos_app", "terminal", "sale", "--terminal", terminal, "--amount",
                str(amount), "--order-number", order.key, env=side.env, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            loop = asyncio.get_running_loop()
            started = loop.time()
            while process.returncode is None and loop.time() - started < 5.0:
                mine = _held_by(side.journal, order.key)
                if phase == "mid_request" and mine and not slowed:  # about to be sent: its answer comes late
                    slowed = True
                    self._slow()
                if (phase == "begun" and mine) or (phase == "mid_request" and any(a.sent for a in mine)) \
                        or (phase == "mid_poll" and any(a.msg_identifier for a in mine)) \
                        or (phase == "timer" and loop.time() - started >= delay):
                    break
                try:
                    await asyncio.wait_for(process.wait(), timeout=0.02)
                except TimeoutError:
                    pass
            if process.returncode is None:
                process.kill()
                await process.wait()
                outcome = "killed"
            else:
                answer = json.loads(await process.stdout.read())
                outcome = answer["outcome"] if "refusal" not in answer or "attempt_id" in answer else "refused"
                if outcome == "refused":
                    self.report.refusals[answer["refusal"]] += 1
        finally:
            if slowed:
                self._slow(done=True)
        if outcome == "killed":
            self.report.recovered_after_kill += len(await side.service.recover())  # the app starts again
        return outcome

    def _slow(self, *, done: bool = False) -> None:
        """The sandbox answers late while any sale is to be killed mid-request."""
        before = self._slowed
        self._slowed += -1 if done else 1
        if (before == 0) != (self._slowed == 0):
            self.sandbox.set_faults(latency_ms=KILL_LATENCY_MS if self._slowed else 0)

    # ------------------------------------------------------------ a held order

    async def _settle_hold(self, order: ChaosOrder, side: Side, terminal: str, rng: random.Random) -> bool:
        """A card part of the order has no known result: cash is refused, an impatient
        re-ring is not sent unless the part proves unpaid, then F9, a hurried manager, and
        a manager reading the printout, until every part is known (False: still held)."""
        held = _held_by(side.journal, order.key)
        if not held:
            return True
        due = _due(side.journal, order.key)
        try:
            side.journal.record_cash_sale(order.key, due, station_id=f"lane-{order.merchant}", cashier="chaos")
        except OrderHasUnknownAttempt:
            self.report.refusals["cash_while_card_unknown"] += 1
        else:
            self.report.problems.append(f"{order.key}: cash taken while card attempts {[a.id for a in held]} "
                                        "had no known result")
        if rng.random() < 0.25 and terminal not in self._next and len(self.orders) < self.sales:
            await self._next_customer(side, terminal, rng)
        elif rng.random() < 0.4 and _normal_amount(due):  # an impatient cashier rings the balance again at once
            self.report.rerings += 1
            self.report.card_attempts += 1
            self.report.card_outcomes[await self._outcome_of(side.service.sale(terminal, due,
                                                                                order_number=order.key))] += 1
        for tries in range(MAX_HOLD_TRIES):
            held = _held_by(side.journal, order.key)
            if not held:
                return True
            for attempt in held:
                if tries < HOLD_CHECKS:
                    await side.service.check(attempt.id, wait_limit=0.5)
                elif tries == HOLD_CHECKS and rng.random() < 0.5:
                    await self._hurried_decision(side, attempt, rng)
                else:
                    await self._printout_decision(side, attempt)
            await asyncio.sleep(0.1)
        self.report.problems.append(f"{order.key}: still held after {MAX_HOLD_TRIES} tries")
        return False

    async def _next_customer(self, side: Side, terminal: str, rng: random.Random) -> None:
        """While an order is held, the next customer's is rung up and its first tender
        taken: cash is taken (only the held order is held); the card is not sent on the
        terminal while it holds an unknown it cannot settle (or that turns out approved)."""
        order = self._ring_up(side, rng)
        self._next[terminal] = order
        self.report.begun_while_held += 1
        step = order.steps.popleft()
        due = _due(side.journal, order.key)
        if step.tender is Tender.CASH:
            self._cash(order, side, due, step.amount, rng)
            return
        amount = min(step.amount or due, due)
        if not _normal_amount(amount):
            order.steps.appendleft(step)
            return
        self.report.card_attempts += 1
        outcome = await self._outcome_of(side.service.sale(terminal, amount, order_number=order.key))
        self.report.card_outcomes[outcome] += 1
        if outcome == "refused":
            order.steps.appendleft(step)  # not the card's fault: taken again when the order's turn comes
        else:
            order.unsure = (step, due)  # judged when the order's turn comes, once nothing holds it

    async def _hurried_decision(self, side: Side, attempt: Attempt, rng: random.Random) -> None:
        """Half the time the manager reads the terminal's printout: "paid" with the
        reference it printed, else "not paid"; the other half they decide at random (now
        and then with another sale's slip picked up by mistake), and the service refuses a
        "paid" it cannot see and a "not paid" it disproves or cannot tell yet."""
        payments = self.sandbox.stats()["payments"]
        slip = printed_reference(payments, side.code, attempt.id) if rng.random() < 0.5 else None
        paid = slip is not None or rng.random() < 0.5
        if paid and slip is None and rng.random() < 0.3:  # the slip of another sale, picked up by mistake
            others = [p["id"] for p in payments if p["merchant"] == side.code
                      and attempt_in(p.get("userAgent")) != attempt.id]
            slip = rng.choice(others) if others else None
        result = await side.service.resolve(attempt.id, paid=paid, reason="hurried manager", by="chaos-manager",
                                            reference=slip)
        self.report.manager_decisions[str(result.refusal or ("paid" if paid else "not_paid"))] += 1

    async def _printout_decision(self, side: Side, attempt: Attempt) -> None:
        """A careful manager, once the request cannot be processed any more: the terminal's
        printout says paid (with its reference) or not (a same-amount sale on the terminal
        does not stop them: the printout is this attempt's)."""
        if age(attempt) < side.service.wait_limit + 0.3:  # F9 tells a charge meanwhile
            return
        slip = printed_reference(self.sandbox.stats()["payments"], side.code, attempt.id)
        result = await side.service.resolve(attempt.id, paid=slip is not None, reference=slip,
                                            reason="checked the terminal printout", by="chaos-manager")
        if result.refusal is Refusal.POSSIBLE_MATCH:
            result = await side.service.resolve(attempt.id, paid=False, reason="checked the terminal printout",
                                                by="chaos-manager", force=True)
        self.report.manager_decisions[str(result.refusal or ("paid" if slip else "not_paid"))] += 1

    # ------------------------------------------------------------ the back office

    async def _back_office(self, done: asyncio.Event, rng: random.Random) -> None:
        """Every ``BACK_OFFICE_EVERY`` s: every lane's unknowns resumed (as an app does on
        start), and a hurried manager deciding some of them."""
        while not done.is_set():
            try:
                await asyncio.wait_for(done.wait(), timeout=BACK_OFFICE_EVERY)
            except TimeoutError:
                pass
            for side in self.sides.values():
                await side.service.resume(wait_limit=0.3)
                for attempt in side.journal.in_flight():
                    if attempt.outcome is not None and rng.random() < 0.3:
                        await self._hurried_decision(side, attempt, rng)


def _plan(order: ChaosOrder, rng: random.Random) -> list[Step]:
    total = order.total

    def part(low: int, high: int) -> int:
        cents = rng.randrange(total * low // 100, total * high // 100)
        return cents + 100 if 9901 <= cents <= 9909 else cents  # not a sandbox test amount

    card, cash = Tender.CARD, Tender.CASH
    return {
        "card": lambda: [Step(card)],
        "card_and_cash": lambda: [Step(card, part(20, 80)), Step(cash)],
        "cash_and_card": lambda: [Step(cash, part(20, 60)), Step(card)],
        "two_cards_and_cash": lambda: [Step(card, part(20, 40)), Step(card, part(20, 40)), Step(cash)],
        "cash": lambda: [Step(cash)],
    }[order.plan]()


def _normal_amount(amount: int | None) -> bool:
    """A card amount that is no sandbox test amount (a decline below 100, 9901-9909)."""
    return amount is not None and amount >= 100 and not 9901 <= amount <= 9909


def _due(journal: Journal, order_key: str) -> int:
    """What the journal says is still due on the order (as the till reads it)."""
    [*_, latest] = journal.order_totals([order_key])[order_key]
    return latest.total - _kept(journal, order_key)


def _kept(journal: Journal, order_key: str) -> int:
    """Cents the order keeps: its card charges and its cash (less cash given back)."""
    cash = sum(e.amount if e.kind is CashKind.SALE else -e.amount for e in journal.order_cash(order_key))
    return sum(journal.order_charges(order_key).values()) + cash


def _held_by(journal: Journal, order_key: str) -> list[Attempt]:
    return [a for a in journal.in_flight() if a.order_key == order_key]


async def _crash_soon(task: asyncio.Future[str], rng: random.Random) -> str:
    """The sale's task cancelled after a random moment (unless it ended first)."""
    await asyncio.sleep(rng.uniform(0.0, 0.6))
    if task.done():
        return task.result()
    task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        return "crashed"
