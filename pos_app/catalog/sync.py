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

The event loop is the Qt thread's: the work that grows with the catalog runs off it. The
client parses big answers (each page, the id list) in a worker thread; the id check of step
3 and step 4's whole write are worker-thread work too, sorting and freeing in steps
(``pos_app.catalog.steps``). Items are held as plain tuples (``ItemFields``), which the
garbage collector soon stops tracking. What stays on the loop is a few milliseconds at a time (a
page's items checked as ``CatalogItem``s).

Values are checked at this edge: an item whose price cannot be read or is beyond
``MAX_PRICE_CENTS``, or a tax whose rate is no number from 0 to 100 % (``TaxRate``), is
left out, named in the result (``skipped_items``, ``skipped_taxes``) and logged; the rest
is stored. Items naming a tax the merchant does not list are kept, and logged: a sale
that rang one up before keeps the rate it was rung up with; a new sale refuses it, saying
why (``pos_app.cart``).

Any failure before the commit (a page that still fails after the client's retries, an
answer that is not a list of items or taxes at all, too many items missed) raises and
leaves the previous catalog intact. Cancelling the sync during step 4 does not stop the
commit already under way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterator
from datetime import UTC, datetime
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import NotFound, ProtocolError
from pos_app.api.models import Category, Item, Page, Tax
from pos_app.catalog.errors import SyncError
from pos_app.catalog.models import CatalogItem, Skipped, SyncResult, TaxRate, check_price
from pos_app.catalog.steps import empty_in_steps
from pos_app.catalog.store import Catalog
from pos_app.i18n import _, ngettext

log = logging.getLogger(__name__)

PAGE_SIZE = 100
CONCURRENCY = 4
"""Pages in flight at once: enough to hide the round trips, few enough to be polite."""

MAX_PAGES = 20_000
"""A ``totalPages`` beyond this is refused as nonsense (2,000,000 items at 100 a page)."""

MAX_REFETCH = 500
"""Items missed by the paging that are read one by one; more means the catalog changed
too much during the sync: it fails (old catalog kept) and can simply be run again."""


LOGGED_SKIPS = 20
"""Left-out entries named one by one in the log; beyond that, only counted."""


def catalog_item(item: Item) -> CatalogItem:
    """The service's item as the cashier's: price in cents, first category, tax ids.

    ``ValueError`` for a price beyond ``MAX_PRICE_CENTS`` either way."""
    return CatalogItem(
        id=item.id,
        name=item.name,
        sku=item.sku.strip() if item.sku and item.sku.strip() else None,
        price_cents=check_price(item.sales_price, item.name),
        category=item.categories[0].name if item.categories else None,
        tax_ids=tuple(dict.fromkeys(item.taxes)),
        description=item.description or "",
    )


type ItemFields = tuple[str, str, str | None, int, str | None, tuple[str, ...], str]
"""A ``CatalogItem``'s fields in order, as the sync holds an item until the write. The garbage
collector stops tracking a tuple of plain values after its first collection; 100,000
``CatalogItem``s stay tracked, and each full collection during the sync (whichever thread
runs it) would then stop the event loop for tens of milliseconds."""


def _fields_of(item: CatalogItem) -> ItemFields:
    return (item.id, item.name, item.sku, item.price_cents, item.category, item.tax_ids, item.description)


def tax_rate(tax: Tax) -> TaxRate:
    """The service's tax as the cart's; ``ValueError`` for a rate that is no number from 0 to 100 %."""
    if tax.rate is None:
        if "rate" not in tax.odd_fields:
            raise ValueError(f"tax {tax.name!r} has no rate")  # not for people: the sync logs it
        raise ValueError(f"tax {tax.name!r}: rate must be a number, got {tax.odd_fields['rate']!r}")  # not for people
    return TaxRate(tax.id, tax.name, tax.rate)


def _total_pages(page: Page[Item], page_size: int) -> int:
    meta = page.meta
    if meta.total_pages is not None:
        pages = meta.total_pages
    elif meta.count is not None:
        pages = (meta.count + page_size - 1) // page_size
    else:
        raise SyncError(_("the item list tells neither totalPages nor count; the catalog was not synced"))
    if not 0 <= pages <= MAX_PAGES:
        raise SyncError(_("the item list claims {pages} pages; the catalog was not synced").format(pages=pages))
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
    previous catalog is kept whole. Items and taxes with values that cannot be used are
    left out and named in the result, never a failure.
    """
    if concurrency < 1 or page_size < 1:
        raise ValueError("page_size and concurrency must be at least 1")  # not for people
    started = time.perf_counter()
    items: dict[str, ItemFields] = {}
    left_out: dict[str, Skipped] = {}  # by id: an item seen twice counts once, as last seen
    left_out_unnamed: list[Skipped] = []  # entries without an id
    deleted = 0

    def keep(item: Item) -> None:
        """The item as last seen: stored, or left out for a value that cannot be used."""
        try:
            items[item.id] = _fields_of(catalog_item(item))
        except ValueError as error:
            items.pop(item.id, None)
            left_out[item.id] = Skipped(item.id, str(error))
        else:
            left_out.pop(item.id, None)

    def leave_out(item_id: str | None, reason: str) -> None:
        if item_id is None:
            left_out_unnamed.append(Skipped(None, reason))
        else:
            items.pop(item_id, None)
            left_out[item_id] = Skipped(item_id, reason)

    def take(page: Page[Item]) -> None:
        nonlocal deleted
        for refused in page.refused:
            leave_out(refused.id, refused.reason)
        for item in page.data:
            if item.deleted_at:
                deleted += 1
                continue
            keep(item)

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
        missing = await asyncio.to_thread(_reconcile, live_ids, items, left_out)
        if len(missing) > MAX_REFETCH:
            raise SyncError(
                ngettext("the catalog changed while it was synced ({count} item was missed); "
                         "the previous catalog was kept: sync again",
                         "the catalog changed while it was synced ({count} items were missed); "
                         "the previous catalog was kept: sync again", len(missing)).format(count=len(missing))
            )

        pending = iter(missing)

        async def refetch() -> None:
            for item_id in pending:
                try:
                    item = await client.get_item(item_id)
                except ProtocolError as error:  # this one item's answer cannot be read: leave it out
                    leave_out(item_id, str(error))
                    continue
                if not item.deleted_at:
                    keep(item)

        await _all([refetch() for _ in range(concurrency)])
        refetched = len(missing)

    taxes, skipped_taxes = _usable_taxes(taxes_answer)
    skipped_items = (*left_out.values(), *left_out_unnamed)
    categories = [c.name for c in categories_answer]
    synced_at = clock()
    count, unlisted_taxes = await asyncio.to_thread(_store, catalog, items, taxes, categories, synced_at)
    seconds = time.perf_counter() - started
    log.info("catalog synced: %d items from %d pages in %.2fs (%d refetched, %d deleted skipped)",
             count, max(pages, 1), seconds, refetched, deleted)
    _log_left_out("items", skipped_items)
    _log_left_out("taxes", skipped_taxes)
    _log_unlisted_taxes(unlisted_taxes)
    return SyncResult(
        count=count, seconds=seconds, synced_at=synced_at, pages=max(pages, 1),
        skipped_deleted=deleted, refetched=refetched, verified=verified,
        skipped_items=skipped_items, skipped_taxes=skipped_taxes,
    )


def _reconcile(live_ids: list[str], items: dict[str, ItemFields], left_out: dict[str, Skipped]) -> list[str]:
    """Step 3's check, in a worker thread (at 100,000 ids it would hold the event loop for tens
    of milliseconds): what the id list no longer names is dropped from ``items`` and
    ``left_out``; the ids it names that the pages missed are returned, once each, in its order."""
    live = set(live_ids)
    for gone in [item_id for item_id in items if item_id not in live]:
        del items[gone]
    for gone in [item_id for item_id in left_out if item_id not in live]:
        del left_out[gone]
    return [item_id for item_id in dict.fromkeys(live_ids) if item_id not in items and item_id not in left_out]


def _store(
    catalog: Catalog, items: dict[str, ItemFields], taxes: list[TaxRate], categories: list[str], synced_at: datetime
) -> tuple[int, dict[str, int]]:
    """Step 4, in a worker thread: ``Catalog.replace_all`` and, for the log, the number of items
    naming each tax id that ``taxes`` does not list. Returns (items stored, that count).

    ``items`` is emptied: freeing 100,000 of them is work too, done here in steps
    (``empty_in_steps``) rather than on the loop when the sync returns."""
    listed = {tax.id for tax in taxes}
    naming: dict[str, int] = {}

    def each_item() -> Iterator[CatalogItem]:  # one short-lived CatalogItem at a time
        for fields in items.values():
            item = CatalogItem(*fields)
            for tax_id in item.tax_ids:
                if tax_id not in listed:
                    naming[tax_id] = naming.get(tax_id, 0) + 1
            yield item

    try:
        count = catalog.replace_all(each_item(), taxes=taxes, categories=categories, synced_at=synced_at)
    finally:
        empty_in_steps(items)
    return count, naming


def _usable_taxes(answer: list[Tax]) -> tuple[list[TaxRate], tuple[Skipped, ...]]:
    """The taxes that can be used, in the service's order, and those left out (a bad rate, an id listed twice)."""
    taxes: dict[str, TaxRate] = {}
    skipped: list[Skipped] = []
    for tax in answer:
        if tax.id in taxes:
            reason = f"tax {tax.name!r}: its id is listed twice; the first is kept"  # not for people: logged
            skipped.append(Skipped(tax.id, reason))
            continue
        try:
            taxes[tax.id] = tax_rate(tax)
        except ValueError as error:
            skipped.append(Skipped(tax.id, str(error)))
    return list(taxes.values()), tuple(skipped)


def _log_left_out(what: str, skipped: tuple[Skipped, ...]) -> None:
    if not skipped:
        return
    named = "; ".join(str(entry) for entry in skipped[:LOGGED_SKIPS])
    more = f"; and {len(skipped) - LOGGED_SKIPS} more" if len(skipped) > LOGGED_SKIPS else ""  # not for people: logged
    log.warning("catalog sync left out %d %s with values pos-app cannot use (the rest was stored): %s%s",
                len(skipped), what, named, more)


def _log_unlisted_taxes(naming: dict[str, int]) -> None:
    """Items naming a tax the merchant does not list (or listed with a bad rate): say so once."""
    if naming:
        log.warning("catalog items name taxes the merchant does not list (or listed with a bad rate): %s",
                    ", ".join(f"{tax_id} ({count} items)" for tax_id, count in sorted(naming.items())))
