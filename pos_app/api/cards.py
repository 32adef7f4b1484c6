"""Card brands spelt one way: the service writes a card's brand (``card.brand``: "Mastercard")
and network (``card.network``: "mastercard") in whatever case it likes, and a card read back
from the transaction list has only the network, so one brand arrives as "Mastercard",
"mastercard", "MasterCard", "MASTERCARD" or "MC". A report that groups by brand must see one.

``card_brand`` folds case, spaces, hyphens, dots and underscores and looks the result up in
``BRANDS`` (the networks the API reference's cards can carry, with the short forms
terminals print); a brand not in the table keeps its own words, capitalised (``"elo"`` is
"Elo"), so that two spellings of it still fold to one. Light: no pydantic, no httpx.
"""

from __future__ import annotations

import re
from functools import lru_cache

# brand names are proper names, written the same in every language
BRANDS: dict[str, str] = {
    "visa": "Visa", "visadebit": "Visa", "visacredit": "Visa", "visaelectron": "Visa",
    "mastercard": "Mastercard", "mc": "Mastercard", "debitmastercard": "Mastercard",
    "amex": "American Express", "americanexpress": "American Express",  # not for people
    "discover": "Discover", "discovercard": "Discover", "disc": "Discover",
    "diners": "Diners Club", "dinersclub": "Diners Club", "dinersclubinternational": "Diners Club",  # not for people
    "jcb": "JCB",
    "unionpay": "UnionPay", "chinaunionpay": "UnionPay", "cup": "UnionPay",
    "maestro": "Maestro", "rupay": "RuPay",
}
"""Folded spelling → the one name the app writes (case and separators folded away)."""
_SEPARATORS = re.compile(r"[\s\-_.]+")


def card_brand(brand: object = None, network: object = None) -> str | None:
    """The one spelling of the card's brand: ``brand`` when the service gave one, else
    ``network``; None when neither is a non-blank text."""
    for text in (brand, network):
        if isinstance(text, str) and text.strip():
            return _named(text)
    return None


@lru_cache(maxsize=256)  # a few spellings, asked once per line of a report
def _named(text: str) -> str:
    words = _SEPARATORS.split(text.strip())
    known = BRANDS.get("".join(words).casefold())
    if known is not None:
        return known
    return " ".join(word[:1].upper() + word[1:].lower() for word in words if word)
