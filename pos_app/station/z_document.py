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

from pos_app.i18n import _, ngettext
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


def _where(store: Mapping[str, Any], station_id: str) -> str:
    return _("{store}  (store {store_id}, station {station})").format(
        store=store.get("name") or store.get("id") or "-", store_id=store.get("id") or "-", station=station_id)


def z_document(z: ZReport, *, reprint: bool = False, now: datetime | None = None) -> TableDocument:
    """The Z's pages; ``reprint``: said on the page, and generated ``now``."""
    figures = z.figures
    store: Mapping[str, Any] = figures.get("store") or {}
    currency = str(store.get("currency") or "USD")
    money = money_format(currency, store.get("locale") or None)
    count = CashCount(z.expected, z.counted, z.left_in_drawer, z.reason)
    subtitle = [
        _where(store, z.station_id),
        _("Closed {when} by {name}; card terminal {terminal}").format(when=_time(z.closed_at), name=z.by,
                                                                      terminal=z.terminal_id or "-"),
    ]
    if reprint:
        subtitle.append(_("REPRINT of {label} from the journal: the figures as they were closed.").format(
            label=z.label))
    sections = [
        Section(_("Cash count"), _count_lines(count, money), boxed=True),
        Section(_("Cash in the drawer"), (_expected_cash_sum(),), table=_cash(z, money)),
        Section(_("Card batch"), *_card(figures, money)),
    ]
    return TableDocument(
        title=_("Z report {label}").format(label=z.label), subtitle=tuple(subtitle),
        generated_at=now if reprint and now else z.closed_at, sections=sections, training=bool(store.get("training")),
        page="Letter" if currency.upper() in LETTER_CURRENCIES else "A4",
    )


def _expected_cash_sum() -> str:
    return _("Expected cash = opening float + cash taken - change given + cash in - cash out - cash refunds.")


def x_document(shift: CashShift, card: Mapping[str, Any] | None, *, store: Mapping[str, Any], station_id: str,
               now: datetime) -> TableDocument:
    """The X report's pages: the shift so far (``CashShift``, and ``card``: the terminal's
    ``z_report.card_figures``), the same tables as a Z's, and nothing closed."""
    currency = str(store.get("currency") or "USD")
    money = money_format(currency, store.get("locale") or None)
    figures = shift.figures
    label = f"Z-{shift.z_next:04d}"
    subtitle = (
        _where(store, station_id),
        _("The shift so far, at {when}: nothing was closed or counted.").format(when=_time(now)),
        _("{label} will close this shift.").format(label=label),
    )
    batch = {"card": card, "batch": {}} if card else {}
    headline = (_("BATCH OPEN (terminal {terminal}): nothing closed").format(terminal=card.get("terminal") or "-")
                if card else "")
    expected = _("Expected cash in the drawer now: {amount} ({sales}, {no_sales}).").format(
        amount=money(figures.expected_cash),
        sales=ngettext("{count} cash sale", "{count} cash sales", figures.cash_sales).format(count=figures.cash_sales),
        no_sales=ngettext("{count} no sale", "{count} no sales", figures.no_sales).format(count=figures.no_sales))
    sections = [
        Section(_("Expected cash"), (expected,), boxed=True),
        Section(_("Cash in the drawer"), (_expected_cash_sum(),),
                table=_cash_table(figures, shift.last_z.label if shift.last_z else None, figures.expected_cash,
                                  money)),
        Section(_("Card batch"), *_card(batch, money, headline=headline)) if card else
        Section(_("Card batch"), (_("No card terminal: no card figures."),)),
    ]
    return TableDocument(title=_("X report (before {label})").format(label=label), subtitle=subtitle,
                         generated_at=now, sections=sections, training=bool(store.get("training")),
                         page="Letter" if currency.upper() in LETTER_CURRENCIES else "A4")


def _time(moment: datetime) -> str:
    local = moment.astimezone()
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".strip()


def _count_lines(count: CashCount, money: Money) -> tuple[str, ...]:
    lines = [_("Expected cash: {amount}").format(amount=money(count.expected)),
             _("Counted cash: {amount}").format(amount=money(count.counted)),
             _("Over/short: {amount} ({state})").format(amount=signed(money, count.over_short),
                                                        state=count.state.label)]
    if count.reason:
        lines.append(_("Reason: {reason}").format(reason=count.reason))
    lines.append(_("Left in the drawer (the next shift's float): {amount}").format(
        amount=money(count.left_in_drawer)))
    return tuple(lines)


def _cash(z: ZReport, money: Money) -> Table:
    cash = CashFigures.from_json(z.figures.get("cash") or {"opening_float": z.opening_float})
    return _cash_table(cash, z.figures.get("float_from"), z.expected, money)


def _cash_table(cash: CashFigures, since: str | None, expected: int, money: Money) -> Table:
    opening = (_("Opening float (left by {label})").format(label=since) if since and since != "setting"
               else _("Opening float (the opening_float setting)"))
    rows = [
        [opening, "", money(cash.opening_float)],
        [_("Cash taken (handed over)"), str(cash.cash_sales), money(cash.cash_taken)],
        [_("Change given"), "", money(-cash.change_given)],
        [_("Cash in"), "", money(cash.cash_in)],
        [_("Cash out"), "", money(-cash.cash_out)],
        [_("Cash refunds (given back for orders)"), "", money(-cash.cash_refunds)],
        [_("No sale (drawer opened, no money moved)"), str(cash.no_sales), "-"],
    ]
    columns = (Column("", 56), Column(_("Count"), 6, True), Column(_("Amount"), 14, True))
    return Table(columns, rows, total=[_("Expected cash"), "", money(expected)])


def _card(figures: Mapping[str, Any], money: Money, *, headline: str = "") -> tuple[tuple[str, ...], Table | None]:
    batch: Mapping[str, Any] = figures.get("batch") or {}
    if not headline:
        try:
            headline = _(HEADLINES[CloseState(batch.get("state", ""))])
        except ValueError:
            headline = _("BATCH RESULT NOT RECORDED")
    said = [headline, str(batch.get("sentence") or "")]
    if batch.get("attempt_id"):
        said.append(_("Close attempt {attempt}.").format(attempt=batch["attempt_id"]))
    if figures.get("shift_report"):
        said.append(_("End-of-shift report (every card payment): {path}").format(path=figures["shift_report"]))
    card: Mapping[str, Any] | None = figures.get("card")
    if not card:
        return (*filter(None, said), _("No card figures were recorded.")), None
    if card.get("list_error"):
        said.append(_("Not reconciled with the service: {error}.").format(error=card["list_error"]))
    brands = card.get("by_brand") or {}
    if brands:
        said.append(_("Taken by card brand: {brands}.").format(
            brands=", ".join(f"{brand} {money(int(cents))}" for brand, cents in brands.items())))
    rows = [
        [_("Taken (sales and captures)"), str(card.get("taken_count", 0)), money(int(card.get("taken", 0)))],
        [_("Voided (given back)"), str(card.get("voids_count", 0)), money(-int(card.get("voids", 0)))],
        [_("Refunded"), str(card.get("refunds_count", 0)), money(-int(card.get("refunds", 0)))],
    ]
    net = [_("Net (taken - voided - refunded)"), "", money(int(card.get("net", 0)))]
    notes = [_("Surcharge (net): {surcharge}; tax collected (from the carts): {tax}.").format(
        surcharge=money(int(card.get("surcharge", 0))), tax=money(int(card.get("tax", 0))))]
    if int(card.get("on_file") or 0):
        notes.append(_("Of the card taken, cards on file (no terminal): {amount}.").format(
            amount=money(int(card["on_file"]))))
    ach: Mapping[str, Any] = card.get("ach") or {}
    if int(ach.get("taken_count") or 0) or int(ach.get("voids") or 0) or int(ach.get("refunds") or 0):
        charges = int(ach.get("taken_count", 0))
        notes.append(ngettext(
            "ACH (bank accounts; neither card nor cash): taken {taken} ({count} charge), voided {voided}, refunded "
            "{refunded}, net {net}.",
            "ACH (bank accounts; neither card nor cash): taken {taken} ({count} charges), voided {voided}, refunded "
            "{refunded}, net {net}.", charges).format(
            taken=money(int(ach.get("taken", 0))), count=charges, voided=money(-int(ach.get("voids", 0))),
            refunded=money(-int(ach.get("refunds", 0))), net=money(int(ach.get("net", 0)))))
    link: Mapping[str, Any] = card.get("link") or {}
    if int(link.get("taken_count") or 0) or int(link.get("voids") or 0) or int(link.get("refunds") or 0):
        links = int(link.get("taken_count", 0))
        notes.append(ngettext(
            "Payment links (card paid online: not in the drawer, not in the terminal's card total): taken {taken} "
            "({count} link), voided {voided}, refunded {refunded}, net {net}; surcharge {surcharge}, tax {tax}.",
            "Payment links (card paid online: not in the drawer, not in the terminal's card total): taken {taken} "
            "({count} links), voided {voided}, refunded {refunded}, net {net}; surcharge {surcharge}, tax {tax}.",
            links).format(
            taken=money(int(link.get("taken", 0))), count=links, voided=money(-int(link.get("voids", 0))),
            refunded=money(-int(link.get("refunds", 0))), net=money(int(link.get("net", 0))),
            surcharge=money(int(link.get("surcharge", 0))), tax=money(int(link.get("tax", 0)))))
    columns = (Column("", 56), Column(_("Count"), 6, True), Column(_("Amount"), 14, True))
    return (*filter(None, said), *notes), Table(columns, rows, total=net)
