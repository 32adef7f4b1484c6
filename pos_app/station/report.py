"""The day report of ``pos-app terminal report``: the journal's summary of one day, its
money figures (``figures``: gross, voids, refunds, net, surcharge, tax collected, held,
per cashier and per card brand, worked out as the end-of-shift report does: card money,
cards on file included; ACH apart under ``ach``, payment links under ``link``), its
reconciliation with the service's transactions of that day (a link's payment paired with
its parking by payment id, under ``links``), and what needs a manager.

Needs action: attempts still in flight or unknown (with how to resolve them), conflicts
(a late answer that contradicts a decision: a charge a manager marked not paid), and
attempts flagged for attention (a possible match with a foreign user-agent, several
service entries for one attempt, a decision forced without the service's answer).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity
from pos_app.i18n import _
from pos_app.journal import Attempt, Reconciliation
from pos_app.journal.threaded import AsyncJournal
from pos_app.station.figures import MONEY_OPERATIONS, Category, Figures, Ledger, Tally
from pos_app.station.link_figures import LinkPairing, LinkPayments
from pos_app.terminal.lookup import CLOCK_SLACK, entry_time, read_window

HISTORY_DAYS = 14
"""How far before a day the figures look for the payment a follow-up acts on: a pre-auth is
captured or released within days, a sale is voided before it settles. A refund of an older
sale still counts in full (its card from the service's entry)."""
ENTRY_KEYS = ("paymentId", "transactionId", "type", "baseAmount", "amount", "createdAt", "userAgent")


async def day_report(client: PaymentsClient, journal: AsyncJournal, day: date, station: Identity) -> dict[str, Any]:
    """The report of ``day`` (local calendar day) as the CLI prints it.

    Raises ``PaymentsError`` when the transaction list cannot be read."""
    day_start = datetime.combine(day, datetime.min.time()).astimezone()
    window = await read_window(client, day_start - CLOCK_SLACK)
    links = LinkPayments.of(await journal.parked_orders(since=day_start - timedelta(days=HISTORY_DAYS)))
    of_the_day = [
        entry.model_dump(by_alias=True, exclude_none=True)
        for entry in window.entries
        if ours(entry.user_agent, station) and on_day(entry_time(entry), day)
    ]
    paid_by_link = links.pair(day_start, of_the_day, next_day(day_start))  # by payment id
    entries = [entry for entry in of_the_day if not links.is_payment_entry(entry)]
    summary = await journal.summary(day)
    reconciliation = await journal.reconcile(entries, day=day)
    of_day = await journal.attempts(day=day)
    decided = [attempt for attempt in of_day if attempt.is_final]
    return {
        "outcome": "approved",
        "day": day.isoformat(),
        "summary": [{"terminal": line.terminal_id, "operation": str(line.operation),
                     "outcome": str(line.outcome) if line.outcome else "in_flight",
                     "count": line.count, "total_cents": line.total} for line in summary.lines],
        "figures": figures_json(await day_figures(journal, day_start, of_day, reconciliation, entries,
                                                  links, paid_by_link)),
        "reconciliation": {
            "clean": reconciliation.clean and not (paid_by_link.unlisted or paid_by_link.mismatched),
            "complete": window.complete,
            "matched": len(reconciliation.matched),
            "problems": [{"attempt_id": m.attempt.id, "problem": m.problem} for m in reconciliation.problems],
            "service_only": [{k: e.get(k) for k in ENTRY_KEYS} for e in reconciliation.service_only],
            "journal_only": [{"attempt_id": a.id, "amount": a.amount, "terminal": a.terminal_id}
                             for a in reconciliation.journal_only],
            "links": {"matched": len(paid_by_link.own),
                      "unlisted": [{"parking_id": p.parking_id, "order_key": p.order_key, "amount": p.amount,
                                    "payment_id": p.payment_id} for p in paid_by_link.unlisted],
                      "problems": [{"parking_id": odd.parking.parking_id, "payment_id": odd.parking.payment_id,
                                    "problem": odd.problem} for odd in paid_by_link.mismatched]},
        },
        "needs_action": needs_action(await journal.in_flight(), decided),
    }


async def day_figures(journal: AsyncJournal, day_start: datetime, of_day: list[Attempt],
                      reconciliation: Reconciliation, entries: list[dict[str, Any]],
                      links: LinkPayments, paid_by_link: LinkPairing) -> Figures:
    """The figures of the day's money attempts, each with its own service entry (as reconciled),
    and of the orders paid by payment link that day (``paid_by_link``: their entries).

    What a line needs from other days (the pre-auth a capture takes, the sale a void gives
    back, the capture or void a payment of the day had later) is read from ``HISTORY_DAYS``
    before the day until now, not from the whole journal."""
    history = await journal.attempts(since=day_start - timedelta(days=HISTORY_DAYS))
    money = [attempt for attempt in of_day if attempt.operation in MONEY_OPERATIONS]
    orders = await journal.order_totals(Ledger.of(history).order_keys(money) | links.order_keys)
    own: dict[str, dict[str, Any]] = {}
    for match in reconciliation.matched:
        own.setdefault(match.attempt.id, match.entry)
    ledger = Ledger.of(history, orders, [*entries, *paid_by_link.own.values()])
    lines = [links.follow_up(ledger.line(attempt, own.get(attempt.id)), attempt, orders) for attempt in money]
    lines += links.lines(day_start, orders, paid_by_link.own, history, next_day(day_start))
    return Figures(tuple(sorted(lines, key=lambda line: line.at)))


def next_day(day_start: datetime) -> datetime:
    """Local midnight after ``day_start`` (a day of a clock change is 23 or 25 hours)."""
    return datetime.combine(day_start.date() + timedelta(days=1), time.min).astimezone()


def figures_json(figures: Figures) -> dict[str, Any]:
    """The figures for scripts: integer cents, one object per figure, per cashier and per
    brand. They are the card money (a terminal's and cards on file); ACH, neither card nor
    cash, is under ``ach`` alone (gross, voids, refunds, net), and the orders paid by payment
    link (card paid online, not the terminal's) under ``link``."""
    ach, link, figures = figures.ach, figures.link, figures.card

    def tally(found: Tally) -> dict[str, int]:
        return {"count": found.count, "cents": found.amount, "surcharge_cents": found.surcharge,
                "tax_cents": found.tax}

    def money(found: Figures) -> dict[str, dict[str, int]]:
        return {"gross": tally(found.gross), "voids": tally(found.voids), "refunds": tally(found.refunds),
                "net": tally(found.net)}

    cells = figures.by_category
    return {
        **money(figures),
        "captured": tally(figures.captured), "held": tally(figures.held),
        "released": tally(cells[Category.RELEASED]), "declined": tally(cells[Category.DECLINED]),
        "tax_cents": figures.tax, "tax_by_name_cents": figures.tax_by_name, "untaxed": figures.untaxed,
        "partial": figures.partial, "ach": money(ach), "link": money(link),
        "by_cashier": [{"cashier": name, **money(group)} for name, group in figures.by_cashier()],
        "by_brand": [{"brand": name, **money(group)} for name, group in figures.by_brand()],
    }


def needs_action(open_attempts: list[Attempt], decided: list[Attempt]) -> list[dict[str, Any]]:
    """One row per problem a manager must act on, each saying what to do: every open
    attempt (whatever its day), and the day's decided attempts with a conflict or a note."""
    rows: list[dict[str, Any]] = []
    for attempt in open_attempts:
        action = (_("the attempt is in flight: `pos-app terminal resume`, then if still unknown `pos-app terminal "
                    "resolve {attempt} --paid|--not-paid --reason …`") if attempt.outcome is None
                  else _("the attempt is unknown: `pos-app terminal resume`, then if still unknown `pos-app terminal "
                         "resolve {attempt} --paid|--not-paid --reason …`"))
        rows.append({"attempt_id": attempt.id, "problem": "unresolved", "terminal": attempt.terminal_id,
                     "operation": str(attempt.operation), "amount": attempt.amount,
                     "action": action.format(attempt=attempt.id)})
    for attempt in decided:
        if attempt.conflict is not None:
            rows.append({"attempt_id": attempt.id, "problem": "conflict", "terminal": attempt.terminal_id,
                         "operation": str(attempt.operation), "amount": attempt.amount,
                         "decided": str(attempt.outcome), "service_said": attempt.conflict.get("outcome"),
                         "payment_id": attempt.conflict.get("payment_id"),
                         "action": _("the service's answer contradicts the decision: the customer was charged; "
                                     "refund it if the order was paid another way")})
        for note in attempt.attention:
            rows.append({"attempt_id": attempt.id, "problem": "attention", "terminal": attempt.terminal_id,
                         "operation": str(attempt.operation), "amount": attempt.amount, "action": note})
    return rows


def ours(user_agent: str | None, station: Identity) -> bool:
    """Entries of this station, or not made by pos-app at all; other stations reconcile their own."""
    if not user_agent or not user_agent.startswith("pos-app/"):
        return True
    return station.made(user_agent)


def on_day(moment: datetime | None, day: date) -> bool:
    """An entry belongs to ``day`` (local calendar day); one without a readable time is kept."""
    return moment is None or moment.astimezone().date() == day
