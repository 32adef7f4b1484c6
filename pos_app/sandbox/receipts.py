"""Receipt PDFs written by hand: one page, PDF 1.4, the standard Helvetica fonts,
one uncompressed content stream and an exact xref table.

The service returns receipts as base64 PDFs; the sandbox must return real ones so the
app's viewer and printer paths are exercised, without adding a PDF dependency. The page
is 80 mm wide, the width of a receipt printer roll, and as tall as the text needs.
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE_WIDTH = 227  # points: 80 mm
MARGIN = 14
LINE = 13

# Advance widths (1/1000 em) of ASCII 32..126 in the standard Helvetica fonts (Adobe AFM).
_HELVETICA = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)
_HELVETICA_BOLD = (
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
)
_FONTS = {"F1": ("Helvetica", _HELVETICA), "F2": ("Helvetica-Bold", _HELVETICA_BOLD)}


@dataclass(frozen=True)
class Receipt:
    """What a receipt shows; money already formatted for people."""

    store: str
    copy_label: str  # MERCHANT COPY | CUSTOMER COPY
    date: str
    terminal: str
    order_number: str | None
    lines: tuple[tuple[str, str], ...]  # (label, amount); the last one is the total
    card: str  # e.g. "Visa credit **** 4242"
    status: str
    auth_ref: str


def render_receipt(receipt: Receipt) -> bytes:
    """The receipt as the bytes of a one-page PDF."""
    # (kind, font, size, left, right); kind: center, row, gap or rule (size = its height)
    rows: list[tuple[str, str, float, str, str]] = [
        ("center", "F2", 13, receipt.store, ""),
        ("center", "F2", 9, receipt.copy_label, ""),
        ("gap", "", 6, "", ""),
        ("row", "F1", 8, "Date", receipt.date),
        ("row", "F1", 8, "Terminal", receipt.terminal),
    ]
    if receipt.order_number:
        rows.append(("row", "F1", 8, "Order", receipt.order_number))
    rows.append(("rule", "", 7, "", ""))
    for index, (label, amount) in enumerate(receipt.lines):
        rows.append(("row", "F2" if index == len(receipt.lines) - 1 else "F1", 9, label, amount))
    rows += [
        ("rule", "", 7, "", ""),
        ("row", "F1", 8, "Card", receipt.card),
        ("row", "F2", 9, "Status", receipt.status),
        ("row", "F1", 8, "Auth ref", receipt.auth_ref),
        ("gap", "", 6, "", ""),
        ("center", "F1", 8, "Thank you for shopping with us", ""),
    ]
    height = 2 * MARGIN + sum(size if kind in ("gap", "rule") else LINE for kind, _, size, _, _ in rows)
    ops: list[str] = []
    y = height - MARGIN
    for kind, font, size, left, right in rows:
        if kind in ("gap", "rule"):
            if kind == "rule":
                ops.append(f"0.5 w {MARGIN} {y - 5:.1f} m {PAGE_WIDTH - MARGIN} {y - 5:.1f} l S")
            y -= size
            continue
        y -= LINE
        if kind == "center":
            ops.append(_text(font, size, (PAGE_WIDTH - _width(left, font, size)) / 2, y, left))
        else:
            ops.append(_text(font, size, MARGIN, y, left))
            ops.append(_text(font, size, PAGE_WIDTH - MARGIN - _width(right, font, size), y, right))
    return _pdf(PAGE_WIDTH, height, "\n".join(ops).encode("ascii"), title=f"{receipt.store} receipt")


def _width(text: str, font: str, size: float) -> float:
    """Width of ``text`` in points; characters beyond ASCII count as a digit's width."""
    widths = _FONTS[font][1]
    return sum(widths[ord(c) - 32] if 32 <= ord(c) <= 126 else 556 for c in text) * size / 1000


def _text(font: str, size: float, x: float, y: float, text: str) -> str:
    return f"BT /{font} {size} Tf {x:.2f} {y:.2f} Td ({_escape(text)}) Tj ET"


def _escape(text: str) -> str:
    """A PDF literal string in WinAnsiEncoding: \\ ( ) escaped, bytes above 126 as octal,
    characters the encoding lacks (and control characters) as ?."""
    out = []
    for char in text:
        try:
            code = char.encode("cp1252")[0]
        except UnicodeEncodeError:
            code = ord("?")
        if code < 32:
            code = ord("?")
        if code > 126:
            out.append(f"\\{code:03o}")
        else:
            out.append("\\" + chr(code) if chr(code) in "\\()" else chr(code))
    return "".join(out)


def _pdf(width: float, height: float, content: bytes, *, title: str) -> bytes:
    """A one-page PDF 1.4 file around ``content``, with byte-exact xref offsets."""
    fonts = " ".join(f"/{name} {5 + index} 0 R" for index, name in enumerate(_FONTS))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
            f"/Resources << /Font << {fonts} >> >> /Contents 4 0 R >>"
        ).encode("ascii"),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        *(
            f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode("ascii")
            for base, _ in _FONTS.values()
        ),
        f"<< /Title ({_escape(title)}) /Producer (pos-app sandbox) >>".encode("latin-1"),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        len(objects),
        xref_at,
    )
    return bytes(out)
