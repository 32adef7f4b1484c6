"""Which attempts the service has recorded a payment for, from the newest page of its
transaction list: a hint for the poll scheduler, never an outcome.

One read of the list tells about every message of the key at once, where a poll tells
about one: with several messages waiting, the scheduler reads the list before a slot and
polls first the messages whose attempts it names (their payment is recorded: their
message is most likely complete). The outcome still comes from polling the message.

A read can only tell when its page holds the newest entries: the list's first page when
it runs newest first, or when it is the whole list. An entry names an attempt only by the
id it carries (``lookup.attempt_of``). A read is tried once (a late hint is worth
nothing). It tells nothing (None) when it fails (logged) or when the list runs another way
(said once: the scheduler then polls by its model alone); a 429 is raised, for the
scheduler to hold its reads.
"""

from __future__ import annotations

import logging

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import PaymentsError, RateLimited
from pos_app.terminal.lookup import attempt_of, list_order

log = logging.getLogger(__name__)

NEWEST_PAGE_SIZE = 20
"""Entries read per hint: more than the lanes of a store have in flight."""


class ListedAttempts:
    """Reads the first page of the key's transaction list; returns the attempts it names."""

    def __init__(self, client: PaymentsClient) -> None:
        self.client = client
        self._said_unordered = False

    async def __call__(self) -> frozenset[str] | None:
        try:
            listing = await self.client.list_transactions(page=1, limit=NEWEST_PAGE_SIZE, retry=False)
        except RateLimited:
            raise
        except PaymentsError as error:
            log.info("transaction list not read for poll hints: %s", error)
            return None
        pages = listing.meta.total_pages
        whole = (pages is not None and pages <= 1) or len(listing.data) < NEWEST_PAGE_SIZE
        if not whole and list_order(listing.data) != "newest":
            if not self._said_unordered:
                log.info("the transaction list's first page is not its newest entries: no poll hints from it")
                self._said_unordered = True
            return None
        return frozenset(named for named in map(attempt_of, listing.data) if named is not None)
