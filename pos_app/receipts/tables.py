"""Reports made of tables (the end-of-shift report) as PDFs on A4 or Letter pages, and a
PDF saved to a folder atomically.

The text is monospace, like the receipts (``render._Pdf``: DejaVu Sans Mono, or Courier),
so a table is laid out in fixed columns, one text line per row: a page of 2,000 rows
renders about as fast as bare text, and ``pdftotext -layout`` reads the columns back. A
table's heading row is repeated at the top of every page it runs onto. No Qt.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pos_app.i18n import _
from pos_app.receipts.render import TRAINING_BANNER, _Pdf, _Row, _when, _wrap, columns, row_height

TABLE_MARGIN_MM = 15.0
TABLE_FONT_PT = 8.0
GAP = "  "
"""Between two columns."""


@dataclass(frozen=True)
class Column:
    title: str
    width: int
    """Characters; longer text is cut with an ellipsis."""
    right: bool = False
    """Right-aligned (amounts, counts)."""


@dataclass(frozen=True)
class Table:
    columns: Sequence[Column]
    rows: Sequence[Sequence[str]]
    total: Sequence[str] | None = None
    """A last row in bold under a rule (the totals)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "rows", tuple(tuple(row) for row in self.rows))
        for row in (*self.rows, *((self.total,) if self.total is not None else ())):
            if len(row) != len(self.columns):
                raise ValueError(  # a programming mistake
                    f"a row of {len(row)} cells in a table of {len(self.columns)} columns: {row!r}")  # not for people

    def line(self, cells: Sequence[str]) -> str:
        return GAP.join(_fit(cell, column) for cell, column in zip(cells, self.columns, strict=True)).rstrip()

    @property
    def width(self) -> int:
        return sum(column.width for column in self.columns) + len(GAP) * (len(self.columns) - 1)


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: Sequence[str] = ()
    table: Table | None = None
    boxed: bool = False
    """The paragraphs in bold in one box (what must not be missed: the close batch's result)."""


@dataclass(frozen=True)
class TableDocument:
    title: str
    subtitle: Sequence[str]
    generated_at: datetime
    sections: Sequence[Section]
    training: bool = False
    page: str = "A4"
    """``A4`` or ``Letter``."""


def _fit(text: str, column: Column) -> str:
    if len(text) > column.width:
        text = text[: max(column.width - 1, 0)] + "…"
    return text.rjust(column.width) if column.right else text.ljust(column.width)


def render_tables(data: TableDocument) -> bytes:
    """The document as PDF bytes, on as many pages as it needs."""
    doc = _Pdf(data.page, None)
    pdf = doc.pdf
    pdf.set_title(_("{title} (training)").format(title=data.title) if data.training else data.title)
    pdf.set_creation_date(data.generated_at)
    pdf.set_margins(TABLE_MARGIN_MM, TABLE_MARGIN_MM, TABLE_MARGIN_MM)
    pdf.set_auto_page_break(True, TABLE_MARGIN_MM)
    pdf.add_page()
    inner = pdf.w - 2 * TABLE_MARGIN_MM
    width = columns(inner, TABLE_FONT_PT)
    size = TABLE_FONT_PT
    if data.training:
        doc.row(_Row(_(TRAINING_BANNER), bold=True, size=size + 3, align="C", boxed=True), inner)
    doc.row(_Row(data.title, bold=True, size=size + 6, gap_before=2.0 if data.training else 0), inner)
    for line in data.subtitle:
        for wrapped in _wrap(line, width):
            doc.row(_Row(wrapped, size=size + 1), inner)
    doc.row(_Row(_("Generated {when}").format(when=_when(data.generated_at)), size=size + 1), inner)
    for section in data.sections:
        doc.row(_Row(section.heading, bold=True, size=size + 2, gap_before=5.0), inner)
        if section.boxed:
            pdf.set_font(doc.family, "B", size + 1)
            pdf.multi_cell(inner, row_height(_Row("", size=size + 1)), doc.clean("\n".join(section.paragraphs)),
                           border=1, padding=1, new_x="LMARGIN", new_y="NEXT")
        else:
            for paragraph in section.paragraphs:
                for wrapped in _wrap(paragraph, width):
                    doc.row(_Row(wrapped, size=size), inner)
        if section.table is not None:
            _table(doc, section.table, inner, size)
    return doc.output()


def _table(doc: _Pdf, table: Table, inner: float, size: float) -> None:
    header = [_Row(table.line([column.title for column in table.columns]), bold=True, size=size),
              _Row("-" * table.width, size=size)]
    height = row_height(header[0])
    for row in header:
        doc.row(row, inner)

    def room_for(lines: int) -> None:
        if doc.pdf.will_page_break(lines * height):
            doc.pdf.add_page()
            for row in header:
                doc.row(row, inner)

    for cells in table.rows:
        room_for(1)
        doc.row(_Row(table.line(cells), size=size), inner)
    if table.total is not None:
        room_for(2)
        doc.row(_Row("-" * table.width, size=size), inner)
        doc.row(_Row(table.line(table.total), bold=True, size=size), inner)


def save_pdf(pdf: bytes, folder: Path, stem: str) -> Path:
    """``pdf`` written as ``folder/stem.pdf`` (``stem-2.pdf``... when taken), atomically: a
    temporary file in the same folder, synced, then renamed, so the file named is never
    half-written. Raises ``OSError`` (the folder cannot be made or written)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{stem}.pdf"
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{stem}-{number}.pdf"
    handle, temporary = tempfile.mkstemp(prefix=f".{stem}-", suffix=".part", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(pdf)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
