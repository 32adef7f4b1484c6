"""The card-on-file chaos run: many charges of customers' cards on file with lost answers,
5xx before and after the charge, connection resets, declines, cancelled charges and charges
run as ``pos-app customer charge`` child processes SIGKILLed mid-charge.

Used by ``test_card_on_file_chaos.py`` (a few dozen charges) and ``bench_card_on_file.py``
(more). Each round charges every customer of both merchants once, at the same time, each
with a fault drawn; an order whose charge did not end approved or declined is charged again
(same order number) in a later round. After each round the services resume (as an app does
on start); at the end they resume until nothing more can be found, a manager settles what is
left from the sandbox's truth, and the journal is checked against the sandbox: at most one
payment per attempt and per order (0 double charges), approved in the journal exactly when
paid at the service and for that amount, nothing left unresolved (0 lost outcomes).
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from pos_app.api.charge_models import CardCharge, ChargeOrder
from pos_app.api.client import Identity, PaymentsClient
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.api.identity import attempt_in
from pos_app.journal import Journal, Operation, Outcome
from pos_app.terminal.charges import ChargeService
from pos_app.terminal.outcomes import Refusal

FAULTS = {
    # name: (amount or None for a random normal amount, knobs set before the charge)
    "clean": (None, {}),
    "decline_2xx": (99, {}),
    "decline_501": (9905, {}),
    "answer_dropped": (9906, {}),
    "server_5xx_before": (9908, {}),
    "server_5xx_after": (9909, {}),
    "dropped_by_knob": (None, {"drop_next": 1}),
    "5xx_after_by_knob": (None, {"error_5xx_after_next": 1}),
    "connection_reset": (None, {"reset_next": 1}),
    "crash": (None, {}),
    "kill": (None, {}),
}
DONE = {"approved", "declined", str(Refusal.ORDER_PAID), str(Refusal.EARLIER_ATTEMPT_APPROVED)}
"""First outcomes after which the order is not charged again."""
EXP = f"12{date.today().year + 1 - 2000:02d}"


@dataclass
class Report:
    charges: int = 0
    recharges: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    first_outcomes: Counter[str] = field(default_factory=Counter)
    final_outcomes: Counter[str] = field(default_factory=Counter)
    double_charges: int = 0
    lost_outcomes: int = 0
    decided_by_manager: int = 0
    payments_in_sandbox: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        return {"charges": self.charges, "recharges": self.recharges, "faults": dict(self.faults),
                "first_outcomes": dict(self.first_outcomes), "final_outcomes": dict(self.final_outcomes),
                "double_charges": self.double_charges, "lost_outcomes": self.lost_outcomes,
                "decided_by_manager": self.decided_by_manager, "payments_in_sandbox": self.payments_in_sandbox,
                "problems": self.problems}


@dataclass
class Lane:
    """One merchant: its client, journal, service, customers and the env of its CLI."""

    client: PaymentsClient
    journal: Journal
    service: ChargeService
    customers: list[str]
    env: dict[str, str]


async def run_card_on_file_chaos(sandbox, folder, *, charges: int, customers: int = 4, seed: int = 7,
                                 wait_limit: float = 2.0) -> Report:
    rng = random.Random(seed)
    report = Report()
    lanes: dict[str, Lane] = {}
    for merchant in "SB":
        client = PaymentsClient(sandbox.base_url, sandbox.keys[merchant], identity=Identity("chaos", merchant, "bot"))
        data_dir = folder / f"cof-{merchant}"
        journal = Journal.open(data_dir / "journal.sqlite3")  # where `pos-app customer charge` keeps it too
        made = []
        for number in range(customers):
            vault = await client.customers.create(CustomerDraft(
                firstName="Chaos", lastName=f"{merchant}{number}", email=f"c{number}@example.com",
                cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
            made.append(vault.id)
        env = {"PATH": "/usr/bin:/bin", "POS_BASE_URL": sandbox.base_url, "POS_GATEWAY": "auto",
               "POS_KEY_HASH": sandbox.keys[merchant], "POS_DATA_DIR": str(data_dir)}
        lanes[merchant] = Lane(client, journal, ChargeService(client, journal, wait_limit=wait_limit), made, env)
    unfinished: dict[tuple[str, str], tuple[str, int]] = {}  # (merchant, customer) → (order, amount)
    order = 0
    try:
        while report.charges < charges:
            tasks, rung = [], []
            for merchant, lane in lanes.items():
                for customer in lane.customers:
                    if report.charges >= charges:
                        break
                    report.charges += 1
                    fault = rng.choice(list(FAULTS))
                    amount, knobs = FAULTS[fault]
                    if (merchant, customer) in unfinished and rng.random() < 0.7:  # the same order again
                        order_number, amount = unfinished.pop((merchant, customer))
                        fault = "clean" if fault in ("crash", "kill") else fault
                        report.recharges += 1
                    else:
                        order += 1
                        order_number = f"cof-{seed}-{order}"
                        amount = amount or rng.randrange(100, 50_000)
                        if 9900 <= amount <= 9999 and FAULTS[fault][0] is None:
                            amount += 200  # a random amount must not hit a test amount
                    report.faults[fault] += 1
                    if knobs:
                        sandbox.set_faults(**knobs)
                    rung.append((merchant, customer, order_number, amount))
                    if fault == "kill":
                        sandbox.set_faults(latency_ms=400)  # the request is still open when the kill comes
                        tasks.append(_killed_charge(lane, customer, amount, order_number, rng))
                        continue
                    request = CardCharge(amount=amount, customerId=customer, order=ChargeOrder(orderId=order_number))
                    charge = lane.service.card_charge(request, order_key=order_number)
                    tasks.append(_crash_soon(charge, rng) if fault == "crash" else _outcome_of(charge))
            for (merchant, customer, order_number, amount), outcome in zip(rung, await asyncio.gather(*tasks),
                                                                           strict=True):
                report.first_outcomes[outcome] += 1
                if outcome not in DONE:
                    unfinished.setdefault((merchant, customer), (order_number, amount))
            sandbox.set_faults(reset_next=0, drop_next=0, error_5xx_after_next=0, latency_ms=0)
            for lane in lanes.values():
                await lane.service.resume(wait_limit=0.5)
        await _settle(lanes, sandbox, report)
        _check(lanes, sandbox, report)
    finally:
        for lane in lanes.values():
            await lane.service.aclose()
            await lane.client.aclose()
            lane.journal.close()
    return report


async def _outcome_of(charge) -> str:
    result = await charge
    return str(result.refusal) if result.refusal is not None else str(result.outcome)


async def _crash_soon(charge, rng: random.Random) -> str:
    task = asyncio.ensure_future(charge)
    await asyncio.sleep(rng.uniform(0.0, 0.3))
    if task.done():
        return await _outcome_of(task)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "crashed"
    return await _outcome_of(task)


async def _killed_charge(lane: Lane, customer: str, amount: int, order_number: str, rng: random.Random) -> str:
    """The charge in a ``pos-app customer charge`` child process, SIGKILLed once its attempt
    is journaled, or after a random delay (unless it ended first)."""
    when_begun = rng.random() < 0.6
    delay = rng.uniform(0.1, 1.0)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pos_app", "customer", "charge", customer, "--amount", str(amount),
        "--order-number", order_number, env=lane.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    loop = asyncio.get_running_loop()
    started = loop.time()
    while process.returncode is None and loop.time() - started < 5.0:
        begun = any(a.order_key == order_number for a in lane.journal.in_flight())
        if (when_begun and begun) or (not when_begun and loop.time() - started >= delay):
            break
        try:
            await asyncio.wait_for(process.wait(), timeout=0.02)
        except TimeoutError:
            pass
    if process.returncode is None:
        process.kill()
        await process.wait()
        return "killed"
    payload = json.loads(await process.stdout.read())
    return payload.get("refusal") or payload["outcome"]


async def _settle(lanes: dict[str, Lane], sandbox, report: Report) -> None:
    """Resume until nothing more can be found; a manager decides the rest from the truth."""
    for _ in range(20):
        if not any(lane.journal.in_flight() for lane in lanes.values()):
            break
        for lane in lanes.values():
            await lane.service.resume(wait_limit=1.0)
        await asyncio.sleep(0.2)
    payments = sandbox.stats()["payments"]
    for merchant, lane in lanes.items():
        for attempt in lane.journal.in_flight():
            charged = [p["id"] for p in payments if p["merchant"] == merchant and p["paid"]
                       and attempt_in(p.get("userAgent")) == attempt.id]
            result = await lane.service.resolve(attempt.id, paid=bool(charged), reference=charged[0] if charged
                                                else None, reason="checked the service", by="chaos-manager",
                                                force=not charged)
            report.decided_by_manager += 1
            if result.refusal not in (None, Refusal.SERVICE_SHOWS_OTHERWISE):
                report.problems.append(f"{attempt.id}: the manager's decision was refused: {result.message}")


def _check(lanes: dict[str, Lane], sandbox, report: Report) -> None:
    payments = sandbox.stats()["payments"]
    report.payments_in_sandbox = len(payments)
    for merchant, lane in lanes.items():
        attempts = lane.journal.attempts()
        report.lost_outcomes += len(lane.journal.in_flight())
        mine = [p for p in payments if p["merchant"] == merchant]
        paid_orders: Counter[str | None] = Counter()
        for attempt in attempts:
            report.final_outcomes[str(attempt.outcome)] += 1
            if attempt.operation is not Operation.CARD_CHARGE:
                report.problems.append(f"{attempt.id}: a {attempt.operation}, not a card charge")
            charged = [p for p in mine if attempt_in(p.get("userAgent")) == attempt.id]
            paid = [p for p in charged if p["paid"]]
            paid_orders[attempt.order_key] += len(paid)
            if len(charged) > 1:
                report.double_charges += 1
                report.problems.append(f"{attempt.id}: {len(charged)} payments for one attempt")
            approved = attempt.outcome is Outcome.APPROVED
            if approved != bool(paid):
                report.problems.append(f"{attempt.id}: journal says {attempt.outcome}, sandbox paid={bool(paid)}")
            elif approved and attempt.charged != sum(p["amount"] for p in paid):
                report.problems.append(f"{attempt.id}: journal charged {attempt.charged}, sandbox "
                                       f"{[p['amount'] for p in paid]}")
        known = {a.id for a in attempts}
        for payment in mine:
            if attempt_in(payment.get("userAgent")) not in known:
                report.problems.append(f"payment {payment['id']} has no journal attempt")
        twice = [order for order, count in paid_orders.items() if count > 1]
        report.double_charges += len(twice)
        if twice:
            report.problems.append(f"orders charged twice: {twice}")
    if report.lost_outcomes:
        report.problems.append(f"{report.lost_outcomes} attempts left without a final outcome")
