"""One translation system for the whole app: gettext catalogs, extracted, updated and
compiled with Babel (``make translations``), read here for the Qt screens and the Qt-free
core alike (receipts, reports, refusal sentences, CLI messages).

The convention, everywhere:

- ``_("Paid {amount}").format(amount=...)``: a text for people, with named ``{fields}``
  (a translation may move them; ``f"..."`` cannot be extracted);
- ``ngettext("{count} item", "{count} items", count).format(count=count)``: a text that
  depends on a number (Spanish and French have their own plural rules in the catalogs);
- ``N_("...")`` marks a text kept in a module-level table; whoever shows it calls
  ``_(text)`` then, so it follows the language in force at that moment.

Two languages can be in force at once: the **screen's** (the cashier's, switched at sign-in
by :func:`use_screen_language`) and, inside ``with in_store_language():``, the
store's, for what the customer keeps or sees (receipts, the customer display) and the
reports a store files. English is the source language: a text without a translation shows
in English, never as an error.
"""

from __future__ import annotations

import functools
import gettext
import os
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from babel import Locale

DOMAIN: Final = "pos_app"
LOCALE_DIR: Final = Path(__file__).with_name("locale")
SOURCE_LANGUAGE: Final = "en"
SHIPPED_LANGUAGES: Final = ("en", "es", "fr")
"""The languages whose catalogs ship (English is the source); README: "Adding a language"."""
ENV_LANGUAGE: Final = "POS_LANGUAGE"


LANGUAGE_CODE: Final = re.compile(r"([A-Za-z]{2,3})(?:[_-]([A-Za-z]{4}))?(?:[_-]([A-Za-z]{2}|[0-9]{3}))?")
"""A language code as POSIX and BCP 47 write it: ``es``, ``fr-CA``, ``zh_Hant_TW``
(checked without Babel: the first screen is painted before Babel is imported)."""


class UnknownLanguage(ValueError):
    """Not a language code."""

    def __init__(self, name: str) -> None:
        super().__init__(_("{name} is not a language code; use one of {languages} (e.g. language = \"es\")").format(
            name=repr(name), languages=", ".join(SHIPPED_LANGUAGES)))


def check_language(name: str) -> str:
    """``name`` as a normalised code (``es``, ``fr_CA``); ``UnknownLanguage`` when it is not
    one. A language without a catalog is allowed and shows English."""
    match = LANGUAGE_CODE.fullmatch(name.strip()) if isinstance(name, str) else None
    if match is None:
        raise UnknownLanguage(str(name))
    language, script, territory = match.groups()
    return "_".join(part for part in (language.lower(), script and script.title(), territory and territory.upper())
                    if part)


def os_language() -> str:
    """The OS's language (``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``), English when unset
    or not a language (``C``, ``POSIX``)."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "").split(":")[0].split(".")[0]
        if value and value not in ("C", "POSIX"):
            try:
                return check_language(value)
            except UnknownLanguage:
                continue
    return SOURCE_LANGUAGE


def chosen_store_language(configured: str | None) -> str:
    """The store's language: ``POS_LANGUAGE``, else store.toml's ``language``, else the OS's."""
    from_env = os.environ.get(ENV_LANGUAGE, "").strip()
    if from_env:
        return check_language(from_env)
    return configured or os_language()


@cache
def translations_for(language: str) -> gettext.NullTranslations:
    """The compiled catalog for ``language`` (``fr_CA`` falls back to ``fr``); English (no
    translation) when none ships, and for English, the source, without looking (gettext's
    search imports ``locale``, a millisecond before the first screen's first paint)."""
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True)


_screen: list[str] = [SOURCE_LANGUAGE]
_store: list[str] = [SOURCE_LANGUAGE]
_override: ContextVar[str | None] = ContextVar("pos_app_language", default=None)


def use_screen_language(language: str) -> None:
    """Show the screens (and CLI messages) in ``language`` from now on."""
    _screen[0] = check_language(language)


def screen_language() -> str:
    return _screen[0]


def use_store_language(language: str) -> None:
    """The store's language (store.toml ``language``, ``POS_LANGUAGE`` or the OS's): what the
    customer reads and the reports, and the screens when nobody (or a cashier without a
    language of their own) is signed in."""
    _store[0] = check_language(language)


def store_language_in_force() -> str:
    return _store[0]


def current_language() -> str:
    """The language ``_()`` translates into here: an ``in_language`` block's, else the screen's."""
    return _override.get() or _screen[0]


@contextmanager
def in_language(language: str) -> Iterator[None]:
    """Translate into ``language`` inside this block (this thread or task only): a receipt or
    report rendered for the store while the screen speaks the cashier's language."""
    token = _override.set(check_language(language))
    try:
        yield
    finally:
        _override.reset(token)


def in_store_language() -> AbstractContextManager[None]:
    """A block in the store's language: a receipt, a report, the customer's screen."""
    return in_language(_store[0])


def for_the_store[**P, R](function: Callable[P, R]) -> Callable[P, R]:
    """``function`` made to speak the store's language: what it writes is the store's paper
    (a receipt, a slip, a report), whoever is signed in."""

    @functools.wraps(function)
    def in_the_store_language(*args: P.args, **kwargs: P.kwargs) -> R:
        with in_store_language():
            return function(*args, **kwargs)

    return in_the_store_language


def _(message: str) -> str:
    return translations_for(current_language()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return translations_for(current_language()).ngettext(singular, plural, count)


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark only"
    return message


def babel_locale(language: str | None = None) -> Locale:
    """The Babel locale of ``language`` (default: the one in force), for dates and names."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(language or current_language())
    except (ValueError, UnknownLocaleError):
        return Locale.parse(SOURCE_LANGUAGE)

