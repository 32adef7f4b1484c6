"""How many, as a cashier types it: ``3*`` before a code or a search (three of the item
scanned or picked next), or a number typed in the cart's Qty cell. Read here into whole
units, with a sentence the cashier can act on when the text is not one.

The marks this reads (``*``) and the keys the sale screen keeps for the selected line
(``+``, ``-``) are never part of a UPC or EAN code; a catalog whose SKUs hold them is
still served (see ``LINE_KEYS``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pos_app.cart.models import MAX_QUANTITY
from pos_app.i18n import _

QUANTITY_MARK = "*"
"""Typed after a number, before the item: ``3*`` then the scan adds 3."""
LINE_KEYS = "+-"
"""The keys that change the selected line's quantity from the scan field. A store whose
SKUs contain one of them (``Catalog.codes_containing``) gets it typed into a field that
already holds text, so such a code can still be scanned."""

_PREFIX = re.compile(r"\s*([0-9]+)\s*\*\s*(.*)", re.DOTALL)
_WHOLE = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Entry:
    """The scan field's text, read: ``quantity`` of what ``text`` names (a code, or the
    words of a search); ``text`` is empty while only ``3*`` has been typed."""

    quantity: int
    text: str


def read_entry(typed: str) -> Entry:
    """``"3*0123"`` → ``Entry(3, "0123")``; ``"0123"`` → ``Entry(1, "0123")``. A number
    before ``*`` that is not from 1 to ``MAX_QUANTITY`` is a ``ValueError`` saying so; a
    ``*`` after anything but a number is left in the text (punctuation in a search)."""
    found = _PREFIX.fullmatch(typed)
    if found is None:
        return Entry(1, typed.strip())
    count, rest = found.groups()
    quantity = int(count)
    if not 1 <= quantity <= MAX_QUANTITY:
        raise ValueError(_("{typed} is not a quantity: type 1 to {most}, then {mark} and the item").format(
            typed=f"{count}{QUANTITY_MARK}", most=MAX_QUANTITY, mark=QUANTITY_MARK))
    return Entry(quantity, rest.strip())


def read_quantity(typed: str) -> int:
    """A quantity typed in the Qty cell, 0 (the line is removed) to ``MAX_QUANTITY``;
    ``ValueError`` saying what to type for anything else."""
    text = typed.strip()
    if _WHOLE.fullmatch(text) is None or int(text) > MAX_QUANTITY:
        raise ValueError(_("“{typed}” is not a quantity: type a whole number from 0 (removes the line) "
                           "to {most}").format(typed=text, most=MAX_QUANTITY))
    return int(text)
