"""What the sandbox keeps of a merchant's payment links and uploaded attachments: each
link with its amount, the taxes chosen and the tax they come to, its surcharge, what was
paid and by which payment; every link sent (by email or SMS, readable by tests:
``sent_links``); every file uploaded, with its name and size.

The store hangs off the merchant's ``Book`` (``store_of``) without widening it: a fresh
``Book`` (a sandbox reset) starts with no links.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox


class Channel(StrEnum):
    EMAIL = "email"
    SMS = "sms"


@dataclass
class Link:
    """A payment link (a payment-request document of the service); money in cents."""

    id: str
    url: str
    amount: int
    tax_ids: tuple[str, ...]
    tax: int  # what the chosen taxes come to on the amount
    created_at: float
    options: dict[str, Any]  # showBilling, showShipping, applyDiscount as sent
    custom_values: list[dict[str, Any]]
    attachments: list[dict[str, Any]]
    surcharge: int = 0  # of the payments made through the link
    paid: int = 0
    payment_id: str | None = None
    deleted_at: float | None = None

    @property
    def total(self) -> int:
        return self.amount + self.tax

    @property
    def active(self) -> bool:
        return self.deleted_at is None


@dataclass(frozen=True)
class SentLink:
    """A link sent by a send-by-email or send-by-SMS route."""

    link_id: str
    channel: Channel
    to: str
    url: str
    at: float


@dataclass(frozen=True)
class StoredFile:
    """An uploaded attachment: where the service keeps it, its name and size."""

    path: str
    original_name: str
    media_type: str
    size: int


@dataclass
class LinkStore:
    links: dict[str, Link] = field(default_factory=dict)
    sent: list[SentLink] = field(default_factory=list)
    files: dict[str, StoredFile] = field(default_factory=dict)  # by path


_STORES: weakref.WeakKeyDictionary[Book, LinkStore] = weakref.WeakKeyDictionary()


def store_of(book: Book) -> LinkStore:
    """The links and files of ``book``'s merchant (call it holding the sandbox lock)."""
    store = _STORES.get(book)
    if store is None:
        store = _STORES[book] = LinkStore()
    return store


def sent_links(sandbox: Sandbox, merchant: str) -> list[SentLink]:
    """Every link ``merchant`` ("S" or "B") sent, oldest first."""
    with sandbox.lock:
        return list(store_of(sandbox.books[merchant]).sent)


def stored_files(sandbox: Sandbox, merchant: str) -> list[StoredFile]:
    """Every file ``merchant`` uploaded, oldest first."""
    with sandbox.lock:
        return list(store_of(sandbox.books[merchant]).files.values())
