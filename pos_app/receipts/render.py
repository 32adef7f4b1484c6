"""Receipt and report PDFs with fpdf2: monospace text laid out in fixed columns.

The text is real text (a TrueType font with its Unicode map), so ``pdftotext`` and a
screen reader get it back. The font is DejaVu Sans Mono from ``fonts-dejavu-core``; when
it is missing, fpdf2's built-in Courier is used and characters outside Latin-1 are
replaced (``—`` by ``-``, ``€`` by ``EUR``).

A receipt is one page 80 mm wide (a receipt roll), as tall as its content.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from pos_app.i18n import N_, _
from pos_app.receipts.model import Copy, ReceiptData, ReportData, TenderKind

TRAINING_BANNER = N_("TRAINING — NO MONEY MOVED")
"""Marked only: shown through ``_()`` (the language in force when the paper is made)."""
KIND_TITLES = {"SALE": N_("SALE"), "PRE-AUTH": N_("PRE-AUTH"), "CAPTURE": N_("CAPTURE"), "VOID": N_("VOID"),
               "REFUND": N_("REFUND")}
"""A receipt's or a slip's kind (``transaction_type``, ``SlipKind``) in capitals, as printed."""
FONT_DIRS: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/local/share/fonts"),
    Path("/Library/Fonts"),
    Path("C:/Windows/Fonts"),
)
FONT_FILES = ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf")

ROLL_WIDTH_MM = 80.0
ROLL_MARGIN_MM = 4.0
RECEIPT_FONT_PT = 8.0
MONO_ADVANCE_EM = 0.6021  # DejaVu Sans Mono (1233/2048); Courier is 0.6
PT_MM = 25.4 / 72
_LATIN1_STANDINS = {"—": "-", "–": "-", "€": "EUR", "…": "...", "‘": "'", "’": "'", "“": '"', "”": '"', "•": "*",
                    "₹": "INR", "₩": "KRW", "\u202f": " ", "\u00a0": " "}


def find_font(font_dir: Path | None = None) -> tuple[Path, Path] | None:
    """DejaVu Sans Mono regular and bold, from ``font_dir`` or the usual places; None if absent."""
    for directory in (font_dir,) if font_dir is not None else FONT_DIRS:
        regular, bold = (directory / name for name in FONT_FILES)
        if regular.is_file() and bold.is_file():
            return regular, bold
    return None


@dataclass(frozen=True)
class _Row:
    text: str
    bold: bool = False
    size: float = RECEIPT_FONT_PT
    align: str = "L"
    boxed: bool = False
    gap_before: float = 0.0


def columns(width_mm: float, size_pt: float = RECEIPT_FONT_PT) -> int:
    """How many monospace characters of ``size_pt`` fit in ``width_mm``."""
    return int(width_mm / (size_pt * MONO_ADVANCE_EM * PT_MM))


ROLL_COLUMNS = columns(ROLL_WIDTH_MM - 2 * ROLL_MARGIN_MM)
"""Characters on a line of the roll."""


def _left_right(left: str, right: str, width: int) -> list[str]:
    """``left`` and ``right`` on one line when they fit, else ``left`` wrapped and ``right``
    on its own line, right-aligned."""
    if len(left) + 1 + len(right) <= width:
        return [left + " " * (width - len(left) - len(right)) + right]
    wrapped = _wrap(left, width)
    if len(wrapped[-1]) + 1 + len(right) <= width:
        return wrapped[:-1] + [wrapped[-1] + " " * (width - len(wrapped[-1]) - len(right)) + right]
    return wrapped + [right.rjust(width)]


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=True,
                         break_on_hyphens=False) or [""]


def _qty(qty: int | Decimal) -> str:
    if isinstance(qty, Decimal):
        return format(qty.normalize(), "f")
    return str(qty)


def _when(moment: datetime) -> str:
    zone = moment.tzname() or moment.strftime("%z")
    return f"{moment:%Y-%m-%d %H:%M} {zone}".strip()


def receipt_rows(data: ReceiptData, width: int) -> list[_Row]:
    """The receipt as rows of at most ``width`` characters (the same text the PDF shows)."""
    rows: list[_Row] = []
    rule = _Row("-" * width)

    def text(line: str, *, bold: bool = False, size: float = RECEIPT_FONT_PT, align: str = "L",
             boxed: bool = False, gap_before: float = 0.0) -> None:
        rows.append(_Row(line, bold, size, align, boxed, gap_before))

    def pair(left: str, right: str, *, bold: bool = False) -> None:
        rows.extend(pairs(left, right, width, bold=bold))

    people = [_("Cashier {name}").format(name=data.cashier),
              *([_("Customer {name}").format(name=data.customer)] if data.customer else [])]
    rows.extend(roll_header(data.store_name, data.store_id, data.station, data.when, people,
                            data.transaction_type, data.copy, width, training=data.training))
    rows.append(rule)
    for item in data.lines:
        if item.qty == 1:
            pair(item.name, data.money(item.line_cents))
        else:
            for line in _wrap(item.name, width):
                text(line)
            pair(f"  {_qty(item.qty)} x {data.money(item.unit_cents)}", data.money(item.line_cents))
    rows.append(rule)
    pair(_("Subtotal"), data.money(data.subtotal_cents))
    for tax in data.taxes:
        pair(tax.name, data.money(tax.cents))
    if data.surcharge_cents:
        pair(_("Card surcharge"), data.money(data.surcharge_cents))
    for line in _left_right(_("TOTAL"), data.money(data.total_cents), width):
        text(line, bold=True, size=RECEIPT_FONT_PT)
    rows.append(rule)
    for tender in data.tenders:
        pair(tender.label, data.money(tender.cents))
        if tender.kind is TenderKind.CARD:
            for label, value in ((_("Auth ref"), tender.auth_ref), (_("Payment"), tender.payment_id)):
                pair(f"  {label}", value or "-")
        elif tender.kind is TenderKind.LINK:
            pair(f"  {_('Payment')}", tender.payment_id or "-")
    if data.change_cents:
        pair(_("Change"), data.money(data.change_cents), bold=True)
    if data.owed_cents:
        pair(_("Charged beyond the total, owed back"), data.money(data.owed_cents), bold=True)
    card = any(t.kind in (TenderKind.CARD, TenderKind.LINK) for t in data.tenders)
    word = _("APPROVED") if card else _("PAID")
    rows.extend(roll_footer(word, [_(line) for line in data.footer], width, training=data.training))
    return rows


def pairs(left: str, right: str, width: int, *, bold: bool = False) -> list[_Row]:
    """``left`` and ``right`` on a roll line (or wrapped), as rows."""
    return [_Row(line, bold) for line in _left_right(left, right, width)]


def roll_header(store_name: str, store_id: str, station: str, when: datetime, people: Sequence[str], kind: str,
                copy: Copy, width: int, *, training: bool) -> list[_Row]:
    """The top of a receipt or a slip: TRAINING, the store, its station, the local time beside
    the first of ``people`` (the others right-aligned below), the kind in capitals and the copy."""
    rows: list[_Row] = []
    if training:
        rows.append(_Row(_(TRAINING_BANNER), True, RECEIPT_FONT_PT + 2, "C", boxed=True))
    rows.extend(_Row(line, True, RECEIPT_FONT_PT + 2, "C", gap_before=1.5 if training else 0)
                for line in _wrap(store_name or "-", width))
    where = _("Store {store}  Station {station}").format(store=store_id, station=station)
    rows.extend(_Row(line, align="C") for line in _wrap(where, width))
    first, *others = people or ("",)
    rows.extend(pairs(_when(when), first, width))
    rows.extend(_Row(line) for person in others for line in _left_right("", person, width))
    title = kind.upper()
    title = _(KIND_TITLES[title]) if title in KIND_TITLES else title
    which = _("CUSTOMER COPY") if copy is Copy.CUSTOMER else _("MERCHANT COPY")
    rows.extend(pairs(title, which, width, bold=True))
    return rows


def roll_footer(word: str, notes: Sequence[str], width: int, *, training: bool) -> list[_Row]:
    """The bottom of a receipt or a slip: ``word`` (APPROVED, PAID), TRAINING again, the notes
    (``word`` and the notes as the caller translated them)."""
    rows = [_Row(word if not training else _("{word} (TRAINING)").format(word=word), True, align="C",
                 gap_before=1.5)]
    if training:
        rows.append(_Row(_(TRAINING_BANNER), True, RECEIPT_FONT_PT + 2, "C", boxed=True, gap_before=1.5))
    rows.extend(_Row(line, align="C", gap_before=1.0) for note in notes for line in _wrap(note, width))
    return rows


class _Pdf:
    """An FPDF with the receipt font set up (DejaVu, or Courier with Latin-1 stand-ins)."""

    def __init__(self, page_format: tuple[float, float] | str, font_dir: Path | None) -> None:
        from fpdf import FPDF  # imported at the first receipt: fpdf2 costs ~0.3 s and ~40 MB at start-up

        self.pdf = FPDF(orientation="P", unit="mm", format=page_format)
        fonts = find_font(font_dir)
        if fonts is not None:
            self.pdf.add_font("Mono", "", str(fonts[0]))
            self.pdf.add_font("Mono", "B", str(fonts[1]))
            self.family, self.unicode = "Mono", True
        else:
            self.family, self.unicode = "Courier", False
        self.pdf.set_creator("pos-app")

    def clean(self, text: str) -> str:
        if self.unicode:
            return text
        for char, standin in _LATIN1_STANDINS.items():
            text = text.replace(char, standin)
        return text.encode("latin-1", "replace").decode("latin-1")

    def row(self, row: _Row, width: float) -> None:
        if row.gap_before:
            self.pdf.ln(row.gap_before)
        self.pdf.set_font(self.family, "B" if row.bold else "", row.size)
        self.pdf.cell(width, row_height(row), self.clean(row.text), border=1 if row.boxed else 0, align=row.align,
                      new_x="LMARGIN", new_y="NEXT")

    def output(self) -> bytes:
        return bytes(self.pdf.output())


def row_height(row: _Row) -> float:
    return row.size * PT_MM * (1.6 if row.boxed else 1.25)


def render_receipt(data: ReceiptData, *, font_dir: Path | None = None) -> bytes:
    """The receipt as PDF bytes: one 80 mm wide page as tall as the receipt."""
    store, when = data.store_name or data.store_id, _when(data.when)
    title = (_("Receipt {store} {when} (training)") if data.training else _("Receipt {store} {when}")).format(
        store=store, when=when)
    return render_roll(receipt_rows(data, ROLL_COLUMNS), title, data.when, font_dir=font_dir)


def render_roll(rows: Sequence[_Row], title: str, when: datetime, *, font_dir: Path | None = None) -> bytes:
    """``rows`` (of at most ``ROLL_COLUMNS`` characters) on one 80 mm wide page as tall as they are."""
    inner = ROLL_WIDTH_MM - 2 * ROLL_MARGIN_MM
    height = 2 * ROLL_MARGIN_MM + 6.0 + sum(row_height(r) + r.gap_before for r in rows)
    doc = _Pdf((ROLL_WIDTH_MM, max(height, 40.0)), font_dir)
    pdf = doc.pdf
    pdf.set_title(title)
    pdf.set_creation_date(when)
    pdf.set_margins(ROLL_MARGIN_MM, ROLL_MARGIN_MM, ROLL_MARGIN_MM)
    pdf.set_auto_page_break(False)
    pdf.add_page()
    for row in rows:
        doc.row(row, inner)
    return doc.output()


REPORT_MARGIN_MM = 15.0
REPORT_FONT_PT = 9.0


def report_rows(data: ReportData, width: int) -> list[_Row]:
    rows: list[_Row] = []
    big = REPORT_FONT_PT + 5
    if data.training:
        rows.append(_Row(_(TRAINING_BANNER), bold=True, size=REPORT_FONT_PT + 3, align="C", boxed=True))
    rows.append(_Row(data.title, bold=True, size=big, gap_before=2.0 if data.training else 0))
    where = _("{store}  (store {store_id}, station {station})").format(
        store=data.store_name, store_id=data.store_id, station=data.station)
    for line in _wrap(where, width):
        rows.append(_Row(line, size=REPORT_FONT_PT))
    rows.append(_Row(_("Generated {when}").format(when=_when(data.generated_at)), size=REPORT_FONT_PT))
    for section in data.sections:
        rows.append(_Row(section.heading, bold=True, size=REPORT_FONT_PT + 1, gap_before=4.0))
        rows.append(_Row("-" * width, size=REPORT_FONT_PT))
        for label, value in section.rows:
            rows.extend(_Row(line, size=REPORT_FONT_PT) for line in _left_right(label, value, width))
    for note in data.notes:
        rows.extend(_Row(line, size=REPORT_FONT_PT, gap_before=2.0) for line in _wrap(note, width))
    return rows


def render_report(data: ReportData, *, font_dir: Path | None = None) -> bytes:
    """A report as PDF bytes on A4 pages (as many as it needs)."""
    doc = _Pdf("A4", font_dir)
    pdf = doc.pdf
    pdf.set_title(data.title)
    pdf.set_creation_date(data.generated_at)
    pdf.set_margins(REPORT_MARGIN_MM, REPORT_MARGIN_MM, REPORT_MARGIN_MM)
    pdf.set_auto_page_break(True, REPORT_MARGIN_MM)
    pdf.add_page()
    inner = pdf.w - 2 * REPORT_MARGIN_MM
    for row in report_rows(data, columns(inner, REPORT_FONT_PT)):
        doc.row(row, inner)
    return doc.output()
