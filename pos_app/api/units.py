"""The money units of the service, by route family, in one place (reference section 2.1).

Inside the app money is always an ``int`` of cents. The service mostly agrees, but not
everywhere, and the exceptions are traps: payment-link views and the deprecated link
list answer **dollars**, the deprecated link create takes **whole dollars**, the
subscription list's ``amount`` filter is **dollars** while subscriptions themselves are
cents, catalog items are dollars except the delete and duplicate answers. Every route's
units are read here (``units``), and ``to_wire``/``from_wire`` convert at the edge with
``Decimal``, never a float. A route family not listed moves no money (customers, taxes).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from pos_app.api.errors import InvalidInput
from pos_app.api.money import cents_to_dollars, dollars_to_cents
from pos_app.i18n import _

Unit = Literal["cents", "dollars", "whole_dollars"]


@dataclass(frozen=True)
class MoneyUnits:
    """The unit of money in a route's request (body or query) and in its answer; None
    where that side carries no money."""

    request: Unit | None
    response: Unit | None


CENTS = MoneyUnits("cents", "cents")
NONE = MoneyUnits(None, None)

FAMILY_UNITS: dict[str, MoneyUnits] = {
    # charges, refunds, voids, captures, bulk charge, receipts, surcharge quote: cents
    "card": CENTS,
    "ach": CENTS,
    "receipt": CENTS,
    "surcharge": CENTS,
    "payment": CENTS,
    "transactions": MoneyUnits(None, "cents"),  # amount, baseAmount, surcharge
    "terminal": MoneyUnits("cents", None),  # pay/auth/capture/refund amounts; answers per contract in cents
    # catalog items: salesPrice in dollars (list, create, update, get)
    "item": MoneyUnits("dollars", "dollars"),
    # payment links 202104: create and list in cents, the view in dollars (below)
    "link": CENTS,
    # deprecated links: whole dollars in, dollars out
    "old_link": MoneyUnits("whole_dollars", "dollars"),
    # subscriptions: cents both ways, except the list's amount filter (below)
    "subscription": CENTS,
    # no money on these routes
    "customer": NONE,
    "tax": NONE,
}

ROUTE_UNITS: dict[str, MoneyUnits] = {
    "item.delete": MoneyUnits(None, "cents"),  # salesPrice in cents in these two answers
    "item.duplicate": MoneyUnits(None, "cents"),
    "item.ids": NONE,
    "item.categories": NONE,
    "item.bulk_delete": NONE,
    "item.bulk_duplicate": NONE,
    "link.get": MoneyUnits(None, "dollars"),  # the 202104 view answers dollars
    "link.delete": MoneyUnits(None, "dollars"),  # the raw payment-request record: converted to dollars
    "link.list": MoneyUnits(None, "cents"),
    "old_link.list": MoneyUnits(None, "dollars"),
    "old_link.get": MoneyUnits(None, "dollars"),
    "old_link.delete": MoneyUnits(None, "dollars"),
    "subscription.list": MoneyUnits("dollars", "cents"),  # query amount=12.50 (exact), entries in cents
    "terminal.list": NONE,
    "terminal.poll_message": NONE,
    "terminal.close_batch": NONE,
    "terminal.close_batch_by_serial": NONE,
    "surcharge.acknowledgment": NONE,
}


def units(route_name: str) -> MoneyUnits:
    """The money units of ``route_name`` (a name of ``pos_app.api.routes.ROUTES``)."""
    if route_name in ROUTE_UNITS:
        return ROUTE_UNITS[route_name]
    family = route_name.split(".", 1)[0]
    try:
        return FAMILY_UNITS[family]
    except KeyError:
        raise KeyError(  # a route added without its units: a developer's bug
            f"no money units for route {route_name!r}: add its family to pos_app.api.units") from None  # not for people


def request_unit(route_name: str) -> Unit:
    """The unit of money ``route_name`` takes; ``ValueError`` if it takes none."""
    unit = units(route_name).request
    if unit is None:
        raise ValueError(f"{route_name} takes no money")  # not for people: a caller's bug
    return unit


def response_unit(route_name: str) -> Unit:
    """The unit of money ``route_name`` answers; ``ValueError`` if it answers none."""
    unit = units(route_name).response
    if unit is None:
        raise ValueError(f"{route_name} answers no money")  # not for people: a caller's bug
    return unit


def to_wire(cents: int, unit: Unit, *, field: str = "amount") -> int | Decimal:
    """Cents as the service wants them in ``unit``: cents as they are, dollars as an exact
    ``Decimal`` (1250 → 12.50), whole dollars as an ``int`` (1200 → 12; 1250 is refused:
    the deprecated link create cannot take 12.50)."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise InvalidInput(f"{field} must be an int of cents, got {cents!r}")  # not for people: a caller's bug
    if unit == "cents":
        return cents
    if unit == "dollars":
        return cents_to_dollars(cents)
    if cents % 100:
        raise InvalidInput(_("{field} is sent in whole dollars on this route: {cents} cents is not a whole number "
                             "of dollars").format(field=field, cents=cents))
    return cents // 100


def from_wire(value: object, unit: Unit, *, field: str = "amount") -> int:
    """An answer's money in ``unit`` as cents; ``InvalidInput`` when it is no amount of that
    unit (a fraction where cents are due, a float, a bool, a fraction of a cent)."""
    if isinstance(value, (bool, float)) or not isinstance(value, (int, Decimal, str)):
        raise InvalidInput(_("{field} {value!r} is not an amount").format(field=field, value=value))
    if unit == "cents":
        if not isinstance(value, int):
            raise InvalidInput(_("{field} {value!r} should be whole cents here").format(field=field, value=value))
        return value
    if unit == "whole_dollars":
        if not isinstance(value, int):
            raise InvalidInput(_("{field} {value!r} should be whole dollars here").format(field=field, value=value))
        return value * 100
    try:
        return dollars_to_cents(value)
    except InvalidInput as error:
        raise InvalidInput(f"{field}: {error}") from None
