"""The end-of-shift report laid out as a document of tables (``receipts.tables``): the close
batch's result first, then the money taken (gross, voids, refunds, net, with surcharge and
tax), what was not taken (held pre-auths, declines, failures, unknowns), the tax collected
by tax, per cashier and per card brand, the unknowns still open, the reconciliation with
the service, and every sale, capture, void and refund of the shift. "Money taken" is card
money (the terminal's and cards on file); ACH, neither card nor cash, has its own table, and
so have the orders paid by payment link (card paid online: not in the drawer, not in the
terminal's batch).

Pages are Letter for stores in US or Canadian dollars, A4 elsewhere (105 characters a line
at the report's size: every table fits). Amounts are written by ``pos_app.money`` in the
store's currency and locale; everything stays integer cents until then. Voids and refunds
are written negative where they are taken off (the money tables and the list), so each
column adds up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from pos_app.api.identity import clean_id
from pos_app.money import money_format
from pos_app.receipts.tables import Column, Section, Table, TableDocument
from pos_app.station.figures import GROSS, Category, Figures, MoneyLine, Tally, Tender
from pos_app.station.shift import CloseState, ShiftReport

Money = Callable[[int], str]
LETTER_CURRENCIES = frozenset({"USD", "CAD"})
HEADLINES = {
    CloseState.CLOSED: "BATCH CLOSED",
    CloseState.FAILED: "BATCH NOT CLOSED (the close failed)",
    CloseState.UNKNOWN: "BATCH RESULT UNKNOWN",
    CloseState.NOT_SENT: "BATCH NOT CLOSED (the close was not sent)",
}
NOT_TAKEN_ROWS = (
    (Category.HELD, "Pre-auths held (not captured)"),
    (Category.RELEASED, "Pre-auths released (voided, never captured)"),
    (Category.DECLINED, "Declined"),
    (Category.NOT_CHARGED, "Failed (nothing charged)"),
    (Category.OPEN, "Unknown or in flight"),
)
LISTED = GROSS | {Category.VOIDED, Category.REFUNDED}
"""The lines of the last section: each one moved money."""
WHAT = {Category.SALE: "sale", Category.CAPTURE: "capture", Category.VOIDED: "void", Category.REFUNDED: "refund"}


def report_stem(terminal_id: str, when: datetime) -> str:
    """``shift-<terminal>-<YYYYmmdd-HHMMSS>`` (local time), the report's file name without ``.pdf``."""
    return f"shift-{clean_id(terminal_id).replace('/', '_')}-{when.astimezone():%Y%m%d-%H%M%S}"


def shift_document(report: ShiftReport) -> TableDocument:
    check, figures = report.check, report.figures

    money = money_format(report.currency, report.locale)
    since = "the batch closed" if check.since_close else "the start of the day"
    subtitle = (
        f"{report.store_name}  (store {report.store_id}, station {report.station})",
        f"Shift: {_time(check.start)} to {_time(check.checked_at)} (since {since})",
        f"Close batch by: {report.closed_by}",
    )
    close = report.close
    attempt = f"Close attempt {close.result.attempt_id}." if close.result.attempt_id else ""
    sections = [
        Section("Close batch", (HEADLINES[close.state], close.sentence, *((attempt,) if attempt else ())),
                boxed=True),
        Section("Money taken", ("Card money: the terminal's and cards on file. A voided sale stays in the "
                                "gross (it was charged); its void takes it off, surcharge and tax included.",
                                *_on_file(figures, money)), table=_taken(figures.card, money)),
        *((Section("ACH (bank accounts: neither card nor cash)", table=_taken(figures.ach, money, ach=True)),)
          if figures.ach.lines else ()),
        *((Section("Payment links (card paid online: not in the drawer, not the terminal's)",
                   ("Phone orders their customers paid on a payment link; a return's void or refund of one "
                    "takes it off.",), table=_taken(figures.link, money, link=True)),)
          if figures.link.lines else ()),
        Section("Not taken", table=_not_taken(figures, money)),
        Section("Tax collected (from the carts)", *_tax(figures, money)),
        Section("By cashier", *_groups(figures.by_cashier(), "Cashier", money, (
            "What each cashier did: their sales, the voids and refunds they made; net surcharge and tax.",))),
        Section("By card brand" + (" (ACH: bank accounts)" if figures.ach.lines else "")
                + (" (Payment link: paid online)" if figures.link.lines else ""),
                *_groups(figures.by_brand(), "Card brand", money)),
        Section("Unknowns still open", *_open(report, money)),
        Section("Reconciliation with the service", _reconciliation(report, money)),
        Section("Sales, captures, voids and refunds", *_listed(figures, money)),
    ]
    return TableDocument(
        title=f"End of shift: terminal {check.terminal_id}", subtitle=subtitle, generated_at=report.generated_at,
        sections=sections, training=report.training,
        page="Letter" if report.currency.upper() in LETTER_CURRENCIES else "A4",
    )


def _time(moment: datetime) -> str:
    local = moment.astimezone()
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".strip()


def _amounts(tally: Tally, money: Money, sign: int = 1) -> list[str]:
    return [str(tally.count), money(sign * tally.amount), money(sign * tally.surcharge),
            money(sign * tally.charged), money(sign * tally.tax)]


def _on_file(figures: Figures, money: Money) -> tuple[str, ...]:
    on_file = [line for line in figures.card.lines if line.on_file and line.category in GROSS]
    if not on_file:
        return ()
    return (f"Of the gross, {len(on_file)} charged to a card on file (no terminal): "
            f"{money(sum(line.amount for line in on_file))}.",)


def _taken(figures: Figures, money: Money, *, ach: bool = False, link: bool = False) -> Table:
    cells = figures.by_category
    charges = ach or link
    first = "ACH charges approved" if ach else "Payment links paid" if link else "Sales approved"
    captured = ["Pre-auths captured (amount captured)", *_amounts(cells[Category.CAPTURE], money)]
    rows = [[first, *_amounts(cells[Category.SALE], money)], *(() if charges else (captured,)),
            ["Gross (charges)" if charges else "Gross (sales and captures)", *_amounts(figures.gross, money)],
            ["Voided (given back)", *_amounts(figures.voids, money, -1)],
            ["Refunded (tax not split out)", *_amounts(figures.refunds, money, -1)[:-1], "-"]]
    columns = (Column("", 38), Column("Count", 5, True), Column("Amount", 12, True), Column("Surcharge", 10, True),
               Column("Charged", 12, True), Column("Tax", 10, True))
    return Table(columns, rows, total=["Net (gross - voids - refunds)", *_amounts(figures.net, money)])


def _not_taken(figures: Figures, money: Money) -> Table:
    cells = figures.by_category
    rows = [[label, str(cells[category].count), money(cells[category].amount)] for category, label in NOT_TAKEN_ROWS]
    return Table((Column("", 44), Column("Count", 5, True), Column("Amount", 12, True)), rows)


def _tax(figures: Figures, money: Money) -> tuple[tuple[str, ...], Table]:
    said = ["The tax of each cart paid by an approved sale or a capture, less that of voided ones. A refund "
            "is not split into tax: it is under Refunded whole."]
    if figures.partial:
        said.append(f"{figures.partial} of {figures.gross.count} sales were approved for less than their cart: "
                    "in the gross for what they charged, their order still due, their tax not counted.")
    if figures.untaxed:
        said.append(f"{figures.untaxed} of {figures.gross.count} sales and captures were paid without a cart "
                    "(the command line): their tax is not known and not counted.")
    rows = [[name, money(cents)] for name, cents in figures.tax_by_name.items()]
    if figures.tax_rounding:
        rows.append(["Rounding (a line's taxes are rounded together)", money(figures.tax_rounding)])
    return tuple(said), Table((Column("Tax", 48), Column("Collected", 12, True)), rows,
                              total=["Tax collected", money(figures.tax)])


def _groups(groups: Iterable[tuple[str, Figures]], title: str, money: Money,
            said: tuple[str, ...] = ()) -> tuple[tuple[str, ...], Table | None]:
    groups = tuple(groups)
    if not groups:
        return ("Nothing approved, declined, voided or refunded in this shift.",), None
    columns = (Column(title, 16), Column("Sales", 5, True), Column("Gross", 11, True), Column("Voided", 11, True),
               Column("Refunded", 11, True), Column("Net", 11, True), Column("Surcharge", 9, True),
               Column("Tax", 9, True), Column("Decl.", 5, True))
    rows = [[name, str(group.gross.count), money(group.gross.amount), money(group.voids.amount),
             money(group.refunds.amount), money(group.net.amount), money(group.net.surcharge), money(group.tax),
             str(group.by_category[Category.DECLINED].count)] for name, group in groups]
    return said, Table(columns, rows)
def _open(report: ShiftReport, money: Money) -> tuple[tuple[str, ...], Table | None]:
    still = report.check.open_attempts
    if not still:
        return ("None: every attempt on this terminal has a final result.",), None
    columns = (Column("Attempt", 22), Column("Operation", 10), Column("Amount", 13, True), Column("Begun", 22),
               Column("State", 10))
    rows = [[a.id, str(a.operation), money(a.amount) if a.amount is not None else "-", _time(a.created_at),
             "in flight" if a.outcome is None else "unknown"] for a in still]
    return (("Money may have moved: check each again, or have a manager decide it "
             "(the payments list, or `pos-app terminal resume`).",), Table(columns, rows))


def _reconciliation(report: ShiftReport, money: Money) -> tuple[str, ...]:
    check = report.check
    if check.list_error is not None:
        return (f"Not reconciled: {check.list_error}.",)
    listed = sum(1 for line in check.lines if line.listed)
    said = [f"Attempts in the journal for this shift: {len(check.lines)}; found in the service's transaction "
            f"list: {listed}."]
    if not check.list_complete:
        said.append("The service's list could not be read to the end: differences may be missing.")
    if not check.differences:
        said.append("No differences.")
    said.extend(difference.sentence(money) for difference in check.differences)
    return tuple(said)


def _listed(figures: Figures, money: Money) -> tuple[tuple[str, ...], Table | None]:
    lines = [line for line in figures.lines if line.category in LISTED]
    if not lines:
        return ("No money moved in this shift.",), None
    columns = (Column("Time", 8), Column("Attempt", 22), Column("Cashier", 11), Column("What", 12),
               Column("Card", 21), Column("Amount", 10, True), Column("Surcharge", 9, True))
    rows = [[f"{line.at.astimezone():%H:%M:%S}", line.attempt_id, line.cashier, _what(line),
             _paid_with(line), money(_signed(line) * line.amount),
             money(_signed(line) * line.surcharge)] for line in lines]
    net = figures.net
    return (), Table(columns, rows, total=["", "", "", "Net", "", money(net.amount), money(net.surcharge)])


def _what(line: MoneyLine) -> str:
    what = ("partial " if line.partial else "") + (
        "link paid" if line.category is Category.SALE and line.tender is Tender.LINK else WHAT[line.category])
    return what + (", voided" if line.voided else "")


def _paid_with(line: MoneyLine) -> str:
    """``Visa 4242``, ``on file Visa 4242``, ``ACH 6789`` or ``Payment link 4242``: what the
    line's money moved on."""
    return f"{'on file ' if line.on_file else ''}{line.brand} {line.last4}".strip()


def _signed(line: MoneyLine) -> int:
    return 1 if line.category in GROSS else -1
