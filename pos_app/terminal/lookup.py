"""Reading the service's transaction list: to find an attempt whose answer was lost, and
to reconcile a day of the journal.

Every money-moving request names its attempt in the user-agent; the service records it
as ``userAgent`` on the transaction. Paging the transaction list newest first finds the
attempt again without resending anything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import attempt_in
from pos_app.api.models import TransactionEntry

PAGE_SIZE = 50
MAX_PAGES = 200
CLOCK_SLACK = timedelta(minutes=15)


async def transactions_since(client: PaymentsClient, oldest: datetime) -> AsyncIterator[TransactionEntry]:
    """Transactions newest first, until one older than ``oldest`` or ``MAX_PAGES`` pages."""
    for page in range(1, MAX_PAGES + 1):
        listing = await client.list_transactions(page=page, limit=PAGE_SIZE)
        for entry in listing.data:
            if _older_than(entry, oldest):
                return
            yield entry
        if not listing.data or (listing.meta.total_pages is not None and page >= listing.meta.total_pages):
            return


async def find_attempt(client: PaymentsClient, attempt_id: str, since: datetime) -> TransactionEntry | None:
    """The transaction whose user-agent names ``attempt_id``, or None if the service has none."""
    async for entry in transactions_since(client, since - CLOCK_SLACK):
        if attempt_in(entry.user_agent) == attempt_id:
            return entry
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
