"""The notes and coins of a cash drawer by currency, for counting it at the end of a shift:
the count by pieces (3 × $20, 7 × $0.25…) and its total, Qt-free.

Notes are ``notes.NOTES`` (the banknotes the cash dialog suggests); coins are listed here,
in minor units (cents, yen). A drawer is counted largest first: the notes, then the coins.
A currency not listed has no pieces: its drawer is counted as a total only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from babel.numbers import get_currency_precision

from pos_app.i18n import _
from pos_app.station.notes import NOTES

COINS: dict[str, tuple[int, ...]] = {
    "USD": (1, 5, 10, 25, 50, 100),
    "CAD": (5, 10, 25, 100, 200),
    "EUR": (1, 2, 5, 10, 20, 50, 100, 200),
    "GBP": (1, 2, 5, 10, 20, 50, 100, 200),
    "CHF": (5, 10, 20, 50, 100, 200, 500),
    "AUD": (5, 10, 20, 50, 100, 200),
    "JPY": (1, 5, 10, 50, 100, 500),
}
"""Coins in minor units (the cent is no longer made in Canada; 50¢ and $1 coins are rare in
US drawers, but counted when there)."""
MAX_PIECES = 99_999
"""The most pieces of one kind a count takes (five digits: a typing slip shows)."""


@dataclass(frozen=True)
class Denomination:
    """A note or a coin: its value in minor units."""

    value: int
    note: bool


def denominations(currency: str) -> tuple[Denomination, ...]:
    """The drawer's pieces in ``currency``, largest first (notes, then coins); none for a
    currency not listed."""
    code = currency.upper()
    if code not in COINS:
        return ()
    unit = 10 ** get_currency_precision(code)
    notes = sorted((note * unit for note in NOTES.get(code, ())), reverse=True)
    coins = sorted(COINS[code], reverse=True)
    return (*(Denomination(value, True) for value in notes), *(Denomination(value, False) for value in coins))


def pieces(text: str) -> int:
    """How many of one piece were typed: nothing is 0, else a whole number up to
    ``MAX_PIECES`` (``ValueError`` with a sentence otherwise)."""
    shown = text.strip()
    if not shown:
        return 0
    if not shown.isascii() or not shown.isdigit() or int(shown) > MAX_PIECES:
        raise ValueError(_("{typed} is not a number of notes or coins: type a whole number from 0 to {most}").format(
            typed=repr(shown), most=MAX_PIECES))
    return int(shown)


def drawer_total(counts: Iterable[tuple[Denomination, int]]) -> int:
    """The cash of a count by pieces, in minor units."""
    total = 0
    for piece, count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_PIECES:
            raise ValueError(  # a programming mistake: the screen takes counts through ``pieces``
                f"a count of pieces is a whole number from 0 to {MAX_PIECES}, got {count!r}")  # not for people
        total += piece.value * count
    return total
