"""An order's balance in the journal: its latest recorded total (a return records what is
left), less its card charges (not voided since; less what refunds gave back of them) and
its cash.
Read inside the write transaction of the order guard (``Journal.begin_attempt``) and of a
cash line (``Journal.record_cash_sale``), so that a card and cash never both pay the same
cents, whichever process writes."""

from __future__ import annotations

import sqlite3

from pos_app.journal import cash, queries
from pos_app.journal.cash import CashKind
from pos_app.journal.models import fold_many


def order_charged(conn: sqlite3.Connection, order_key: str) -> dict[str, int]:
    """Cents each sale or pre-auth of the order charged and still keeps (attempt id → cents),
    a late approval included: the charges voided since are left out, an approved refund takes
    what it gave back off its charge (a charge refunded in full keeps 0)."""
    return {attempt_id: kept for attempt_id, (_, kept) in _charges(conn, order_key).items()}


def order_kept_for_giving_back(conn: sqlite3.Connection, order_key: str) -> int:
    """Cents the order still keeps as far as giving money back goes: its cash kept, and each
    card charge less what its follow-ups gave back or MAY have given back (an approved or
    unanswered void takes the whole charge, approved and unanswered refunds their amounts).
    The opposite of the charging side's caution: money that may have gone back is not given
    back again (a refund to cash, a refund of a card the order gave back in cash)."""
    kept = int(conn.execute(cash.ORDER_CASH_NET_SQL, (order_key,)).fetchone()[0])
    for refs, charged in _charges(conn, order_key).values():
        if any(conn.execute(queries.OPEN_VOID_OF_SQL, (ref,)).fetchone() for ref in refs):
            continue
        unanswered = sum(int(conn.execute(queries.OPEN_REFUNDS_OF_SQL, (ref,)).fetchone()[0]) for ref in refs)
        kept += max(charged - unanswered, 0)
    return kept


def order_of_charge(conn: sqlite3.Connection, ref: str) -> str | None:
    """The order the charge named ``ref`` (its transaction id or payment id) was made for, if any."""
    found = conn.execute(queries.ORDER_OF_CHARGE_SQL, (ref, ref)).fetchone()
    return found[0] if found else None


def _charges(conn: sqlite3.Connection, order_key: str) -> dict[str, tuple[list[str], int]]:
    """Each charge of the order that counts (attempt id → the names its follow-ups use for
    it, cents it keeps after approved refunds); see ``order_charged``."""
    rows = conn.execute(queries.ORDER_ROWS_SQL, (order_key,)).fetchall()
    events = conn.execute(queries.ORDER_EVENTS_SQL, (order_key,)).fetchall()
    found: dict[str, tuple[list[str], int]] = {}
    attempts = {attempt.id: attempt for attempt in fold_many(rows, events, keep_events=False)}
    for attempt in attempts.values():
        charged = attempt.charged
        if charged is None:
            continue
        refs = _refs(attempt.result)
        if _voided(conn, refs):
            continue
        found[attempt.id] = (refs, _less_refunds(conn, refs, charged))
    # a late approval after a decision (a conflict) charged the customer whatever the journal
    # decided: it counts, for the amount asked, unless that charge was voided since
    for attempt_id, ref in conn.execute(queries.ORDER_PAID_SQL, (order_key,)).fetchall():
        late = attempts.get(attempt_id)
        if attempt_id in found or late is None or late.amount is None:
            continue
        refs = list(dict.fromkeys([*([ref] if ref else []), *_refs(late.result)]))
        if _voided(conn, refs):
            continue
        found[attempt_id] = (refs, _less_refunds(conn, refs, late.amount))
    return found


def _refs(result: dict[str, object]) -> list[str]:
    """The names a charge's follow-ups use for it: its gateway transaction id (a terminal's
    pnRefNum) and its payment id (the service's payment routes)."""
    return [str(ref) for ref in (result.get("transaction_id"), result.get("payment_id")) if ref]


def _voided(conn: sqlite3.Connection, refs: list[str]) -> bool:
    return any(conn.execute(queries.VOID_OF_SQL, (ref,)).fetchone() for ref in refs)


def _less_refunds(conn: sqlite3.Connection, refs: list[str], charged: int) -> int:
    """What a charge keeps once its approved refunds are taken off (an unknown refund gave
    nothing back as far as the order knows: the order is never charged twice for it)."""
    refunded = sum(int(conn.execute(queries.REFUNDED_OF_SQL, (ref,)).fetchone()[0]) for ref in refs)
    return max(charged - refunded, 0)


def order_due(conn: sqlite3.Connection, order_key: str) -> tuple[int, str | None] | None:
    """Cents still due on the order (its latest recorded total, less its card charges and
    its cash) and the last attempt or cash movement that paid toward it; None when no total
    was recorded for it (an order charged by the command line: any charge pays it)."""
    total = conn.execute(cash.LATEST_TOTAL_SQL, (order_key,)).fetchone()
    if total is None:
        return None
    charged = order_charged(conn, order_key)
    paid_cash = cash.entries(conn, cash.ORDER_CASH_SQL, (order_key,))
    net_cash = sum(e.amount if e.kind is CashKind.SALE else -e.amount for e in paid_cash)
    last = next(reversed(charged), None) or next((e.id for e in reversed(paid_cash)), None)
    return int(total[0]) - sum(charged.values()) - net_cash, last
