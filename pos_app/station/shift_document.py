"""The end-of-shift report laid out as a document of tables (``receipts.tables``): the close
batch's result first, then the totals, per cashier and per card brand, the unknowns still
open, the reconciliation with the service, and every approved sale of the shift.

Pages are Letter for stores in US or Canadian dollars, A4 elsewhere. Amounts are written
by ``pos_app.money`` in the store's currency and locale; everything stays integer cents until then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from pos_app.api.identity import clean_id
from pos_app.journal import Operation
from pos_app.money import money_format
from pos_app.receipts.tables import Column, Section, Table, TableDocument
from pos_app.station.shift import Category, CloseState, GroupTotals, ShiftLine, ShiftReport, Tally

Money = Callable[[int], str]
LETTER_CURRENCIES = frozenset({"USD", "CAD"})
HEADLINES = {
    CloseState.CLOSED: "BATCH CLOSED",
    CloseState.FAILED: "BATCH NOT CLOSED (the close failed)",
    CloseState.UNKNOWN: "BATCH RESULT UNKNOWN",
    CloseState.NOT_SENT: "BATCH NOT CLOSED (the close was not sent)",
}
TOTAL_ROWS = (
    (Category.SALE, "Sales approved"),
    (Category.CAPTURE, "Pre-auths captured"),
    (Category.HELD, "Pre-auths approved, not captured (held)"),
    (Category.DECLINED, "Declined"),
    (Category.VOIDED, "Voided"),
    (Category.REFUNDED, "Refunded"),
    (Category.NOT_CHARGED, "Failed (nothing charged)"),
    (Category.OPEN, "Unknown or in flight"),
)


def report_stem(terminal_id: str, when: datetime) -> str:
    """``shift-<terminal>-<YYYYmmdd-HHMMSS>`` (local time), the report's file name without ``.pdf``."""
    return f"shift-{clean_id(terminal_id).replace('/', '_')}-{when.astimezone():%Y%m%d-%H%M%S}"


def shift_document(report: ShiftReport) -> TableDocument:
    check = report.check

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
        Section("Totals", table=_totals(report, money)),
        Section("By cashier", *_groups(report.by_cashier(), "Cashier", money)),
        Section("By card brand", *_groups(report.by_brand(), "Card brand", money)),
        Section("Unknowns still open", *_open(report, money)),
        Section("Reconciliation with the service", _reconciliation(report, money)),
        Section("Approved sales and captures", *_taken(report.taken, report.taken_total, money)),
    ]
    return TableDocument(
        title=f"End of shift: terminal {check.terminal_id}", subtitle=subtitle, generated_at=report.generated_at,
        sections=sections, training=report.training,
        page="Letter" if report.currency.upper() in LETTER_CURRENCIES else "A4",
    )


def _time(moment: datetime) -> str:
    local = moment.astimezone()
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".strip()


def _amounts(tally: Tally, money: Money) -> list[str]:
    return [str(tally.count), money(tally.amount), money(tally.surcharge), money(tally.charged)]


def _totals(report: ShiftReport, money: Money) -> Table:
    cells = report.by_category
    rows = [[label, *_amounts(cells[category], money)] for category, label in TOTAL_ROWS]
    columns = (Column("", 40), Column("Count", 6, True), Column("Amount", 14, True), Column("Surcharge", 12, True),
               Column("Charged", 14, True))
    return Table(columns, rows, total=["Taken (sales and captures)", *_amounts(report.taken_total, money)])


def _groups(groups: Iterable[GroupTotals], title: str, money: Money) -> tuple[tuple[str, ...], Table | None]:
    groups = tuple(groups)
    if not groups:
        return ("Nothing approved, declined, voided or refunded in this shift.",), None
    columns = (Column(title, 20), Column("Sales", 5, True), Column("Amount", 13, True), Column("Surcharge", 11, True),
               Column("Declined", 8, True), Column("Voided", 12, True), Column("Refunded", 12, True))
    rows = [[group.name, str(group.taken.count), money(group.taken.amount), money(group.taken.surcharge),
             str(group.declined.count), money(group.voided.amount), money(group.refunded.amount)]
            for group in groups]
    return (), Table(columns, rows)


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


def _taken(lines: tuple[ShiftLine, ...], total: Tally, money: Money) -> tuple[tuple[str, ...], Table | None]:
    if not lines:
        return ("No approved sales in this shift.",), None
    columns = (Column("Time", 8), Column("Attempt", 22), Column("Cashier", 14), Column("Card", 18),
               Column("Amount", 11, True), Column("Surcharge", 9, True), Column("Charged", 11, True))
    rows = [[f"{line.at.astimezone():%H:%M:%S}", line.attempt_id, line.cashier,
             f"{line.brand} {line.last4}".strip() + (" (capture)" if line.operation is Operation.CAPTURE else ""),
             money(line.amount), money(line.surcharge), money(line.charged)] for line in lines]
    return (), Table(columns, rows, total=["", "", "", f"{total.count} in all", money(total.amount),
                                           money(total.surcharge), money(total.charged)])
