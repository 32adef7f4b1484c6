"""Amounts as people read and type them: integer minor units written, and typed text read,
in the store's currency and locale, with Babel (CLDR's data).

Inside the app an amount is always an ``int`` of the currency's minor unit ("cents"): cents
for USD or EUR, yen for JPY, which has no minor digits (``get_currency_precision``). Only
here does an amount become text, or text an amount:

- ``MoneyFormat(currency, locale)``, or ``money_format(currency, locale)`` resolving an
  unset locale: ``money(123450)`` is ``"1.234,50 €"`` in ``de_DE`` for EUR, ``"$1,234.50"``
  in ``en_US``, ``"1 234,50 $"`` in ``fr_CA`` for CAD, ``"¥1,234"`` in ``ja_JP`` for JPY
  (``format_currency``); ``money.field(2000)`` is ``"20,00"``, what an amount field is
  prefilled with (no symbol, no grouping; ``"500"`` for 500 yen); ``money.parse("12,50")``
  is ``1250``, by the locale's separators (``parse_decimal`` with ``strict=True``);
  ``money.percent(Decimal("8.25"))`` is ``"8,25 %"``, a tax rate written the same way.
- ``format_money(cents, currency, locale)`` for a one-off.

This is not ``pos_app.api.money``: that module works at the service's edge (the wire's
dollars as exact decimals at the catalog routes, the reference's input limits); this one
is for people: screens, dialogs' amount fields, receipts, reports, sentences.

The locale is the store's ``locale`` setting; unset, the OS's (``LC_ALL``, then
``LC_MONETARY``, then ``LANG``; without them, as on Windows, Python's start-up locale),
else its language's, else ``en_US`` (``C`` and ``POSIX`` are no locale: ``en_US``). CLDR's
narrow no-break space (``fr_FR``'s groups) is written as a no-break space (U+00A0), which
every receipt font has, and ja_JP's fullwidth ``￥`` as ``¥`` (``FONT_SAFE``).

Babel loads a locale's data (a pickle) on its first use, some milliseconds: the app's
first screen imports nothing of this module, and ``MoneyFormat.load`` does it ahead on a
worker thread (the counter opens with it).
"""

from __future__ import annotations

import locale as os_locale
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import cached_property, lru_cache

from babel import Locale, UnknownLocaleError
from babel.numbers import (
    NumberFormatError,
    format_currency,
    format_decimal,
    get_currency_precision,
    get_currency_symbol,
    get_decimal_symbol,
    get_group_symbol,
    is_currency,
    parse_decimal,
)

from pos_app.api.money import TERMINAL_AMOUNT_MAX
from pos_app.i18n import N_, _, ngettext

NBSP = "\u00a0"
NARROW_NBSP = "\u202f"
FONT_SAFE = str.maketrans({NARROW_NBSP: NBSP, "\uffe5": "\u00a5"})
"""What CLDR writes that receipt fonts lack (DejaVu Sans Mono has neither), and what is
written instead: a no-break space for the narrow one (fr_FR's groups), ``¥`` for the
fullwidth ``￥`` of ja_JP."""
FALLBACK_LOCALE = "en_US"
AMOUNT_MAX = TERMINAL_AMOUNT_MAX
"""The most an amount typed by a person may be, in minor units (100,000.00 for dollars or
euros, 10,000,000 yen): what a terminal capture or refund takes at most (the reference,
section 8); every amount typed here is one of those, or a bound on payments they made."""

_SPACES = " \t" + NBSP + NARROW_NBSP + "\u2009\u2007"
"""What a typed space may be: a plain one, a no-break, narrow, thin or figure space."""
_APOSTROPHES = "'’"
_DIGITS = "0123456789"
_SEPARATORS = ".," + _APOSTROPHES + _SPACES
"""What separates digits in some locale: typed where the store's locale does not use it,
the text is refused as written otherwise, not as no number at all."""
_MINUS = "-−–"
_WRITTEN_OTHERWISE = N_("this store writes amounts otherwise")
_CODE = re.compile(r"[A-Z]{3}")
_OS_VARIABLES = ("LC_ALL", "LC_MONETARY", "LANG")
"""Where POSIX looks for the monetary locale, the first set one deciding."""


class AmountProblem(StrEnum):
    """Why typed text is not an amount."""

    NOT_A_NUMBER = "not a number"  # not for people
    SEPARATORS = "separators"
    """Digits, but grouped or separated otherwise than the locale does ("12.50" in de_DE)."""
    NEGATIVE = "negative"
    DECIMALS = "decimals"
    """More digits after the decimal separator than the currency has."""
    TOO_LARGE = "too large"  # not for people


class AmountError(ValueError):
    """Typed text that is not an amount; the message is a sentence for the cashier that
    shows an amount written the store's way."""

    def __init__(self, problem: AmountProblem, sentence: str) -> None:
        super().__init__(sentence)
        self.problem = problem


def check_currency(currency: object) -> str:
    """An ISO 4217 code Babel knows (``"eur"`` → ``"EUR"``); ``ValueError`` saying what is expected."""
    code = currency.strip().upper() if isinstance(currency, str) else ""
    if not (_CODE.fullmatch(code) and is_currency(code)):
        raise ValueError(_("a currency is a three-letter ISO 4217 code like USD, EUR or JPY, not {currency}").format(
            currency=repr(currency)))
    return code


def check_locale(name: object) -> str:
    """A locale this installation has the data of (``"fr-ca"`` → ``"fr_CA"``, ``"de"``);
    ``ValueError`` saying what is expected."""
    text = name.strip().replace("-", "_") if isinstance(name, str) else ""
    try:
        return str(Locale.parse(text))
    except (UnknownLocaleError, ValueError, TypeError):
        raise ValueError(_("a locale is a language and a country like en_US, fr_CA or de_DE (one this "
                           "installation has), not {locale}").format(locale=repr(name))) from None


def default_locale(env: Mapping[str, str] = os.environ) -> str:
    """The OS's monetary locale (see the module docstring), as a name Babel knows."""
    chosen = next((env[name] for name in _OS_VARIABLES if env.get(name)), None)
    if chosen is None:  # no POSIX variables (Windows): Python's start-up locale
        chosen = os_locale.getlocale(os_locale.LC_CTYPE)[0] or ""
    name = chosen.split(".")[0].split("@")[0]
    for candidate in (name, name.replace("-", "_").split("_")[0]):
        if candidate and candidate not in ("C", "POSIX"):
            try:
                return check_locale(candidate)
            except ValueError:  # "English_United States", or a locale this installation lacks
                continue
    return FALLBACK_LOCALE


def money_format(currency: str = "USD", locale: str | None = None) -> MoneyFormat:
    """The ``MoneyFormat`` of a store's ``currency`` and ``locale`` settings (None: the OS's)."""
    return MoneyFormat(check_currency(currency), check_locale(locale) if locale else default_locale())


def format_money(cents: int, currency: str = "USD", locale: str | None = None) -> str:
    """``cents`` (minor units) as text in ``locale`` (None: the OS's); ``ValueError`` for an
    unknown currency or locale, ``TypeError`` for an amount that is not an ``int``."""
    return money_format(currency, locale)(cents)


@dataclass(frozen=True)
class MoneyFormat:
    """How one store writes and reads amounts: its currency and its locale (both checked:
    ``money_format`` makes one from the settings)."""

    currency: str
    locale: str

    @cached_property
    def digits(self) -> int:
        """The currency's minor digits: 2 for USD and EUR, 0 for JPY."""
        return get_currency_precision(self.currency)

    def load(self) -> MoneyFormat:
        """Load Babel's data for this locale and currency now (a worker thread's job: the
        first amount written otherwise pays for it); returns self."""
        self(0)
        self._symbols  # noqa: B018 - loads the symbols the parser strips
        return self

    def __call__(self, cents: int) -> str:
        """``cents`` as the locale writes an amount of the currency: ``"1.234,50 €"``.
        ``TypeError`` for an amount that is not an ``int``."""
        return _written(_minor_units(cents), self.currency, self.locale)

    def field(self, cents: int) -> str:
        """``cents`` as a person would type it into an amount field: ``"1234,50"`` in
        ``de_DE``, ``"500"`` for 500 yen (no symbol, no grouping; ``parse`` reads it back)."""
        pattern = "0." + "0" * self.digits if self.digits else "0"
        return format_decimal(self._major(_minor_units(cents)), format=pattern, locale=self.locale)

    def piece(self, cents: int) -> str:
        """A note's or a coin's value as people name it: a whole amount without decimals
        (``"$20"``, ``"20 €"``, ``"¥1,000"``), else as ``__call__`` writes it (``"$0.25"``)."""
        if _minor_units(cents) % 10 ** self.digits:
            return self(cents)
        return _written(cents, self.currency, self.locale, whole=True)

    @cached_property
    def symbol(self) -> str:
        """The currency's symbol as the locale writes it: ``"€"``, ``"$"``, ``"US$"`` in ``en_CA``."""
        return get_currency_symbol(self.currency, self.locale).translate(FONT_SAFE)

    @property
    def example(self) -> str:
        """An amount as the cashier should type it: ``"12.50"``, ``"12,50"``, ``"500"``."""
        return self.field(1250 * 10 ** (self.digits - 2) if self.digits >= 2 else 500)

    def percent(self, rate: Decimal) -> str:
        """A tax rate (a percentage) as the locale writes it, with the decimals it has:
        ``Decimal("8.25")`` is ``"8,25 %"`` in ``de_DE``, ``"8.25 %"`` in ``en_US``: next to an
        amount field, a rate written otherwise than the amounts misleads."""
        exponent = rate.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return f"{format_decimal(rate, format='0.' + '0' * places if places else '0', locale=self.locale)} %"

    def parse(self, text: str) -> int | None:
        """Typed ``text`` as minor units; None when there is nothing but spaces.

        Read by the locale's decimal and group separators (``"1.234,50"`` in ``de_DE``,
        ``"1,234.50"`` in ``en_US``; any kind of space where the locale groups with one);
        the currency's symbol or code and spaces around the number are allowed. Refused
        with an ``AmountError`` (its sentence shows an example in the store's format): a
        number grouped or separated otherwise (Babel's strict parsing: ``"12.50"`` in
        ``de_DE``, ``"1,2,3"`` in ``en_US``), a sign, letters (``nan``, ``inf``, ``1e5``),
        more decimals than the currency has (``"12.505"`` in USD, ``"500.5"`` in JPY),
        more than ``AMOUNT_MAX``."""
        shown = text.strip(_SPACES)
        if not shown:
            return None
        number, negative = self._bare(shown)
        if negative:
            raise self._refused(AmountProblem.NEGATIVE, shown, _("it is negative"))
        group, decimal = self._separators
        if group in _SPACES:
            number = re.sub(f"[{_SPACES}]", group, number)
        elif group in _APOSTROPHES:
            number = re.sub(f"[{_APOSTROPHES}]", group, number)
        if not any(c in _DIGITS for c in number) or any(c not in _DIGITS + _SEPARATORS + group for c in number):
            raise self._refused(AmountProblem.NOT_A_NUMBER, shown)
        if any(c not in _DIGITS + group + decimal for c in number):  # "12.50" where a comma separates
            raise self._refused(AmountProblem.SEPARATORS, shown, _(_WRITTEN_OTHERWISE))
        try:
            value = parse_decimal(number, locale=self.locale, strict=True)
        except NumberFormatError:
            raise self._refused(AmountProblem.SEPARATORS, shown, _(_WRITTEN_OTHERWISE)) from None
        exponent = value.as_tuple().exponent
        assert isinstance(exponent, int)  # a finite number: only digits and separators were let through
        if -exponent > self.digits:
            why = (ngettext("{currency} has {count} decimal", "{currency} has {count} decimals", self.digits)
                   if self.digits else _("{currency} has no decimals")).format(currency=self.currency,
                                                                               count=self.digits)
            raise self._refused(AmountProblem.DECIMALS, shown, why)
        cents = int(value.scaleb(self.digits))
        if cents > AMOUNT_MAX:
            raise self._refused(AmountProblem.TOO_LARGE, shown, _("at most {amount}").format(amount=self(AMOUNT_MAX)))
        return cents

    # the parser's parts -----------------------------------------------------------------

    def _major(self, cents: int) -> Decimal:
        return Decimal(cents).scaleb(-self.digits)

    @cached_property
    def _separators(self) -> tuple[str, str]:
        return get_group_symbol(self.locale), get_decimal_symbol(self.locale)

    @cached_property
    def _symbols(self) -> tuple[str, ...]:
        """What may stand for the currency around a typed number, longest first: its code,
        the locale's symbol (as written, and as CLDR has it) and English's (``"US$"`` and
        ``"$"``; ``"￥"`` and ``"¥"``)."""
        marks = {self.currency, self.symbol, get_currency_symbol(self.currency, self.locale),
                 get_currency_symbol(self.currency, "en")}
        return tuple(sorted(marks, key=len, reverse=True))

    def _bare(self, text: str) -> tuple[str, bool]:
        """``text`` without the currency's symbols, signs and spaces at either end; and
        whether a minus sign was among them."""
        negative = False
        while True:
            before = text
            text = text.strip(_SPACES)
            if text and (text[0] in _MINUS or text[-1] in _MINUS):
                negative = True
                text = text[1:] if text[0] in _MINUS else text[:-1]
            for mark in self._symbols:
                if text[:len(mark)].casefold() == mark.casefold():
                    text = text[len(mark):]
                elif text[-len(mark):].casefold() == mark.casefold():
                    text = text[:-len(mark)]
            if not text or text == before:
                return text, negative

    def _refused(self, problem: AmountProblem, shown: str, why: str = "") -> AmountError:
        text = (_("{text} is not an amount: {why}; type an amount like {example}") if why
                else _("{text} is not an amount; type an amount like {example}"))
        return AmountError(problem, text.format(text=repr(shown), why=why, example=self.example))


def _minor_units(cents: int) -> int:
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(  # not for people
            f"money is an integer number of minor units (cents), not {type(cents).__name__}")  # not for people
    return cents


@lru_cache(maxsize=16384)
def _written(cents: int, currency: str, locale: str, *, whole: bool = False) -> str:
    """The text of one amount (a list of payments writes the same few amounts again and
    again: Babel takes some 40 µs for each); ``whole``: without the decimals (the
    locale's currency pattern without ``.00``, for an amount that has none).

    With CLDR's currency spacing, which Babel does not apply: a symbol that ends (or
    starts) with a letter is kept apart from the digits by a no-break space (``CHF 12.50``
    in ``en_US``, not ``CHF12.50``)."""
    major = Decimal(cents).scaleb(-get_currency_precision(currency))
    if whole:
        pattern = Locale.parse(locale).currency_formats["standard"].pattern.replace(".00", "")
        text = format_currency(major, currency, format=pattern, locale=locale, currency_digits=False)
    else:
        text = format_currency(major, currency, locale=locale)
    text = text.translate(FONT_SAFE)
    symbol = get_currency_symbol(currency, locale).translate(FONT_SAFE)
    at = text.find(symbol)
    if at < 0:
        return text
    end = at + len(symbol)
    if symbol[-1].isalpha() and text[end:end + 1].isdigit():
        text = f"{text[:end]}{NBSP}{text[end:]}"
    if symbol[0].isalpha() and text[at - 1:at].isdigit():
        text = f"{text[:at]}{NBSP}{text[at:]}"
    return text
