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
from pos_app.i18n import N_, _, for_the_store, ngettext
from pos_app.journal.words import operation_name
from pos_app.money import money_format
from pos_app.receipts.tables import Column, Section, Table, TableDocument
from pos_app.station.figures import GROSS, Category, Figures, MoneyLine, Tally, Tender
from pos_app.station.shift import CloseState, ShiftReport

Money = Callable[[int], str]
LETTER_CURRENCIES = frozenset({"USD", "CAD"})
HEADLINES = {
    CloseState.CLOSED: N_("BATCH CLOSED"),
    CloseState.FAILED: N_("BATCH NOT CLOSED (the close failed)"),
    CloseState.UNKNOWN: N_("BATCH RESULT UNKNOWN"),
    CloseState.NOT_SENT: N_("BATCH NOT CLOSED (the close was not sent)"),
}
"""Marked only: shown through ``_()``."""
NOT_TAKEN_ROWS = (
    (Category.HELD, N_("Pre-auths held (not captured)")),
    (Category.RELEASED, N_("Pre-auths released (voided, never captured)")),
    (Category.DECLINED, N_("Declined")),
    (Category.NOT_CHARGED, N_("Failed (nothing charged)")),
    (Category.OPEN, N_("Unknown or in flight")),
)
LISTED = GROSS | {Category.VOIDED, Category.REFUNDED}
"""The lines of the last section: each one moved money."""
WHAT = {Category.SALE: N_("sale"), Category.CAPTURE: N_("capture"), Category.VOIDED: N_("void"),
        Category.REFUNDED: N_("refund")}
BRAND_HEADINGS = {
    (False, False): N_("By card brand"),
    (True, False): N_("By card brand (ACH: bank accounts)"),
    (False, True): N_("By card brand (Payment link: paid online)"),
    (True, True): N_("By card brand (ACH: bank accounts) (Payment link: paid online)"),
}
"""The heading of the brands' table, by (ACH lines, payment link lines)."""


def report_stem(terminal_id: str, when: datetime) -> str:
    """``shift-<terminal>-<YYYYmmdd-HHMMSS>`` (local time), the report's file name without ``.pdf``."""
    return f"shift-{clean_id(terminal_id).replace('/', '_')}-{when.astimezone():%Y%m%d-%H%M%S}"


@for_the_store
def shift_document(report: ShiftReport) -> TableDocument:
    check, figures = report.check, report.figures

    money = money_format(report.currency, report.locale)
    shift = (_("Shift: {start} to {end} (since the batch closed)") if check.since_close
             else _("Shift: {start} to {end} (since the start of the day)"))
    subtitle = (
        _("{store}  (store {store_id}, station {station})").format(
            store=report.store_name, store_id=report.store_id, station=report.station),
        shift.format(start=_time(check.start), end=_time(check.checked_at)),
        _("Close batch by: {name}").format(name=report.closed_by),
    )
    close = report.close
    attempt = _("Close attempt {attempt}.").format(attempt=close.result.attempt_id) if close.result.attempt_id else ""
    sections = [
        Section(_("Close batch"), (_(HEADLINES[close.state]), close.sentence, *((attempt,) if attempt else ())),
                boxed=True),
        Section(_("Money taken"), (_("Card money: the terminal's and cards on file. A voided sale stays in the "
                                     "gross (it was charged); its void takes it off, surcharge and tax included."),
                                   *_on_file(figures, money)), table=_taken(figures.card, money)),
        *((Section(_("ACH (bank accounts: neither card nor cash)"), table=_taken(figures.ach, money, ach=True)),)
          if figures.ach.lines else ()),
        *((Section(_("Payment links (card paid online: not in the drawer, not the terminal's)"),
                   (_("Phone orders their customers paid on a payment link; a return's void or refund of one "
                      "takes it off."),), table=_taken(figures.link, money, link=True)),)
          if figures.link.lines else ()),
        Section(_("Not taken"), table=_not_taken(figures, money)),
        Section(_("Tax collected (from the carts)"), *_tax(figures, money)),
        Section(_("By cashier"), *_groups(figures.by_cashier(), _("Cashier"), money, (
            _("What each cashier did: their sales, the voids and refunds they made; net surcharge and tax."),))),
        Section(_(BRAND_HEADINGS[bool(figures.ach.lines), bool(figures.link.lines)]),
                *_groups(figures.by_brand(), _("Card brand"), money)),
        Section(_("Unknowns still open"), *_open(report, money)),
        Section(_("Reconciliation with the service"), _reconciliation(report, money)),
        Section(_("Sales, captures, voids and refunds"), *_listed(figures, money)),
    ]
    return TableDocument(
        title=_("End of shift: terminal {terminal}").format(terminal=check.terminal_id), subtitle=subtitle,
        generated_at=report.generated_at, sections=sections, training=report.training,
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
    return (ngettext("Of the gross, {count} charged to a card on file (no terminal): {amount}.",
                     "Of the gross, {count} charged to a card on file (no terminal): {amount}.",
                     len(on_file)).format(count=len(on_file), amount=money(sum(line.amount for line in on_file))),)


def _taken(figures: Figures, money: Money, *, ach: bool = False, link: bool = False) -> Table:
    cells = figures.by_category
    charges = ach or link
    first = _("ACH charges approved") if ach else _("Payment links paid") if link else _("Sales approved")
    captured = [_("Pre-auths captured (amount captured)"), *_amounts(cells[Category.CAPTURE], money)]
    rows = [[first, *_amounts(cells[Category.SALE], money)], *(() if charges else (captured,)),
            [_("Gross (charges)") if charges else _("Gross (sales and captures)"), *_amounts(figures.gross, money)],
            [_("Voided (given back)"), *_amounts(figures.voids, money, -1)],
            [_("Refunded (tax not split out)"), *_amounts(figures.refunds, money, -1)[:-1], "-"]]
    columns = (Column("", 46), Column(_("Count"), 5, True), Column(_("Amount"), 12, True),
               Column(_("Surcharge"), 10, True), Column(_("Charged"), 12, True), Column(_("Tax"), 10, True))
    return Table(columns, rows, total=[_("Net (gross - voids - refunds)"), *_amounts(figures.net, money)])


def _not_taken(figures: Figures, money: Money) -> Table:
    cells = figures.by_category
    rows = [[_(label), str(cells[category].count), money(cells[category].amount)]
            for category, label in NOT_TAKEN_ROWS]
    return Table((Column("", 58), Column(_("Count"), 5, True), Column(_("Amount"), 12, True)), rows)


def _tax(figures: Figures, money: Money) -> tuple[tuple[str, ...], Table]:
    said = [_("The tax of each cart paid by an approved sale or a capture, less that of voided ones. A refund "
              "is not split into tax: it is under Refunded whole.")]
    if figures.partial:
        said.append(ngettext(
            "{partial} of {count} sales were approved for less than their cart: in the gross for what they "
            "charged, their order still due, their tax not counted.",
            "{partial} of {count} sales were approved for less than their cart: in the gross for what they "
            "charged, their order still due, their tax not counted.",
            figures.partial).format(partial=figures.partial, count=figures.gross.count))
    if figures.untaxed:
        said.append(ngettext(
            "{untaxed} of {count} sales and captures were paid without a cart (the command line): their tax is "
            "not known and not counted.",
            "{untaxed} of {count} sales and captures were paid without a cart (the command line): their tax is "
            "not known and not counted.",
            figures.untaxed).format(untaxed=figures.untaxed, count=figures.gross.count))
    rows = [[name, money(cents)] for name, cents in figures.tax_by_name.items()]
    if figures.tax_rounding:
        rows.append([_("Rounding (a line's taxes are rounded together)"), money(figures.tax_rounding)])
    return tuple(said), Table((Column(_("Tax"), 56), Column(_("Collected"), 12, True)), rows,
                              total=[_("Tax collected"), money(figures.tax)])


def _groups(groups: Iterable[tuple[str, Figures]], title: str, money: Money,
            said: tuple[str, ...] = ()) -> tuple[tuple[str, ...], Table | None]:
    groups = tuple(groups)
    if not groups:
        return (_("Nothing approved, declined, voided or refunded in this shift."),), None
    columns = (Column(title, 15), Column(_("Sales"), 6, True), Column(_("Gross"), 11, True),
               Column(_("Voided"), 11, True), Column(_("Refunded"), 11, True), Column(_("Net"), 11, True),
               Column(_("Surcharge"), 9, True), Column(_("Tax"), 9, True), Column(_("Decl."), 5, True))
    rows = [[name, str(group.gross.count), money(group.gross.amount), money(group.voids.amount),
             money(group.refunds.amount), money(group.net.amount), money(group.net.surcharge), money(group.tax),
             str(group.by_category[Category.DECLINED].count)] for name, group in groups]
    return said, Table(columns, rows)


def _open(report: ShiftReport, money: Money) -> tuple[tuple[str, ...], Table | None]:
    still = report.check.open_attempts
    if not still:
        return (_("None: every attempt on this terminal has a final result."),), None
    columns = (Column(_("Attempt"), 22), Column(_("Operation"), 16), Column(_("Amount"), 13, True),
               Column(_("Begun"), 22), Column(_("State"), 12))
    rows = [[a.id, operation_name(a.operation), money(a.amount) if a.amount is not None else "-", _time(a.created_at),
             _("in flight") if a.outcome is None else _("unknown")] for a in still]
    return ((_("Money may have moved: check each again, or have a manager decide it "
               "(the payments list, or `pos-app terminal resume`)."),), Table(columns, rows))


def _reconciliation(report: ShiftReport, money: Money) -> tuple[str, ...]:
    check = report.check
    if check.list_error is not None:
        return (_("Not reconciled: {error}.").format(error=check.list_error),)
    listed = sum(1 for line in check.lines if line.listed)
    said = [_("Attempts in the journal for this shift: {count}; found in the service's transaction list: "
              "{listed}.").format(count=len(check.lines), listed=listed)]
    if not check.list_complete:
        said.append(_("The service's list could not be read to the end: differences may be missing."))
    if not check.differences:
        said.append(_("No differences."))
    said.extend(difference.sentence(money) for difference in check.differences)
    return tuple(said)


def _listed(figures: Figures, money: Money) -> tuple[tuple[str, ...], Table | None]:
    lines = [line for line in figures.lines if line.category in LISTED]
    if not lines:
        return (_("No money moved in this shift."),), None
    columns = (Column(_("Time"), 8), Column(_("Attempt"), 22), Column(_("Cashier"), 11), Column(_("What"), 13),
               Column(_("Card"), 20), Column(_("Amount"), 10, True), Column(_("Surcharge"), 9, True))
    rows = [[f"{line.at.astimezone():%H:%M:%S}", line.attempt_id, line.cashier, _what(line),
             _paid_with(line), money(_signed(line) * line.amount),
             money(_signed(line) * line.surcharge)] for line in lines]
    net = figures.net
    return (), Table(columns, rows, total=["", "", "", _("Net"), "", money(net.amount), money(net.surcharge)])


WHAT_ALTERED = {
    ("sale", True, False): N_("partial sale"), ("sale", False, True): N_("sale, voided"),
    ("sale", True, True): N_("partial sale, voided"), ("capture", True, False): N_("partial capture"),
    ("capture", False, True): N_("capture, voided"), ("capture", True, True): N_("partial capture, voided"),
    ("link paid", True, False): N_("partial link paid"), ("link paid", False, True): N_("link paid, voided"),
    ("link paid", True, True): N_("partial link paid, voided"),
}
"""A line that was approved in part or voided since, by (what, partial, voided): whole phrases
(an adjective agrees with its noun in Spanish and French)."""


def _what(line: MoneyLine) -> str:
    base = N_("link paid") if line.category is Category.SALE and line.tender is Tender.LINK else WHAT[line.category]
    if (base, line.partial, line.voided) in WHAT_ALTERED:
        return _(WHAT_ALTERED[base, line.partial, line.voided])
    what = _(base)
    if line.partial:
        what = _("partial {what}").format(what=what)
    return _("{what}, voided").format(what=what) if line.voided else what


def _paid_with(line: MoneyLine) -> str:
    """``Visa 4242``, ``on file Visa 4242``, ``ACH 6789`` or ``Payment link 4242``: what the
    line's money moved on."""
    if line.on_file:
        return _("on file {brand} {last4}").format(brand=line.brand, last4=line.last4).strip()
    return f"{line.brand} {line.last4}".strip()


def _signed(line: MoneyLine) -> int:
    return 1 if line.category in GROSS else -1
