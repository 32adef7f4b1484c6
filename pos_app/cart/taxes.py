"""The contract's tax rule (pos-contract.md, "Merchant taxes"), one line at a time.

A line's tax is computed on its base (unit × quantity) with the sum of its taxes' rates
and rounded half-up to the cent, per line:
``line_tax = round_half_up(base × Σ rates / 100)``. Discount lines (negative base) carry
no taxes; they do not lower the tax of other lines either (each line stands alone).

The computation is total: it never raises on a line. A tax the merchant's rates do not
list is charged at the rate the cart remembers for it and the line flagged; with no rate
known it is not charged, the line flagged and the cart not payable (never guessed as 0 %).
The arithmetic is exact (``Fraction``): no rate or amount can overflow a decimal context.

The receipt names each tax: a line's tax is shared among its taxes in proportion to their
rates, whole cents by the largest remainder (``split_line_tax``), so the named taxes add
up to the tax charged, to the cent, with no rounding line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from pos_app.cart.models import CartLine, FlaggedTax, TaxFlag, Totals, _frozen
from pos_app.catalog.models import TaxRate

_NONE: Mapping[str, TaxRate] = MappingProxyType({})


def line_tax(base_cents: int, rates: Iterable[Decimal]) -> int:
    """``round_half_up(base × Σ rates / 100)``, exactly; 0 for a base of 0 or less, or no rates."""
    combined = sum((Fraction(rate) for rate in rates), Fraction(0))
    if base_cents <= 0 or not combined:
        return 0
    return math.floor(base_cents * combined / 100 + Fraction(1, 2))


def split_line_tax(base_cents: int, line_cents: int, rates: Sequence[TaxRate]) -> list[int]:
    """``line_cents`` (the line's tax) shared among ``rates`` in whole cents: each gets its
    exact share ``base × rate / 100`` rounded down, and the cents left go one each to the
    largest remainders (the first listed on a tie). The shares add up to ``line_cents``."""
    if base_cents <= 0 or line_cents <= 0:
        return [0] * len(rates)
    exact = [Fraction(base_cents) * Fraction(rate.rate) / 100 for rate in rates]
    shares = [math.floor(share) for share in exact]  # down: the shares are not negative
    left = line_cents - sum(shares)  # 0 to len(rates): the line's tax is the rounded sum of the exact shares
    by_remainder = sorted(range(len(rates)), key=lambda i: exact[i] - shares[i], reverse=True)
    for index in by_remainder[:left]:
        shares[index] += 1
    return shares


def compute_totals(
    lines: Iterable[CartLine], rates: Mapping[str, TaxRate], known_rates: Mapping[str, TaxRate] = _NONE
) -> Totals:
    """Subtotal, per-line taxes, the per-tax breakdown and the flagged lines of ``lines`` (see ``Totals``).

    ``rates`` are the merchant's (``Catalog.taxes()``); ``known_rates`` the ones the cart
    remembers (``Cart.known_rates``), used for a tax ``rates`` does not list.
    """
    subtotal = 0
    per_line: dict[int, int] = {}
    shares: dict[str, int] = {}
    names: dict[str, str] = {}  # tax id → name, for the breakdown: the merchant's taxes first
    flagged: dict[int, tuple[FlaggedTax, ...]] = {}
    for line in lines:
        base = line.base_cents
        subtotal += base
        line_rates: list[TaxRate] = []
        line_flags: list[FlaggedTax] = []
        if base > 0:
            for tax_id in dict.fromkeys(line.tax_ids):  # a tax named twice is charged once
                rate = rates.get(tax_id)
                if rate is None:
                    rate = known_rates.get(tax_id)
                    flag = TaxFlag.NO_RATE if rate is None else TaxFlag.RATE_KEPT
                    line_flags.append(FlaggedTax(tax_id, flag, rate))
                if rate is not None:
                    line_rates.append(rate)
        per_line[line.line_id] = line_tax(base, (r.rate for r in line_rates))
        for rate, share in zip(line_rates, split_line_tax(base, per_line[line.line_id], line_rates), strict=True):
            shares[rate.id] = shares.get(rate.id, 0) + share
        if line_flags:
            flagged[line.line_id] = tuple(line_flags)
    for tax_id, rate in (*rates.items(), *known_rates.items()):
        names.setdefault(tax_id, rate.name)
    breakdown: dict[str, int] = {}
    for tax_id, name in names.items():  # the merchant's order, then the remembered ones
        if tax_id in shares:
            breakdown[name] = breakdown.get(name, 0) + shares[tax_id]
    return Totals(
        subtotal=subtotal, tax=sum(per_line.values()), per_line=_frozen(per_line), breakdown=_frozen(breakdown),
        flagged=_frozen(flagged),
    )
