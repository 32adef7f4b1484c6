"""What a manager asks the journal: the day's summary, and reconciliation with the service.

Both work on folded ``Attempt`` values (never on SQL rows), so they count an attempt in
exactly the state ``get`` shows. Reconciliation is read-only: it points at differences
(money the service took that the journal does not know, approvals the service does not
list, pairs that disagree) and leaves any decision to a person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, tzinfo
from typing import Any

from pos_app.api.identity import attempt_in
from pos_app.i18n import _
from pos_app.journal.codec import tz_name
from pos_app.journal.models import LISTED_OPERATIONS, ORDER_OPERATIONS, Attempt, Operation, Outcome

_ID_KEYS = ("transactionId", "paymentId")


@dataclass(frozen=True)
class SummaryLine:
    terminal_id: str
    operation: Operation
    outcome: Outcome | None
    """``None``: still in flight (no outcome recorded yet)."""
    count: int
    total: int
    """Sum of the attempts' requested amounts in cents (0 for void and close batch)."""


@dataclass(frozen=True)
class Summary:
    day: date
    tz: str
    lines: tuple[SummaryLine, ...]
    """One line per (terminal, operation, outcome) that occurred, sorted."""

    def totals(
        self,
        *,
        terminal_id: str | None = None,
        operation: Operation | None = None,
        outcomes: Iterable[Outcome | None] | None = None,
    ) -> tuple[int, int]:
        """``(count, cents)`` over the lines matching every filter given."""
        wanted = None if outcomes is None else set(outcomes)
        count = cents = 0
        for line in self.lines:
            if terminal_id is not None and line.terminal_id != terminal_id:
                continue
            if operation is not None and line.operation != operation:
                continue
            if wanted is not None and line.outcome not in wanted:
                continue
            count += line.count
            cents += line.total
        return count, cents

    def by_terminal(self) -> dict[str, dict[Operation, dict[Outcome | None, SummaryLine]]]:
        table: dict[str, dict[Operation, dict[Outcome | None, SummaryLine]]] = {}
        for line in self.lines:
            table.setdefault(line.terminal_id, {}).setdefault(line.operation, {})[line.outcome] = line
        return table


def build_summary(day: date, tz: tzinfo | None, attempts: Iterable[Attempt]) -> Summary:
    counts: dict[tuple[str, Operation, Outcome | None], list[int]] = {}
    for attempt in attempts:
        cell = counts.setdefault((attempt.terminal_id, attempt.operation, attempt.outcome), [0, 0])
        cell[0] += 1
        cell[1] += attempt.amount or 0
    order = list(Operation)
    outcome_order = [None, *Outcome]

    def key(item: tuple[tuple[str, Operation, Outcome | None], list[int]]) -> tuple[str, int, int]:
        (terminal, operation, outcome), _ = item
        return terminal, order.index(operation), outcome_order.index(outcome)

    lines = tuple(
        SummaryLine(terminal, operation, outcome, count, total)
        for (terminal, operation, outcome), (count, total) in sorted(counts.items(), key=key)
    )
    return Summary(day=day, tz=tz_name(tz), lines=lines)


@dataclass(frozen=True)
class Match:
    attempt: Attempt
    entry: dict[str, Any]
    matched_by: str
    """``attempt_id`` (found in the entry's userAgent), ``transactionId`` or ``paymentId``."""
    problem: str | None = None
    """Why this pair needs a person's look (outcomes or amounts disagree, a second entry)."""


@dataclass(frozen=True)
class Reconciliation:
    matched: tuple[Match, ...]
    service_only: tuple[dict[str, Any], ...]
    """Service entries that match no journal attempt."""
    journal_only: tuple[Attempt, ...]
    """Approved sales and pre-auths in the journal that the service list does not contain."""

    @property
    def problems(self) -> tuple[Match, ...]:
        return tuple(match for match in self.matched if match.problem)

    @property
    def clean(self) -> bool:
        return not (self.service_only or self.journal_only or self.problems)


def recorded_ids(attempt: Attempt) -> Iterator[tuple[str, str]]:
    """``(key, value)`` for every transactionId/paymentId in the attempt's result and events."""
    sources: list[object] = [attempt.result, *(event.data for event in attempt.events)]
    while sources:
        value = sources.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _ID_KEYS and isinstance(item, (str, int)) and not isinstance(item, bool) and item != "":
                    yield key, str(item)
                elif isinstance(item, (dict, list)):
                    sources.append(item)
        elif isinstance(value, list):
            sources.extend(value)


def reconcile(
    entries: Iterable[dict[str, Any]],
    candidates: Iterable[Attempt],
    lookup: Callable[[str], Attempt | None],
    *,
    expected: frozenset[Operation] = LISTED_OPERATIONS,
) -> Reconciliation:
    """Pair service entries with attempts: by the attempt id in userAgent, else by ids.

    ``candidates`` are the attempts in scope (a day, or the whole journal); ``lookup``
    finds an attempt named in a userAgent outside that scope. Approved attempts of the
    ``expected`` operations that no entry matched are ``journal_only``.
    """
    candidates = list(candidates)
    by_id = {attempt.id: attempt for attempt in candidates}
    by_ref: dict[tuple[str, str], Attempt] = {}
    for attempt in candidates:
        for ref in recorded_ids(attempt):
            known = by_ref.get(ref)
            # A capture/refund answer may repeat its sale's transactionId: the sale owns it.
            if known is None or (attempt.operation in ORDER_OPERATIONS and known.operation not in ORDER_OPERATIONS):
                by_ref[ref] = attempt
    matched: list[Match] = []
    service_only: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in entries:
        found, how = _find(entry, by_id, by_ref, lookup)
        if found is None:
            service_only.append(entry)
            continue
        problem = _problem(found, entry)
        if found.id in seen:
            second = _("a second service entry for attempt {attempt}: possible double charge").format(attempt=found.id)
            problem = f"{second}; {problem}" if problem else second
        seen.add(found.id)
        matched.append(Match(attempt=found, entry=entry, matched_by=how, problem=problem))
    journal_only = tuple(
        attempt
        for attempt in candidates
        if attempt.outcome is not None and attempt.outcome.moved_money and attempt.operation in expected
        and attempt.id not in seen
    )
    return Reconciliation(matched=tuple(matched), service_only=tuple(service_only), journal_only=journal_only)


def _find(
    entry: dict[str, Any],
    by_id: dict[str, Attempt],
    by_ref: dict[tuple[str, str], Attempt],
    lookup: Callable[[str], Attempt | None],
) -> tuple[Attempt | None, str]:
    user_agent = entry.get("userAgent")
    if isinstance(user_agent, str):
        named = attempt_in(user_agent)
        if named:
            attempt = by_id.get(named) or lookup(named)
            if attempt is not None:
                return attempt, "attempt_id"
    for key in _ID_KEYS:
        value = entry.get(key)
        if value not in (None, "") and not isinstance(value, bool):
            attempt = by_ref.get((key, str(value)))
            if attempt is not None:
                return attempt, key
    return None, ""


def _base_amount(entry: dict[str, Any]) -> int | None:
    base, amount, surcharge = entry.get("baseAmount"), entry.get("amount"), entry.get("surcharge")
    if isinstance(base, int) and not isinstance(base, bool):
        return base
    if isinstance(amount, int) and not isinstance(amount, bool):
        return amount - surcharge if isinstance(surcharge, int) and not isinstance(surcharge, bool) else amount
    return None


def _problem(attempt: Attempt, entry: dict[str, Any]) -> str | None:
    error = entry.get("error")
    went_through = not error
    outcome = attempt.outcome
    problems: list[str] = []
    if outcome is not None and outcome.moved_money and not went_through:
        problems.append(_("the journal says {outcome} but the service entry has error {error}").format(
            outcome=outcome.value, error=repr(error)))
    elif outcome in (Outcome.DECLINED, Outcome.FAILED) and went_through:
        problems.append(_("the journal says {outcome} but the service shows the transaction without error").format(
            outcome=outcome.value))
    elif outcome is None or outcome is Outcome.UNKNOWN:
        if outcome is None:
            text = (_("the attempt is in flight in the journal; the service shows it went through: resolve it")
                    if went_through else
                    _("the attempt is in flight in the journal; the service shows it failed ({error}): resolve it"))
        else:
            text = (_("the attempt is unknown in the journal; the service shows it went through: resolve it")
                    if went_through else
                    _("the attempt is unknown in the journal; the service shows it failed ({error}): resolve it"))
        problems.append(text.format(error=repr(error)))
    base = _base_amount(entry)
    # a partial approval's entry shows what the service approved: that is the journal's amount
    expected = attempt.charged if outcome is Outcome.PARTIALLY_APPROVED else attempt.amount
    compared = attempt.operation in ORDER_OPERATIONS and expected is not None and base is not None
    # a pre-auth captured for less shows its captured amount: not a difference
    partly_captured = attempt.operation is Operation.PREAUTH and base is not None and base < (expected or 0)
    if compared and base != expected and not partly_captured:
        problems.append(_("amounts differ: journal {journal} cents, service {service} cents").format(
            journal=expected, service=base))
    return "; ".join(problems) or None
