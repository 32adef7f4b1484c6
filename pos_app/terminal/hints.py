"""Which attempts the service has recorded a payment for, from the newest page of its
transaction list: a hint for the poll scheduler, never an outcome.

One read of the list tells about every message of the key at once, where a poll tells
about one: with several messages waiting, the scheduler spends a slot on a read and polls
first the messages whose attempts it names (their payment is recorded: their message is
most likely complete). The outcome still comes from polling the message itself.

Nothing about the list is assumed beyond what ``lookup`` assumes: a list that runs oldest
first is read from its last page; an entry is matched to an attempt only by the attempt id
it names (``lookup.attempt_of``). A read is tried once (a late hint is worth nothing); one
that fails is logged and names nothing; a 429 is raised, for the scheduler to slow the key
down.
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
    """Reads the newest entries of the key's transaction list; returns the attempts they name."""

    def __init__(self, client: PaymentsClient) -> None:
        self.client = client
        self._page = 1
        """The page that holds the newest entries: the last one for a list that runs oldest first."""

    async def __call__(self) -> frozenset[str]:
        try:
            listing = await self.client.list_transactions(page=self._page, limit=NEWEST_PAGE_SIZE, retry=False)
        except RateLimited:
            raise
        except PaymentsError as error:
            log.info("transaction list not read for poll hints: %s", error)
            return frozenset()
        total = listing.meta.total_pages
        if list_order(listing.data) == "oldest" and total is not None and total > self._page:
            log.info("the transaction list runs oldest first: poll hints read its page %d", total)
            self._page = total
        elif self._page > 1 and not listing.data:  # the list shrank (a new day): start again
            self._page = 1
        return frozenset(named for named in map(attempt_of, listing.data) if named is not None)
