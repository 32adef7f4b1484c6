"""The open-price item (the "misc" key): something the catalog lacks, rung up at a price the
cashier types and taxed by a tax class the cashier picks.

Its line is a plain ``CartLine``: item id ``OPEN_PRICE_ITEM``, no SKU, the cashier's
description as its name (what the receipt prints), the chosen taxes. It is saved, restored,
totalled and changed like any other line; it never merges with another (two misc items at
one price may be two things, taxed two ways).

A tax class is a set of the merchant's taxes charged together: a corner market's general
merchandise pays state and city tax (8.25 %), so offering each tax alone would under-tax
it. The classes offered are no tax, each tax alone, and every set the catalog's items are
rung up with (``tax_choice``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from pos_app.catalog.models import TaxRate
from pos_app.i18n import N_, _

OPEN_PRICE_ITEM = "open-price"
"""The item id of every open-price line (a service's item ids are 24 hex digits)."""
OPEN_PRICE_NAME = N_("Misc item")
"""The line's name when the cashier types no description (``_(OPEN_PRICE_NAME)`` where shown)."""
OPEN_PRICE_MAX_CENTS = 1_000_000
"""The most an open-price item may cost (10,000.00 in a currency of cents): a price typed by
hand has no catalog to check it, and anything dearer belongs in the catalog, where a
manager sets its price once."""
MAX_DESCRIPTION = 60
"""The longest description, in characters (two lines of the receipt at most)."""


@dataclass(frozen=True, slots=True)
class TaxClass:
    """Taxes charged together on one line, in the merchant's order; none: no tax."""

    rates: tuple[TaxRate, ...] = ()

    @property
    def tax_ids(self) -> tuple[str, ...]:
        return tuple(rate.id for rate in self.rates)

    @property
    def rate(self) -> Decimal:
        """The rates added up: what the line is taxed (the contract's per-line rule)."""
        return sum((rate.rate for rate in self.rates), Decimal(0))

    def label(self, percent: Callable[[Decimal], str] = lambda rate: f"{rate} %") -> str:
        """``"No tax"``, ``"State sales tax 6.25 %"``, ``"State sales tax + City tax 8.25 %"``;
        ``percent`` writes the rate (the store's ``MoneyFormat.percent``: ``"8,25 %"`` in de_DE)."""
        if not self.rates:
            return _("No tax")
        return f"{' + '.join(rate.name for rate in self.rates)} {percent(self.rate)}"


@dataclass(frozen=True, slots=True)
class TaxChoice:
    """The tax classes a cashier picks from, and the one picked at first."""

    classes: tuple[TaxClass, ...]
    default: TaxClass


def tax_choice(rates: Mapping[str, TaxRate], used: Iterable[tuple[tuple[str, ...], int]]) -> TaxChoice:
    """The classes of the merchant's ``rates`` (``Catalog.taxes()``): no tax, each tax alone,
    then each set of taxes the catalog's items carry (``used``: ``Catalog.tax_uses()``, a tax
    set and how many items carry it; a set naming a tax ``rates`` lacks is left out).

    The default is the class most of the catalog's items carry: a thing the catalog lacks is
    likeliest taxed as most things it has. On a tie, the higher rate: tax charged short is the
    store's debt to the tax office, while tax charged over is given back at the counter. With
    no items to go by, the merchant's only tax when it has exactly one (it is its sales tax),
    else no tax (nothing says which; the cashier picks).
    """
    order = {tax_id: index for index, tax_id in enumerate(rates)}
    counts: dict[tuple[str, ...], int] = {}
    for tax_ids, count in used:
        if all(tax_id in rates for tax_id in tax_ids):
            key = tuple(sorted(set(tax_ids), key=order.__getitem__))
            counts[key] = counts.get(key, 0) + count
    sets: list[tuple[str, ...]] = [(), *((tax_id,) for tax_id in rates)]
    sets += sorted((key for key in counts if key not in sets), key=lambda key: (len(key), [order[t] for t in key]))
    classes = {key: TaxClass(tuple(rates[tax_id] for tax_id in key)) for key in sets}
    if counts:
        default = classes[max(counts, key=lambda key: (counts[key], classes[key].rate))]
    else:
        default = classes[tuple(rates) if len(rates) == 1 else ()]
    return TaxChoice(tuple(classes.values()), default)
