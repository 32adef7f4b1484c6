"""Finding an attempt whose answer was lost, by the attempt id its request carried.

Every money-moving request names its attempt in the user-agent; the service records it
as ``userAgent`` on the transaction. Paging the transaction list newest first finds the
attempt again without resending anything.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pos_app.api.client import PaymentsClient
from pos_app.api.models import TransactionEntry

PAGE_SIZE = 50
MAX_PAGES = 40
CLOCK_SLACK = timedelta(minutes=15)


def names_attempt(user_agent: str | None, attempt_id: str) -> bool:
    return bool(user_agent) and re.search(rf"\battempt {re.escape(attempt_id)}(?=[;)\s]|$)", user_agent) is not None


async def find_attempt(client: PaymentsClient, attempt_id: str, since: datetime) -> TransactionEntry | None:
    """The transaction whose user-agent names ``attempt_id``, or None if the service has none.

    Stops at entries older than ``since`` (less a clock slack) or after ``MAX_PAGES``.
    """
    oldest = since - CLOCK_SLACK
    for page in range(1, MAX_PAGES + 1):
        listing = await client.list_transactions(page=page, limit=PAGE_SIZE)
        for entry in listing.data:
            if names_attempt(entry.user_agent, attempt_id):
                return entry
        if not listing.data or _older_than(listing.data[-1], oldest):
            return None
        if listing.meta.total_pages is not None and page >= listing.meta.total_pages:
            return None
    return None


def _older_than(entry: TransactionEntry, oldest: datetime) -> bool:
    if not entry.created_at:
        return False
    try:
        created = datetime.fromisoformat(entry.created_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    if created.tzinfo is None:
        return False
    return created < oldest
