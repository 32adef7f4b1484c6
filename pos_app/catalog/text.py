"""Typed text made safe for FTS5, and the folded name key used for "starts with" lookups.

Whatever the cashier types is split into words (runs of letters and digits); every other
character (quotes, ``*``, ``-``, ``:``, parentheses, ``^``...) only separates words, so no
FTS5 syntax can reach the query. Each word becomes a quoted prefix term (``"gre"*``) and
the terms are joined with ``AND``: ``NEAR``, ``OR`` or ``NOT`` typed by the cashier are
words like any other. Case and accents are left to the tokenizer (``unicode61
remove_diacritics 2``), which treats the quoted term exactly like the indexed text.
"""

from __future__ import annotations

import re
import unicodedata

MAX_WORDS = 8
"""Words of a query beyond this are ignored (a barcode scanner or a paste cannot build a huge query)."""

MAX_WORD_LENGTH = 64


_WORD = re.compile(r"[^\W_]+")
"""A run of letters and digits: exactly the characters ``str.isalnum`` accepts."""


def words(text: str) -> list[str]:
    """Runs of letters and digits of ``text``, at most ``MAX_WORDS`` of them, each cut at ``MAX_WORD_LENGTH``."""
    found: list[str] = []
    for match in _WORD.finditer(unicodedata.normalize("NFC", text)):
        found.append(match.group()[:MAX_WORD_LENGTH])
        if len(found) == MAX_WORDS:
            break
    return found


def fold(word: str) -> str:
    """Lower case without accents: ``"Crème"`` → ``"creme"``."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def name_key(text: str) -> str:
    """The folded words of ``text``, each followed by one space: ``"Eggs (dozen)"`` → ``"eggs dozen "``.

    Item names are stored with their key; a typed text whose key (``typed_key``) is a
    prefix of an item's key is a "starts with" match (``"EGGS (doz"`` finds ``"Eggs (dozen)"``).
    """
    if text.isascii():
        found = _WORD.findall(text.lower())
    else:
        found = [fold(w) for w in _WORD.findall(unicodedata.normalize("NFC", text))]
    return "".join(w + " " for w in found)


def typed_key(text: str) -> str:
    """The key typed text is compared with item keys by: its folded words joined by spaces,
    plus a space when the text ends after a whole word, so ``"red "`` finds "Red Peppers"
    but not "Redwood Honey" while ``"red"`` finds both."""
    text = unicodedata.normalize("NFC", text)
    found = words(text)
    key = " ".join(fold(w) for w in found)
    ended = bool(text) and not text[-1].isalnum()
    if found and ended and len(found) < MAX_WORDS and len(found[-1]) < MAX_WORD_LENGTH:
        key += " "
    return key


def prefix_terms(typed_words: list[str]) -> str:
    """The FTS5 expression matching rows that have a word starting with each typed word.

    ``["gre", "app"]`` → ``"gre"* AND "app"*``. Words hold only letters and digits, so the
    quotes cannot be broken out of; a doubled quote is added anyway should that ever change.
    """
    return " AND ".join('"' + w.replace('"', '""') + '"*' for w in typed_words)


def key_upper_bound(key: str) -> str:
    """The smallest text above every text starting with ``key`` (for an index range scan)."""
    return key + "\U0010ffff"
