"""The contract's tax rule (pos-contract.md, "Merchant taxes"), one line at a time.

A line's tax is computed on its base (unit × quantity) with the sum of its taxes' rates
and rounded half-up to the cent, per line:
``line_tax = round_half_up(base × Σ rates / 100)``. Discount lines (negative base) carry
no taxes; they do not lower the tax of other lines either (each line stands alone).

The receipt names each tax: a line's tax is shared among its taxes in proportion to their
rates, whole cents by the largest remainder (``split_line_tax``), so the named taxes add
up to the tax charged, to the cent, with no rounding line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from pos_app.api.money import percent_of
from pos_app.cart.errors import UnknownTax
from pos_app.cart.models import CartLine, Totals, _frozen
from pos_app.catalog.models import TaxRate


def line_tax(base_cents: int, rates: Iterable[Decimal]) -> int:
    """``round_half_up(base × Σ rates / 100)``; 0 for a base of 0 or less, or no rates."""
    combined = sum(rates, Decimal(0))
    if base_cents <= 0 or not combined:
        return 0
    return percent_of(base_cents, combined)


def split_line_tax(base_cents: int, line_cents: int, rates: Sequence[TaxRate]) -> list[int]:
    """``line_cents`` (the line's tax) shared among ``rates`` in whole cents: each gets its
    exact share ``base × rate / 100`` rounded down, and the cents left go one each to the
    largest remainders (the first listed on a tie). The shares add up to ``line_cents``."""
    exact = [Decimal(base_cents) * rate.rate / 100 for rate in rates]
    shares = [int(share) for share in exact]  # down: the shares are not negative
    left = line_cents - sum(shares)  # 0 to len(rates): the line's tax is the rounded sum of the exact shares
    by_remainder = sorted(range(len(rates)), key=lambda i: exact[i] - shares[i], reverse=True)
    for index in by_remainder[:left]:
        shares[index] += 1
    return shares


def compute_totals(lines: Iterable[CartLine], rates: Mapping[str, TaxRate]) -> Totals:
    """Subtotal, per-line taxes and the per-tax breakdown of ``lines`` (see ``Totals``).

    A line naming a tax missing from ``rates`` raises ``UnknownTax``.
    """
    subtotal = 0
    per_line: dict[int, int] = {}
    shares: dict[str, int] = {}
    for line in lines:
        base = line.base_cents
        subtotal += base
        line_rates: list[TaxRate] = []
        if base > 0:
            for tax_id in dict.fromkeys(line.tax_ids):  # a tax named twice is charged once
                rate = rates.get(tax_id)
                if rate is None:
                    raise UnknownTax(line.line_id, line.name, tax_id)
                line_rates.append(rate)
        per_line[line.line_id] = line_tax(base, (r.rate for r in line_rates))
        for rate, share in zip(line_rates, split_line_tax(base, per_line[line.line_id], line_rates), strict=True):
            shares[rate.id] = shares.get(rate.id, 0) + share
    breakdown: dict[str, int] = {}
    for tax_id, rate in rates.items():  # the merchant's order
        if tax_id in shares:
            breakdown[rate.name] = breakdown.get(rate.name, 0) + shares[tax_id]
    return Totals(
        subtotal=subtotal, tax=sum(per_line.values()), per_line=_frozen(per_line), breakdown=_frozen(breakdown)
    )
