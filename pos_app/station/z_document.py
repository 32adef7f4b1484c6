"""A Z report laid out as a document of tables (``receipts.tables``), from its journal row
alone, so that a reprint shows exactly what was closed: the count first (expected,
counted, over or short, why, what stays in the drawer), then each cash figure adding up to
the expected cash, then the card batch's close and the card figures of its shift (cards on
file among them; ACH and payment links on a line each).

Everything the page needs is in the row: its columns (expected, counted, float, left, who,
reason) and its ``figures`` (``station.z_report.z_figures``: the cash figures, the card
figures, the close's result, the store's name, currency and locale as they were), never
today's settings: a store that changes its currency or name later reprints old Zs as
they were. Amounts are written by ``pos_app.money``; they stay integer cents until then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pos_app.journal import ZReport
from pos_app.money import money_format
from pos_app.receipts.tables import Column, Section, Table, TableDocument
from pos_app.station.cash_shift import CashCount, CashFigures, CashShift
from pos_app.station.shift import CloseState
from pos_app.station.shift_document import HEADLINES, LETTER_CURRENCIES

Money = Callable[[int], str]
REPRINT = "-reprint"
"""A reprint's file name is the Z's label and this (the first print is never overwritten)."""


def z_stem(z: ZReport, *, reprint: bool = False) -> str:
    """``Z-0001`` (a reprint: ``Z-0001-reprint``), the PDF's file name without ``.pdf``."""
    return z.label + (REPRINT if reprint else "")


def signed(money: Money, cents: int) -> str:
    """An over/short amount with its sign (``+$1.50``, ``-$0.25``, ``$0.00``)."""
    return f"+{money(cents)}" if cents > 0 else money(cents)


def z_document(z: ZReport, *, reprint: bool = False, now: datetime | None = None) -> TableDocument:
    """The Z's pages; ``reprint``: said on the page, and generated ``now``."""
    figures = z.figures
    store: Mapping[str, Any] = figures.get("store") or {}
    currency = str(store.get("currency") or "USD")
    money = money_format(currency, store.get("locale") or None)
    count = CashCount(z.expected, z.counted, z.left_in_drawer, z.reason)
    subtitle = [
        f"{store.get('name') or store.get('id') or '-'}  (store {store.get('id') or '-'}, station {z.station_id})",
        f"Closed {_time(z.closed_at)} by {z.by}; card terminal {z.terminal_id or '-'}",
    ]
    if reprint:
        subtitle.append(f"REPRINT of {z.label} from the journal: the figures as they were closed.")
    sections = [
        Section("Cash count", _count_lines(count, money), boxed=True),
        Section("Cash in the drawer", ("Expected cash = opening float + cash taken - change given + cash in "
                                       "- cash out - cash refunds.",), table=_cash(z, money)),
        Section("Card batch", *_card(figures, money)),
    ]
    return TableDocument(
        title=f"Z report {z.label}", subtitle=tuple(subtitle), generated_at=now if reprint and now else z.closed_at,
        sections=sections, training=bool(store.get("training")),
        page="Letter" if currency.upper() in LETTER_CURRENCIES else "A4",
    )


def x_document(shift: CashShift, card: Mapping[str, Any] | None, *, store: Mapping[str, Any], station_id: str,
               now: datetime) -> TableDocument:
    """The X report's pages: the shift so far (``CashShift``, and ``card``: the terminal's
    ``z_report.card_figures``), the same tables as a Z's, and nothing closed."""
    currency = str(store.get("currency") or "USD")
    money = money_format(currency, store.get("locale") or None)
    figures = shift.figures
    label = f"Z-{shift.z_next:04d}"
    subtitle = (
        f"{store.get('name') or store.get('id') or '-'}  (store {store.get('id') or '-'}, station {station_id})",
        f"The shift so far, at {_time(now)}: nothing was closed or counted.",
        f"{label} will close this shift.",
    )
    batch = {"card": card, "batch": {}} if card else {}
    headline = f"BATCH OPEN (terminal {card.get('terminal') or '-'}): nothing closed" if card else ""
    sections = [
        Section("Expected cash", (f"Expected cash in the drawer now: {money(figures.expected_cash)} "
                                  f"({_count(figures.cash_sales, 'cash sale')}, "
                                  f"{_count(figures.no_sales, 'no sale')}).",), boxed=True),
        Section("Cash in the drawer", ("Expected cash = opening float + cash taken - change given + cash in "
                                       "- cash out - cash refunds.",),
                table=_cash_table(figures, shift.last_z.label if shift.last_z else None, figures.expected_cash,
                                  money)),
        Section("Card batch", *_card(batch, money, headline=headline)) if card else
        Section("Card batch", ("No card terminal: no card figures.",)),
    ]
    return TableDocument(title=f"X report (before {label})", subtitle=subtitle, generated_at=now, sections=sections,
                         training=bool(store.get("training")),
                         page="Letter" if currency.upper() in LETTER_CURRENCIES else "A4")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _time(moment: datetime) -> str:
    local = moment.astimezone()
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".strip()


def _count_lines(count: CashCount, money: Money) -> tuple[str, ...]:
    lines = [f"Expected cash: {money(count.expected)}", f"Counted cash: {money(count.counted)}",
             f"Over/short: {signed(money, count.over_short)} ({count.state})"]
    if count.reason:
        lines.append(f"Reason: {count.reason}")
    lines.append(f"Left in the drawer (the next shift's float): {money(count.left_in_drawer)}")
    return tuple(lines)


def _cash(z: ZReport, money: Money) -> Table:
    cash = CashFigures.from_json(z.figures.get("cash") or {"opening_float": z.opening_float})
    return _cash_table(cash, z.figures.get("float_from"), z.expected, money)


def _cash_table(cash: CashFigures, since: str | None, expected: int, money: Money) -> Table:
    source = f"left by {since}" if since and since != "setting" else "the opening_float setting"
    rows = [
        [f"Opening float ({source})", "", money(cash.opening_float)],
        ["Cash taken (handed over)", str(cash.cash_sales), money(cash.cash_taken)],
        ["Change given", "", money(-cash.change_given)],
        ["Cash in", "", money(cash.cash_in)],
        ["Cash out", "", money(-cash.cash_out)],
        ["Cash refunds (given back for orders)", "", money(-cash.cash_refunds)],
        ["No sale (drawer opened, no money moved)", str(cash.no_sales), "-"],
    ]
    columns = (Column("", 48), Column("Count", 6, True), Column("Amount", 14, True))
    return Table(columns, rows, total=["Expected cash", "", money(expected)])


def _card(figures: Mapping[str, Any], money: Money, *, headline: str = "") -> tuple[tuple[str, ...], Table | None]:
    batch: Mapping[str, Any] = figures.get("batch") or {}
    if not headline:
        try:
            headline = HEADLINES[CloseState(batch.get("state", ""))]
        except ValueError:
            headline = "BATCH RESULT NOT RECORDED"
    said = [headline, str(batch.get("sentence") or "")]
    if batch.get("attempt_id"):
        said.append(f"Close attempt {batch['attempt_id']}.")
    if figures.get("shift_report"):
        said.append(f"End-of-shift report (every card payment): {figures['shift_report']}")
    card: Mapping[str, Any] | None = figures.get("card")
    if not card:
        return (*filter(None, said), "No card figures were recorded."), None
    if card.get("list_error"):
        said.append(f"Not reconciled with the service: {card['list_error']}.")
    brands = card.get("by_brand") or {}
    if brands:
        said.append("Taken by card brand: " + ", ".join(f"{brand} {money(int(cents))}" for brand, cents in
                                                        brands.items()) + ".")
    rows = [
        ["Taken (sales and captures)", str(card.get("taken_count", 0)), money(int(card.get("taken", 0)))],
        ["Voided (given back)", str(card.get("voids_count", 0)), money(-int(card.get("voids", 0)))],
        ["Refunded", str(card.get("refunds_count", 0)), money(-int(card.get("refunds", 0)))],
    ]
    net = ["Net (taken - voided - refunded)", "", money(int(card.get("net", 0)))]
    notes = [f"Surcharge (net): {money(int(card.get('surcharge', 0)))}; tax collected (from the carts): "
             f"{money(int(card.get('tax', 0)))}."]
    if int(card.get("on_file") or 0):
        notes.append(f"Of the card taken, cards on file (no terminal): {money(int(card['on_file']))}.")
    ach: Mapping[str, Any] = card.get("ach") or {}
    if int(ach.get("taken_count") or 0) or int(ach.get("voids") or 0) or int(ach.get("refunds") or 0):
        notes.append(f"ACH (bank accounts; neither card nor cash): taken {money(int(ach.get('taken', 0)))} "
                     f"({_count(int(ach.get('taken_count', 0)), 'charge')}), voided {money(-int(ach.get('voids', 0)))}"
                     f", refunded {money(-int(ach.get('refunds', 0)))}, net {money(int(ach.get('net', 0)))}.")
    link: Mapping[str, Any] = card.get("link") or {}
    if int(link.get("taken_count") or 0) or int(link.get("voids") or 0) or int(link.get("refunds") or 0):
        notes.append(f"Payment links (card paid online: not in the drawer, not in the terminal's card total): taken "
                     f"{money(int(link.get('taken', 0)))} ({_count(int(link.get('taken_count', 0)), 'link')}), "
                     f"voided {money(-int(link.get('voids', 0)))}, refunded {money(-int(link.get('refunds', 0)))}, "
                     f"net {money(int(link.get('net', 0)))}; surcharge {money(int(link.get('surcharge', 0)))}, "
                     f"tax {money(int(link.get('tax', 0)))}.")
    columns = (Column("", 48), Column("Count", 6, True), Column("Amount", 14, True))
    return (*filter(None, said), *notes), Table(columns, rows, total=net)
