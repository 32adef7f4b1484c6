"""The chaos run: many sales against the sandbox with random faults and simulated crashes.

Used by ``test_chaos.py`` (small) and ``make bench`` (larger). Each round starts one sale
per active terminal of both merchants at once, with a fault drawn for each: declines,
gateway failures, answers dropped after the charge, 5xx, connection resets, timeout
states, poll 429s, and two kinds of crash: the sale's task cancelled mid-flight, and a
sale run as a ``pos-app terminal sale`` child process on the same journal file that is
SIGKILLed right after it began its attempt (mid-request: the sandbox answers slowly in
that round), once its message id is journaled (mid-poll), or after a random delay.

Re-rings: after a sale ends unknown, failed, crashed or killed (or is refused because its
lane still holds an unknown), the cashier rings the same order again in a later round,
on the same lane or another one. After each round the lanes resume, as an app does on
start, and a hurried manager decides some unknown attempts at random (paid or not paid,
checked against the service, which refuses what it disproves or what is too early to tell).
A manager's "paid" follows the rule: only with the service's evidence
(the attempt's own charge, or the reference the terminal printed); without it the
service refuses it. At the end a manager settles what is still unknown from the
sandbox's truth (the terminal's own printout, in a store), and the journal is checked
against the sandbox: one payment at most per attempt and per order, approved in the
journal exactly when paid at the service and for the amount paid, no "paid" without a
charge, and nothing left unresolved.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field

from pos_app.api.client import Identity, PaymentsClient
from pos_app.api.identity import attempt_in
from pos_app.journal import Journal, Operation, Outcome
from pos_app.terminal import TerminalService
from pos_app.terminal.outcomes import Refusal

FAULTS = {
    # name: (amount or None for a random normal amount, knob to set before the sale, merchants)
    "clean": (None, {}, "SB"),
    "decline": (99, {}, "SB"),
    "decline_2xx": (9904, {}, "SB"),
    "decline_501": (9905, {}, "B"),
    "gateway_failure": (9901, {}, "SB"),
    "answer_dropped": (9906, {}, "SB"),
    "server_5xx": (9908, {}, "SB"),
    "connection_reset": (None, {"reset_next": 1}, "SB"),
    "dropped_by_knob": (None, {"drop_next": 1}, "SB"),
    "timeout_then_complete": (9902, {}, "S"),
    "timeout_forever": (9903, {}, "S"),
    "poll_429": (9907, {}, "S"),
    "crash": (None, {}, "SB"),
    "kill": (None, {}, "SB"),
}
CRASHES = ("crash", "kill")
REFUSALS_KEPT = (Refusal.ORDER_PAID, Refusal.EARLIER_ATTEMPT_APPROVED, Refusal.ORDER_UNRESOLVED,
                 Refusal.TERMINAL_HAS_UNKNOWN)
"""Refusals counted under their own name: they decide whether the order is rung again."""


@dataclass
class ChaosReport:
    sales: int = 0
    rerings: int = 0
    manager_decisions: Counter = field(default_factory=Counter)
    manager_paid_without_charge: int = 0
    faults: Counter = field(default_factory=Counter)
    first_outcomes: Counter = field(default_factory=Counter)
    final_outcomes: Counter = field(default_factory=Counter)
    resolved_by_resume: int = 0
    resolved_by_manager: int = 0
    payments_in_sandbox: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "sales": self.sales, "rerings": self.rerings, "manager_decisions": dict(self.manager_decisions),
            "manager_paid_without_charge": self.manager_paid_without_charge,
            "faults": dict(self.faults), "first_outcomes": dict(self.first_outcomes),
            "final_outcomes": dict(self.final_outcomes), "unknown_resolved_by_resume": self.resolved_by_resume,
            "unknown_resolved_by_manager": self.resolved_by_manager,
            "payments_in_sandbox": self.payments_in_sandbox, "problems": self.problems,
        }


async def run_chaos(sandbox, journal_dir, *, sales: int, seed: int = 7, wait_limit: float = 2.0) -> ChaosReport:
    rng = random.Random(seed)
    report = ChaosReport()
    sandbox.set_faults(timeout_hold_s=1.0, poll_429_count=2)
    lanes, cli_envs = {}, {}
    for merchant in "SB":
        client = PaymentsClient(sandbox.base_url, sandbox.keys[merchant], identity=Identity("chaos", merchant, "bot"))
        data_dir = journal_dir / f"chaos-{merchant}"
        journal = Journal.open(data_dir / "journal.sqlite3")  # where `pos-app terminal` keeps it too
        cli_envs[merchant] = {"PATH": "/usr/bin:/bin", "POS_BASE_URL": sandbox.base_url, "POS_GATEWAY": "auto",
                              "POS_KEY_HASH": sandbox.keys[merchant], "POS_DATA_DIR": str(data_dir)}
        inactive = {t["id"] for t in sandbox.stats()["terminals"] if not t["isActive"]}  # type B lists omit it
        terminals = [t.id for t in (await client.list_terminals()).data if t.id not in inactive]
        lanes[merchant] = (client, journal, TerminalService(client, journal, wait_limit=wait_limit), terminals)
    pending: dict[str, list[tuple[str, int]]] = {merchant: [] for merchant in lanes}  # orders to ring again
    try:
        order = 0
        while report.sales < sales:
            round_tasks, rung = [], []
            for merchant, (_, _, service, terminals) in lanes.items():
                for terminal in terminals:
                    if report.sales >= sales:
                        break
                    report.sales += 1
                    fault = rng.choice([f for f, (_, _, who) in FAULTS.items() if merchant in who])
                    amount, knobs, _ = FAULTS[fault]
                    if pending[merchant] and rng.random() < 0.6:  # the same order, rung again
                        order_number, amount = pending[merchant].pop(rng.randrange(len(pending[merchant])))
                        fault = "clean" if fault in CRASHES else fault
                        report.rerings += 1
                    else:
                        order += 1
                        order_number = f"chaos-{seed}-{order}"
                        amount = amount or rng.randrange(100, 50_000)
                        if 9901 <= amount <= 9908 and FAULTS[fault][0] is None:
                            amount += 100  # a random amount must not hit a test amount
                    report.faults[fault] += 1
                    if knobs and fault not in CRASHES:
                        sandbox.set_faults(**knobs)
                    rung.append((merchant, order_number, amount))
                    if fault == "kill":
                        sandbox.set_faults(latency_ms=400)  # the request is still open when the kill comes
                        journal = lanes[merchant][1]
                        round_tasks.append(_killed_process_sale(
                            cli_envs[merchant], journal, terminal, amount, order_number, rng))
                        continue
                    sale = service.sale(terminal, amount, order_number=order_number)
                    round_tasks.append(_crash_soon(sale, rng) if fault == "crash" else _outcome_of(sale))
            for (merchant, order_number, amount), outcome in zip(rung, await asyncio.gather(*round_tasks), strict=True):
                report.first_outcomes[outcome] += 1
                if outcome not in ("approved", "declined", "order_paid", "earlier_attempt_approved"):
                    pending[merchant].append((order_number, amount))
            sandbox.set_faults(reset_next=0, drop_next=0, latency_ms=0)
            for _, _, service, _ in lanes.values():
                await service.resume(wait_limit=0.5)
            await _hurried_manager(lanes, sandbox, rng, report)
        await _settle(lanes, sandbox, report)
        _check(lanes, sandbox, report)
    finally:
        for client, journal, _, _ in lanes.values():
            await client.aclose()
            journal.close()
    return report


async def _hurried_manager(lanes, sandbox, rng: random.Random, report: ChaosReport) -> None:
    """Some unknown attempts decided. Half the time the manager reads the terminal's
    printout: "paid" with the reference it printed, else "not paid"; the other half they
    decide at random (now and then with another sale's slip picked up by mistake), and the
    service refuses a "paid" it cannot see and a "not paid" it disproves or cannot tell yet."""
    payments = sandbox.stats()["payments"]
    for merchant, (_, journal, service, _) in lanes.items():
        for attempt in journal.in_flight():
            if attempt.outcome is None or rng.random() > 0.5:
                continue
            slip = _printed_reference(payments, merchant, attempt.id) if rng.random() < 0.5 else None
            paid = slip is not None or rng.random() < 0.5
            if paid and slip is None and rng.random() < 0.3:  # the slip of another sale, picked up by mistake
                others = [p["id"] for p in payments if p["merchant"] == merchant
                          and attempt_in(p.get("userAgent")) != attempt.id]
                slip = rng.choice(others) if others else None
            result = await service.resolve(attempt.id, paid=paid, reason="hurried manager", by="chaos-manager",
                                           reference=slip)
            report.manager_decisions[str(result.refusal or ("paid" if paid else "not_paid"))] += 1


def _printed_reference(payments: list[dict], merchant: str, attempt_id: str) -> str | None:
    """What the terminal printed for an attempt: its charge's payment id (None: nothing charged)."""
    charged = [p for p in payments if p["merchant"] == merchant and p["paid"]
               and attempt_in(p.get("userAgent")) == attempt_id]
    return charged[0]["id"] if charged else None


async def _outcome_of(sale) -> str:
    result = await sale
    return str(result.refusal) if result.refusal in REFUSALS_KEPT else str(result.outcome)


async def _killed_process_sale(
    env: dict, journal: Journal, terminal: str, amount: int, order_number: str, rng: random.Random
) -> str:
    """The sale in a child process, SIGKILLed at a phase drawn at random (unless it ended first)."""
    phase = rng.choice(["begun", "message", "timer"])
    delay = rng.uniform(0.2, 1.5)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pos_app", "terminal", "sale", "--terminal", terminal, "--amount", str(amount),
        "--order-number", order_number, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    while process.returncode is None and loop.time() - started < 5.0:
        mine = [a for a in journal.in_flight() if a.order_key == order_number]
        if (phase == "begun" and mine) or (phase == "message" and any(a.msg_identifier for a in mine)) \
                or (phase == "timer" and loop.time() - started >= delay):
            break
        try:
            await asyncio.wait_for(process.wait(), timeout=0.02)
        except TimeoutError:
            pass
    if process.returncode is None:
        process.kill()
        await process.wait()
        return "killed"
    return json.loads(await process.stdout.read())["outcome"]


async def _crash_soon(sale, rng: random.Random) -> str:
    task = asyncio.ensure_future(sale)
    await asyncio.sleep(rng.uniform(0.0, 0.6))
    if task.done():
        return str(task.result().outcome)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "crashed"
    return str(task.result().outcome)


async def _settle(lanes, sandbox, report: ChaosReport) -> None:
    """Resume until nothing more can be found, then a manager decides the rest from the truth."""
    for _ in range(20):
        pending = sum(len(journal.in_flight()) for _, journal, _, _ in lanes.values())
        if not pending:
            break
        for _, _, service, _ in lanes.values():
            await service.resume(wait_limit=1.0)
        await asyncio.sleep(0.3)
    payments = sandbox.stats()["payments"]
    for merchant, (_, journal, service, _) in lanes.items():
        for attempt in journal.in_flight():
            slip = _printed_reference(payments, merchant, attempt.id)
            result = await service.resolve(attempt.id, paid=slip is not None, reference=slip,
                                           reason="checked the terminal printout", by="chaos-manager",
                                           force=slip is None)
            if result.refusal not in (None, Refusal.SERVICE_SHOWS_OTHERWISE):
                report.problems.append(f"{attempt.id}: the printout's decision was refused: {result.message}")
    for _, journal, _, _ in lanes.values():
        for attempt in journal.attempts():
            outcomes = [e.data.get("outcome") for e in journal.get(attempt.id).events if e.kind == "outcome"]
            if "unknown" in outcomes[:-1] or (outcomes and outcomes[0] == "unknown"):
                if attempt.resolved_by:
                    report.resolved_by_manager += 1
                else:
                    report.resolved_by_resume += 1


def _check(lanes, sandbox, report: ChaosReport) -> None:
    payments = sandbox.stats()["payments"]
    report.payments_in_sandbox = len(payments)
    for merchant, (_, journal, _, _) in lanes.items():
        attempts = journal.attempts()
        if journal.in_flight():
            report.problems.append(f"{merchant}: attempts still unresolved")
        mine = [p for p in payments if p["merchant"] == merchant]
        paid_orders: Counter = Counter()
        for attempt in attempts:
            report.final_outcomes[str(attempt.outcome)] += 1
            assert attempt.operation is Operation.SALE
            charged = [p for p in mine if attempt_in(p.get("userAgent")) == attempt.id]
            paid = [p for p in charged if p["paid"]]
            paid_orders[attempt.order_key] += len(paid)
            if len(charged) > 1:
                report.problems.append(f"{attempt.id}: {len(charged)} payments for one attempt")
            approved = attempt.outcome is Outcome.APPROVED
            if approved and not paid and attempt.resolved_by:
                report.manager_paid_without_charge += 1  # must never happen: "paid" needs the service's evidence
                report.problems.append(f"{attempt.id}: marked paid by {attempt.resolved_by}, nothing charged")
            elif approved != bool(paid) and not (paid and attempt.conflict):
                report.problems.append(f"{attempt.id}: journal says {attempt.outcome}, sandbox paid={bool(paid)}")
            elif approved and attempt.charged != sum(p["amount"] for p in paid):
                report.problems.append(f"{attempt.id}: journal charged {attempt.charged}, sandbox "
                                       f"{[p['amount'] for p in paid]}")
        known = {a.id for a in attempts}
        for payment in mine:
            if attempt_in(payment.get("userAgent")) not in known:
                report.problems.append(f"payment {payment['id']} has no journal attempt")
        twice = [order for order, count in paid_orders.items() if count > 1]
        if twice:
            report.problems.append(f"orders charged twice: {twice}")
