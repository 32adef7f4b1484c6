"""Money as text, from integer cents: ``format_money(-1250) == "-$12.50"``.

Deliberately small: a table of the currencies a store here meets (symbol and decimals) and
three number styles. A currency without a symbol here is written as its code
(``CHF 12.50``, ``12,50 CHF``), never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SYMBOLS: dict[str, str] = {
    "USD": "$", "CAD": "$", "AUD": "$", "NZD": "$", "MXN": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥",
    "INR": "₹", "KRW": "₩",
}
_ZERO_DECIMALS = frozenset({"JPY", "KRW", "ISK", "CLP", "VND"})
_CODE = re.compile(r"[A-Z]{3}")


@dataclass(frozen=True)
class _Style:
    group: str
    decimal: str
    symbol_after: bool


_STYLES: dict[str, _Style] = {
    "en": _Style(",", ".", False),  # $1,234.50
    "de": _Style(".", ",", True),  # 1.234,50 €
    "fr": _Style(" ", ",", True),  # 1 234,50 €
}
_LOCALE_STYLE = {"en": "en", "de": "de", "nl": "de", "es": "de", "it": "de", "fr": "fr"}


def currency_decimals(currency: str) -> int:
    return 0 if currency.upper() in _ZERO_DECIMALS else 2


def format_money(cents: int, currency: str = "USD", locale: str | None = None) -> str:
    """``cents`` (the currency's minor unit) as text: ``-$1,234.50`` (en, the default),
    ``-1.234,50 €`` (``locale="de_DE"``), ``-1 234,50 €`` (``fr``). The minus sign comes
    first. ``currency`` is an ISO 4217 code; ``ValueError`` for one that is not three letters,
    ``TypeError`` for an amount that is not an ``int``."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"money is an integer number of cents, not {type(cents).__name__}")
    code = currency.upper() if isinstance(currency, str) else ""
    if not _CODE.fullmatch(code):
        raise ValueError(f"a currency is a three-letter ISO code like USD, not {currency!r}")
    language = (locale or "en").replace("-", "_").split("_")[0].lower()
    style = _STYLES[_LOCALE_STYLE.get(language, "en")]
    decimals = currency_decimals(code)
    units, minor = divmod(abs(cents), 10**decimals)
    number = f"{units:,}".replace(",", style.group)
    if decimals:
        number += f"{style.decimal}{minor:0{decimals}d}"
    sign = "-" if cents < 0 else ""
    symbol = _SYMBOLS.get(code)
    if style.symbol_after:
        return f"{sign}{number} {symbol or code}"
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{code} {number}"
