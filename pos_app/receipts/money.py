"""Money as text, from integer cents, in the store's currency, the way its locale writes it:
``format_money(123450, "USD", "en_US") == "$1,234.50"``, ``"1 234,50 $"`` in ``fr_CA``,
``"1.234,50 €"`` for EUR in ``de_DE``.

Qt-free (receipts and reports are rendered without Qt), and small: a table of the common
locales (separators, where the symbol goes, CLDR's as Qt's QLocale writes them, which
tests/receipts/test_money.py checks) and of the currencies' symbols and decimals; a
locale not in the table is written as its language's, else as ``en_US``. A currency
without a symbol here is written as its code (``CHF 12.50``). A "$" currency that is not
the locale's own gets its country (``US$12.50`` in ``en_CA``), never a bare "$" that
could be read as another dollar. CLDR's narrow no-break space is written as a no-break
space (U+00A0), which every receipt font has. Minus comes first.

The locale is the store's ``locale`` setting (``set_default_locale``, once the settings
are read), else the OS's (``LC_ALL``, ``LC_MONETARY``, ``LANG``), else ``en_US``.
"""

from __future__ import annotations

import locale as os_locale
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

NBSP = "\u00a0"
_CODE = re.compile(r"[A-Z]{3}")
_LOCALE = re.compile(r"([a-z]{2,3})(?:_([A-Z]{2}))?")
_SYMBOLS: dict[str, str] = {
    "USD": "$", "CAD": "$", "AUD": "$", "NZD": "$", "MXN": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥",
    "INR": "₹", "KRW": "₩", "BRL": "R$", "SEK": "kr", "NOK": "kr", "DKK": "kr.", "PLN": "zł",
}
_DOLLAR_COUNTRY = {"USD": "US", "CAD": "CA", "AUD": "A", "NZD": "NZ", "MXN": "MX"}
_ZERO_DECIMALS = frozenset({"JPY", "KRW", "ISK", "CLP", "VND"})


@dataclass(frozen=True)
class _Style:
    group: str
    decimal: str
    symbol_first: bool
    spaced: bool  # a no-break space between the symbol and the number
    home: str  # the locale's own currency
    min_grouping: int = 1  # 2: "1234,50" but "12.345,50" (CLDR's minimumGroupingDigits)
    lakh: bool = False  # 1,23,45,678.90
    symbols: Mapping[str, str] | None = None  # the locale's own way of writing a symbol


_EN = _Style(",", ".", True, False, "USD")
_FR = _Style(NBSP, ",", False, True, "EUR")
_DE = _Style(".", ",", False, True, "EUR")
_IT = _Style(".", ",", False, True, "EUR", min_grouping=2)
_ES = _Style(".", ",", False, True, "EUR", min_grouping=2)
_NL = _Style(".", ",", True, True, "EUR")
_PT = _Style(".", ",", True, True, "BRL")
_JA = _Style(",", ".", True, False, "JPY", symbols={"JPY": "￥"})
_ZH = _Style(",", ".", True, False, "CNY")
_KO = _Style(",", ".", True, False, "KRW")
_SV = _Style(NBSP, ",", False, True, "SEK")
_DA = _Style(".", ",", False, True, "DKK")
_NB = _Style(NBSP, ",", True, True, "NOK")
_PL = _Style(NBSP, ",", False, True, "PLN", min_grouping=2)
_STYLES: dict[str, _Style] = {  # a language alone stands for its first country here
    "en": _EN, "en_US": _EN,
    "en_CA": _Style(",", ".", True, False, "CAD"), "en_GB": _Style(",", ".", True, False, "GBP"),
    "en_AU": _Style(",", ".", True, False, "AUD"), "en_NZ": _Style(",", ".", True, False, "NZD"),
    "en_IE": _Style(",", ".", True, False, "EUR"), "en_IN": _Style(",", ".", True, False, "INR", lakh=True),
    "fr": _FR, "fr_FR": _FR, "fr_BE": _FR, "fr_CA": _Style(NBSP, ",", False, True, "CAD"),
    "fr_CH": _Style("'", ",", False, True, "CHF"),
    "de": _DE, "de_DE": _DE, "de_AT": _Style(NBSP, ",", True, True, "EUR"),
    "de_CH": _Style("'", ".", True, True, "CHF"),
    "it": _IT, "it_IT": _IT, "es": _ES, "es_ES": _ES, "es_MX": _Style(",", ".", True, False, "MXN"),
    "nl": _NL, "nl_NL": _NL, "pt": _PT, "pt_BR": _PT,
    "pt_PT": _Style(NBSP, ",", False, True, "EUR", min_grouping=2),
    "ja": _JA, "ja_JP": _JA, "zh": _ZH, "zh_CN": _ZH, "ko": _KO, "ko_KR": _KO,
    "sv": _SV, "sv_SE": _SV, "da": _DA, "da_DK": _DA, "nb": _NB, "nb_NO": _NB, "pl": _PL, "pl_PL": _PL,
}
KNOWN_LOCALES = tuple(sorted(name for name in _STYLES if "_" in name))
"""The locales written exactly; any other of their languages is written as the language's."""

_default: list[str | None] = [None]


def currency_decimals(currency: str) -> int:
    return 0 if currency.upper() in _ZERO_DECIMALS else 2


def check_currency(currency: object) -> str:
    """An ISO 4217 code (``"usd"`` → ``"USD"``); ``ValueError`` saying what is expected."""
    code = currency.upper() if isinstance(currency, str) else ""
    if not _CODE.fullmatch(code):
        raise ValueError(f"a currency is a three-letter ISO code like USD, not {currency!r}")
    return code


def check_locale(name: object) -> str:
    """A locale name like ``en_US``, ``fr_CA`` or ``de`` (``fr-ca`` → ``fr_CA``); ``ValueError``."""
    text = name.replace("-", "_") if isinstance(name, str) else ""
    language, _, territory = text.partition("_")
    normal = f"{language.lower()}_{territory.upper()}" if territory else language.lower()
    if not _LOCALE.fullmatch(normal):
        raise ValueError(f"a locale is a language and a country like en_US, fr_CA or de_DE, not {name!r}")
    return normal


def set_default_locale(name: str | None) -> None:
    """The store's ``locale`` setting for every later ``format_money`` without one (None: the OS's)."""
    _default[0] = check_locale(name) if name else None


def default_locale(env: Mapping[str, str] = os.environ) -> str:
    """The store's setting, else the OS's monetary locale, else ``en_US``."""
    if _default[0]:
        return _default[0]
    chosen = next((env[name] for name in ("LC_ALL", "LC_MONETARY", "LANG") if env.get(name)), None)
    if chosen is None:  # no POSIX variables (Windows): Python's start-up locale
        chosen = os_locale.getlocale(os_locale.LC_CTYPE)[0] or ""
    try:
        return check_locale(chosen.split(".")[0].split("@")[0])
    except ValueError:  # "C", "POSIX", "English_United States": not a name of ours
        return "en_US"


def _style(name: str) -> _Style:
    return _STYLES.get(name) or _STYLES.get(name.split("_")[0]) or _EN


def _group(units: int, style: _Style) -> str:
    digits = str(units)
    if len(digits) < 4 + style.min_grouping - 1:
        return digits
    head, tail = digits[:-3], [digits[-3:]]
    size = 2 if style.lakh else 3
    while head:
        tail.insert(0, head[-size:])
        head = head[:-size]
    return style.group.join(tail)


def format_money(cents: int, currency: str = "USD", locale: str | None = None) -> str:
    """``cents`` (the currency's minor unit) as text in ``locale`` (None: ``default_locale()``).
    ``ValueError`` for a currency that is not three letters or a malformed locale,
    ``TypeError`` for an amount that is not an ``int``."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"money is an integer number of cents, not {type(cents).__name__}")
    code = check_currency(currency)
    style = _style(check_locale(locale) if locale else default_locale())
    decimals = currency_decimals(code)
    units, minor = divmod(abs(cents), 10**decimals)
    number = _group(units, style) + (f"{style.decimal}{minor:0{decimals}d}" if decimals else "")
    symbol = (style.symbols or {}).get(code) or _SYMBOLS.get(code)
    if symbol == "$" and code != style.home:
        symbol = f"{_DOLLAR_COUNTRY[code]}$"
    sign = "-" if cents < 0 else ""
    if symbol is None:  # a code, always apart from the number
        return f"{sign}{code}{NBSP}{number}" if style.symbol_first else f"{sign}{number}{NBSP}{code}"
    space = NBSP if style.spaced else ""
    return f"{sign}{symbol}{space}{number}" if style.symbol_first else f"{sign}{number}{space}{symbol}"
