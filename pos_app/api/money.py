"""Money at the service's edge: the input limits of the reference (section 8), enforced
before a request leaves, and the wire's dollars.

Inside the app money is always an ``int`` of cents. The service speaks dollars only at
the catalog item routes its money table marks (list, create, update, get); those values
cross the wire as exact decimals and are converted here with ``Decimal``, never float.
Amounts as people read and type them (screens, receipts, the dialogs' fields, in the
store's locale) are ``pos_app.money``'s: nothing here is for people.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from pos_app.api.errors import InvalidInput
from pos_app.i18n import N_, _

TERMINAL_AMOUNT_MAX = 10_000_000
"""Terminal capture and refund take at most this many cents (reference, section 8)."""

PHONE_PATTERN = re.compile(r"^[+]?[(]?[0-9]{3}[)]?[ ]?[0-9]{3}[-]?[0-9]{4}$")
"""US phone format of the reference; ``555-123-4567`` (dash after a bare area code) fails."""

_CENT = Decimal("0.01")


def require_cents(value: object, *, field: str = N_("amount"), maximum: int | None = None) -> int:
    """``value`` as a positive whole number of cents, or ``InvalidInput`` saying why not."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(_("{field} must be a whole number of cents, got {value!r}").format(field=_(field),
                                                                                               value=value))
    if value <= 0:
        raise InvalidInput(_("{field} must be more than 0 cents, got {value}").format(field=_(field), value=value))
    if maximum is not None and value > maximum:
        raise InvalidInput(_("{field} must be at most {maximum} cents, got {value}").format(
            field=_(field), maximum=maximum, value=value))
    return value


def parse_cents(text: str, *, field: str = N_("amount"), maximum: int | None = None) -> int:
    """A typed-in amount of cents (``"1250"``) checked like ``require_cents``."""
    cleaned = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", cleaned):
        raise InvalidInput(_("{field} must be a whole number of cents (minor units) such as 1250 for 12.50, "
                             "got {text!r}").format(field=_(field), text=text))
    return require_cents(int(cleaned), field=field, maximum=maximum)


def require_phone(value: str) -> str:
    if not PHONE_PATTERN.fullmatch(value):
        raise InvalidInput(_(
            "phone {value!r} is not a US number the service accepts: "
            "use 5551234567, (555) 123-4567 or 555 123-4567").format(value=value))
    return value


MAX_DOLLAR_DIGITS = 16
"""A dollar amount of this many digits before the point or more (10^16 dollars) is refused:
no price is that large, and its cents would not fit a 64-bit integer column for long."""


def dollars_to_cents(value: Decimal | int | str) -> int:
    """Exact dollars (as the service sends them) to cents; sub-cent values, and amounts of
    ``MAX_DOLLAR_DIGITS`` digits or more (``1E+999999``), are refused (``InvalidInput``)."""
    if isinstance(value, (bool, float)):
        raise InvalidInput(_("dollar amounts must be exact decimals, got {value!r}").format(value=value))
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise InvalidInput(_("not a dollar amount: {value!r}").format(value=value)) from None
    if not amount.is_finite():
        raise InvalidInput(_("not a dollar amount: {value!r}").format(value=value))
    if amount and amount.adjusted() >= MAX_DOLLAR_DIGITS:
        raise InvalidInput(_("dollar amount {value} is too large to be a price").format(value=value))
    whole_cents = amount.quantize(_CENT)  # at most 18 digits: exact, never rounded by the context
    if whole_cents != amount:
        raise InvalidInput(_("dollar amount {value} has a fraction of a cent").format(value=value))
    return int(whole_cents.scaleb(2))


def cents_to_dollars(cents: int) -> Decimal:
    """Cents to the exact dollar decimal the catalog routes expect (``1250`` → ``12.50``)."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise InvalidInput(f"cents must be an int, got {cents!r}")  # not for people: a caller's bug
    return (Decimal(cents) / 100).quantize(_CENT)


def percent_of(cents: int, rate_percent: Decimal) -> int:
    """``rate_percent`` % of ``cents``, rounded half-up to the cent (taxes, surcharges)."""
    return int((Decimal(cents) * Decimal(rate_percent) / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
