"""``sync_catalog``: the service's catalog, copied into the local ``Catalog`` in one transaction.

1. Page 1 of ``GET /public/item`` tells ``meta.totalPages``; the other pages are fetched a
   few at a time (``concurrency``). Each page is turned into ``CatalogItem``s as it arrives
   (the service's models are not kept), items with ``deletedAt`` are skipped.
2. Taxes, categories and the list of live item ids are read.
3. The id list checks the pages: the service's list is sorted by ``-updatedAt`` by default,
   so an item changed while the sync pages moves to page 1 and shifts the others: one item
   may then be seen twice (kept once) and another missed. Missed ids are read one by one
   (``GET /public/item/{id}``); items no longer in the id list were deleted meanwhile and
   are dropped. If the id route is not available (404) the check is skipped and the result
   says ``verified=False``.
4. ``Catalog.replace_all`` stores everything in ONE transaction, run in a worker thread
   (``asyncio.to_thread``) so the event loop never waits for SQLite.

Any failure before the commit (a page that still fails after the client's retries, a
malformed answer, too many items missed) raises and leaves the previous catalog intact.
Cancelling the sync during step 4 does not stop the commit already under way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import NotFound
from pos_app.api.models import Category, Item, Page, Tax
from pos_app.catalog.errors import SyncError
from pos_app.catalog.models import CatalogItem, SyncResult, TaxRate
from pos_app.catalog.store import Catalog

log = logging.getLogger(__name__)

PAGE_SIZE = 100
CONCURRENCY = 4
"""Pages in flight at once: enough to hide the round trips, few enough to be polite."""

MAX_PAGES = 20_000
"""A ``totalPages`` beyond this is refused as nonsense (2,000,000 items at 100 a page)."""

MAX_REFETCH = 500
"""Items missed by the paging that are read one by one; more means the catalog changed
too much during the sync: it fails (old catalog kept) and can simply be run again."""


def catalog_item(item: Item) -> CatalogItem:
    """The service's item as the cashier's: price in cents, first category, tax ids."""
    return CatalogItem(
        id=item.id,
        name=item.name,
        sku=item.sku.strip() if item.sku and item.sku.strip() else None,
        price_cents=item.sales_price,
        category=item.categories[0].name if item.categories else None,
        tax_ids=tuple(dict.fromkeys(item.taxes)),
        description=item.description or "",
    )


def _total_pages(page: Page[Item], page_size: int) -> int:
    meta = page.meta
    if meta.total_pages is not None:
        pages = meta.total_pages
    elif meta.count is not None:
        pages = (meta.count + page_size - 1) // page_size
    else:
        raise SyncError("the item list tells neither totalPages nor count; the catalog was not synced")
    if not 0 <= pages <= MAX_PAGES:
        raise SyncError(f"the item list claims {pages} pages; the catalog was not synced")
    return pages


async def _all(work: list[Coroutine[Any, Any, None]]) -> None:
    """Run ``work`` together; the first failure cancels the rest and is raised as itself
    (not wrapped in an ``ExceptionGroup``, so callers catch the client's errors as usual)."""
    try:
        async with asyncio.TaskGroup() as group:
            for job in work:
                group.create_task(job)
    except BaseExceptionGroup as group_error:
        first = group_error.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


async def sync_catalog(
    client: PaymentsClient,
    catalog: Catalog,
    *,
    page_size: int = PAGE_SIZE,
    concurrency: int = CONCURRENCY,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> SyncResult:
    """Copy the merchant's catalog from the service into ``catalog``; see the module docstring.

    Raises the client's errors (``pos_app.api.errors``) or ``SyncError``; either way the
    previous catalog is kept whole.
    """
    if concurrency < 1 or page_size < 1:
        raise ValueError("page_size and concurrency must be at least 1")
    started = time.perf_counter()
    items: dict[str, CatalogItem] = {}
    deleted = 0

    def take(page: Page[Item]) -> None:
        nonlocal deleted
        for item in page.data:
            if item.deleted_at:
                deleted += 1
                continue
            items[item.id] = catalog_item(item)

    first = await client.list_items(page=1, limit=page_size)
    pages = _total_pages(first, page_size)
    take(first)
    numbers = iter(range(2, pages + 1))

    async def fetch_pages() -> None:  # ``concurrency`` of these share the page numbers
        for number in numbers:
            take(await client.list_items(page=number, limit=page_size))
            await asyncio.sleep(0)  # let the loop breathe even when answers come at once

    taxes_answer: list[Tax] = []
    categories_answer: list[Category] = []

    async def read_taxes() -> None:
        taxes_answer.extend(await client.taxes())

    async def read_categories() -> None:
        categories_answer.extend(await client.categories())

    await _all([fetch_pages() for _ in range(concurrency)] + [read_taxes(), read_categories()])

    verified = True
    refetched = 0
    try:
        live_ids = await client.item_ids()
    except NotFound:
        log.warning("the item id list is not available (404): the synced catalog is not checked for completeness")
        verified = False
    else:
        live = set(live_ids)
        for gone in [item_id for item_id in items if item_id not in live]:
            del items[gone]
        missing = [item_id for item_id in dict.fromkeys(live_ids) if item_id not in items]
        if len(missing) > MAX_REFETCH:
            raise SyncError(
                f"the catalog changed while it was synced ({len(missing)} items were missed); "
                "the previous catalog was kept: sync again"
            )

        pending = iter(missing)

        async def refetch() -> None:
            for item_id in pending:
                item = await client.get_item(item_id)
                if not item.deleted_at:
                    items[item.id] = catalog_item(item)

        await _all([refetch() for _ in range(concurrency)])
        refetched = len(missing)

    try:
        taxes = [TaxRate(t.id, t.name, t.rate) for t in taxes_answer]
    except ValueError as exc:
        raise SyncError(f"the service's taxes cannot be used ({exc}); the catalog was not synced") from None
    categories = [c.name for c in categories_answer]
    synced_at = clock()
    count = await asyncio.to_thread(
        catalog.replace_all, list(items.values()), taxes=taxes, categories=categories, synced_at=synced_at
    )
    seconds = time.perf_counter() - started
    log.info("catalog synced: %d items from %d pages in %.2fs (%d refetched, %d deleted skipped)",
             count, max(pages, 1), seconds, refetched, deleted)
    return SyncResult(
        count=count, seconds=seconds, synced_at=synced_at, pages=max(pages, 1),
        skipped_deleted=deleted, refetched=refetched, verified=verified,
    )
