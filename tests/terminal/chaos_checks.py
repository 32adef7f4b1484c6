"""The chaos run's report and its end (``chaos``): what is still unknown settled from the
sandbox's truth (the terminal's printout), then the journals checked against the sandbox.

Per attempt: one payment at most; approved (in full or in part) in the journal exactly
when paid at the service, and for the amount it charged; no manager "paid" without a
charge; nothing left unresolved; no payment without its journal attempt. Per order: what
its card charges kept (at the service, and as the journal counts them) and its cash kept
equal its total exactly when it was paid, never more (no order overpaid), nothing kept by
an order the customer walked away from, and no cash taken while a card part of it was
in flight or unknown (read from the journal's history, not from its guard).
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pos_app.api.identity import attempt_in
from pos_app.journal import Attempt, CashKind, Journal, Operation, Outcome
from pos_app.terminal.outcomes import Refusal

if TYPE_CHECKING:
    from tests.terminal.chaos import ChaosOrder, Side


@dataclass
class ChaosReport:
    sales: int = 0
    """Orders rung up and driven to an end (paid, or given up)."""
    ends: Counter = field(default_factory=Counter)
    lanes: Counter = field(default_factory=Counter)
    """Orders rung at each terminal."""
    plans: Counter = field(default_factory=Counter)
    card_attempts: int = 0
    rerings: int = 0
    begun_while_held: int = 0
    """Orders of the next customer rung up (and a first tender taken) while the lane held an order."""
    cash_lines: int = 0
    split_paid: int = 0
    """Orders paid in full by card and cash together."""
    faults: Counter = field(default_factory=Counter)
    card_outcomes: Counter = field(default_factory=Counter)
    """What each card part ended in when it ended (crashed and killed included)."""
    refusals: Counter = field(default_factory=Counter)
    """Card re-rings refused before anything was sent, and cash refused while a card part was unknown."""
    manager_decisions: Counter = field(default_factory=Counter)
    manager_paid_without_charge: int = 0
    final_outcomes: Counter = field(default_factory=Counter)
    conflicts: int = 0
    """Decisions the service contradicted later (a late answer): the journal keeps both."""
    resolved_by_resume: int = 0
    resolved_by_manager: int = 0
    recovered_after_kill: int = 0
    payments_in_sandbox: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "sales": self.sales, "ends": dict(self.ends), "lanes": dict(self.lanes), "plans": dict(self.plans),
            "card_attempts": self.card_attempts, "rerings": self.rerings,
            "begun_while_held": self.begun_while_held, "cash_lines": self.cash_lines, "split_paid": self.split_paid,
            "faults": dict(self.faults), "card_outcomes": dict(self.card_outcomes), "refusals": dict(self.refusals),
            "manager_decisions": dict(self.manager_decisions),
            "manager_paid_without_charge": self.manager_paid_without_charge,
            "final_outcomes": dict(self.final_outcomes), "conflicts": self.conflicts,
            "unknown_resolved_by_resume": self.resolved_by_resume,
            "unknown_resolved_by_manager": self.resolved_by_manager,
            "recovered_after_kill": self.recovered_after_kill,
            "payments_in_sandbox": self.payments_in_sandbox, "problems": self.problems,
        }


def printed_reference(payments: list[dict[str, Any]], merchant: str, attempt_id: str) -> str | None:
    """What the terminal printed for an attempt: its charge's payment id (None: nothing charged)."""
    charged = [p for p in payments if p["merchant"] == merchant and p["paid"]
               and attempt_in(p.get("userAgent")) == attempt_id]
    return charged[0]["id"] if charged else None


async def settle(sides: dict[str, Side], sandbox, report: ChaosReport) -> None:
    """Resume until nothing more can be found, then a manager decides the rest from the truth."""
    for _ in range(20):
        if not any(side.journal.in_flight() for side in sides.values()):
            break
        for side in sides.values():
            await side.service.resume(wait_limit=1.0)
        await asyncio.sleep(0.3)
    payments = sandbox.stats()["payments"]
    for side in sides.values():
        for attempt in side.journal.in_flight():
            slip = printed_reference(payments, side.code, attempt.id)
            result = await side.service.resolve(attempt.id, paid=slip is not None, reference=slip,
                                                reason="checked the terminal printout", by="chaos-manager",
                                                force=slip is None)
            if result.refusal not in (None, Refusal.SERVICE_SHOWS_OTHERWISE):
                report.problems.append(f"{attempt.id}: the printout's decision was refused: {result.message}")


def count_resolutions(sides: dict[str, Side], report: ChaosReport) -> None:
    """How the attempts that were unknown at some point ended: by the service's answer
    found later (resume, F9) or by a manager."""
    for side in sides.values():
        for attempt in side.journal.attempts():
            outcomes = [e.data.get("outcome") for e in side.journal.get(attempt.id).events if e.kind == "outcome"]
            if "unknown" in outcomes[:-1] or (outcomes and outcomes[0] == "unknown"):
                if attempt.resolved_by:
                    report.resolved_by_manager += 1
                else:
                    report.resolved_by_resume += 1


def check_run(sides: dict[str, Side], orders: list[ChaosOrder], sandbox, report: ChaosReport) -> None:
    payments = sandbox.stats()["payments"]
    report.payments_in_sandbox = len(payments)
    charges: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    for payment in payments:
        charges[payment["merchant"], attempt_in(payment.get("userAgent"))].append(payment)
    for side in sides.values():
        if side.journal.in_flight():
            report.problems.append(f"{side.code}: attempts still unresolved")
        attempts = side.journal.attempts()
        for attempt in attempts:
            report.final_outcomes[str(attempt.outcome)] += 1
            report.conflicts += attempt.conflict is not None
            _check_attempt(attempt, charges[side.code, attempt.id], report)
        known = {a.id for a in attempts}
        for payment in payments:
            if payment["merchant"] == side.code and attempt_in(payment.get("userAgent")) not in known:
                report.problems.append(f"payment {payment['id']} has no journal attempt")
    for order in orders:
        side = sides[order.merchant]
        _check_order(order, side.journal, charges, report)


def _check_attempt(attempt: Attempt, charged: list[dict[str, Any]], report: ChaosReport) -> None:
    assert attempt.operation is Operation.SALE
    paid = [p for p in charged if p["paid"]]
    if len(charged) > 1:
        report.problems.append(f"{attempt.id}: {len(charged)} payments for one attempt")
    approved = attempt.outcome is not None and attempt.outcome.moved_money
    if approved and not paid and attempt.resolved_by:
        report.manager_paid_without_charge += 1  # must never happen: "paid" needs the service's evidence
        report.problems.append(f"{attempt.id}: marked paid by {attempt.resolved_by}, nothing charged")
    elif approved != bool(paid) and not (paid and attempt.conflict):
        report.problems.append(f"{attempt.id}: journal says {attempt.outcome}, sandbox paid={bool(paid)}")
    elif approved and attempt.charged != sum(p["amount"] for p in paid):
        report.problems.append(f"{attempt.id}: journal charged {attempt.charged}, sandbox "
                               f"{[p['amount'] for p in paid]}")


def _check_order(order: ChaosOrder, journal: Journal, charges: dict[tuple[str, str | None], list[dict[str, Any]]],
                 report: ChaosReport) -> None:
    attempts = journal.order_attempts(order.key)
    card = sum(p["amount"] for a in attempts for p in charges[order.merchant, a.id] if p["paid"])
    counted = sum(journal.order_charges(order.key).values())
    lines = journal.order_cash(order.key)
    cash = sum(e.amount if e.kind is CashKind.SALE else -e.amount for e in lines)
    kept = card + cash
    if counted != card:
        report.problems.append(f"{order.key}: the journal counts {counted} cents of card charges, the service "
                               f"charged {card}")
    if kept > order.total:
        report.problems.append(f"{order.key}: overpaid: {card} by card and {cash} in cash for {order.total}")
    elif order.end == "paid" and kept != order.total:
        report.problems.append(f"{order.key}: ended paid with {kept} of {order.total} cents kept")
    elif order.end == "paid" and card and cash:
        report.split_paid += 1
    elif order.end == "given_up" and kept:
        report.problems.append(f"{order.key}: the customer walked away but {kept} cents were kept")
    open_spans = [(a.id, a.created_at, _known_at(journal, a)) for a in attempts]
    for line in lines:
        if line.kind is not CashKind.SALE:
            continue
        for attempt_id, begun, known in open_spans:
            if begun <= line.at and (known is None or line.at < known):
                report.problems.append(f"{order.key}: cash {line.id} taken while card attempt {attempt_id} "
                                       "had no known result")


def _known_at(journal: Journal, attempt: Attempt) -> datetime | None:
    """When the attempt got its final outcome (None: never)."""
    return next((e.at for e in journal.get(attempt.id).events
                 if e.kind == "outcome" and e.data.get("outcome") != Outcome.UNKNOWN), None)
