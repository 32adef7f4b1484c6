"""The cash amounts a customer is likely to hand over for a balance: the exact amount, then
the next banknotes up (20 for 15.53; 20, 50 and 100 in dollars), for the cash dialog's quick
buttons. Notes by currency for the stores this app is sold to; another currency rounds up
to the next 5, 10, 20, 50, 100... of its major unit."""

from __future__ import annotations

from babel.numbers import get_currency_precision

NOTES: dict[str, tuple[int, ...]] = {
    "USD": (1, 5, 10, 20, 50, 100),
    "CAD": (5, 10, 20, 50, 100),
    "EUR": (5, 10, 20, 50, 100, 200),
    "GBP": (5, 10, 20, 50),
    "CHF": (10, 20, 50, 100, 200),
    "AUD": (5, 10, 20, 50, 100),
    "JPY": (1000, 2000, 5000, 10000),
}
"""Banknotes in major units (dollars, yen)."""
ROUND_STEPS = (1, 2, 5)


def cash_suggestions(due: int, currency: str, *, count: int = 3) -> list[int]:
    """``due`` (cents) and up to ``count`` larger round amounts a customer would hand over,
    in cents, smallest first: each the smallest single note above ``due``, or the next
    multiple of a note when ``due`` is above them all."""
    if due <= 0:
        return []
    unit = 10 ** get_currency_precision(currency)
    notes = [note * unit for note in NOTES.get(currency.upper(), ())] or _round_steps(due, unit)
    found = [due]
    for note in notes:
        amount = -(-due // note) * note  # the smallest multiple of this note covering due
        if amount > found[-1] and amount not in found:
            found.append(amount)
        if len(found) > count:
            break
    return sorted(set(found))[:count + 1]


def _round_steps(due: int, unit: int) -> list[int]:
    steps: list[int] = []
    scale = unit
    while len(steps) < 8:
        steps.extend(step * scale for step in ROUND_STEPS)
        scale *= 10
    return [step for step in steps if step * 20 >= due] or steps
