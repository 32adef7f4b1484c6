"""Syncing the catalog from the real sandbox over loopback, and from canned answers for the
shapes the sandbox never sends (deleted items in the list, a list that shifts while paged)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from pos_app.api.client import PaymentsClient, RetryPolicy
from pos_app.api.errors import ConnectionFailed, ServerError
from pos_app.catalog import Catalog, SyncError, sync_catalog
from pos_app.catalog import sync as sync_module

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
B_TAXES = {"State sales tax": Decimal("6.25"), "City tax": Decimal("2.00"), "Cultural district levy": Decimal("0.75")}
B_CATEGORIES = ["Fiction", "Non-fiction", "Children's Books", "Cookbooks", "Maps & Travel", "Stationery", "Cafe",
                "Deals"]


@pytest.fixture
def catalog(tmp_path):
    opened = Catalog.open(tmp_path / "catalog.sqlite3")
    yield opened
    opened.close()


def client_for(sandbox, key: str = "B", transport: httpx.AsyncBaseTransport | None = None) -> PaymentsClient:
    return PaymentsClient(sandbox.base_url, sandbox.keys[key], retry=FAST_RETRY, transport=transport)


async def test_sync_copies_the_sandbox_catalog(sandbox, catalog):
    async with client_for(sandbox) as client:
        result = await sync_catalog(client, catalog)
        service_items = {i.id: i for p in (1, 2, 3) for i in (await client.list_items(page=p, limit=100)).data}
    assert result.count == 300 == catalog.count() == len(service_items)
    assert result.pages == 3 and result.verified and result.refetched == 0
    assert result.synced_at == catalog.synced_at() and result.synced_at.tzinfo is not None
    assert 0 < result.seconds < 30
    assert {t.name: t.rate for t in catalog.taxes().values()} == B_TAXES
    assert catalog.categories() == B_CATEGORIES
    for service_item in service_items.values():
        local = catalog.get(service_item.id)
        assert local is not None
        assert local.price_cents == service_item.sales_price and local.sku == service_item.sku
        assert local.category == service_item.categories[0].name
        assert local.tax_ids == tuple(service_item.taxes)
    deals = catalog.in_category("Deals")
    assert len(deals) == 6 and all(d.price_cents < 0 and d.tax_ids == () for d in deals)
    scanned = next(iter(service_items.values()))
    assert catalog.by_code(scanned.sku) == catalog.get(scanned.id)
    assert catalog.search(scanned.name)[0].name == scanned.name


async def test_search_after_a_sync(sandbox, catalog):
    async with client_for(sandbox) as client:
        await sync_catalog(client, catalog)
    assert [i.name for i in catalog.search("oat lat")] == ["Oat milk Latte"]
    assert all(i.category == "Cafe" for i in catalog.search("cafe"))
    latte = catalog.search("oat lat")[0]
    assert [i.name for i in catalog.search(latte.sku[:8])][:1] == ["Oat milk Latte"]


async def test_each_merchant_gets_its_own_catalog(sandbox, tmp_path):
    with Catalog.open(tmp_path / "s.sqlite3") as s_catalog:
        async with client_for(sandbox, "S") as client:
            await sync_catalog(client, s_catalog)
        assert "Produce" in s_catalog.categories()
        assert s_catalog.search("oat milk lat") == []


async def test_deleted_items_are_gone_after_the_next_sync(sandbox, catalog):
    async with client_for(sandbox) as client:
        await sync_catalog(client, catalog)
        victim = catalog.in_category("Fiction")[0]
        await client.delete_item(victim.id)
        result = await sync_catalog(client, catalog)
    assert result.count == 299
    assert catalog.get(victim.id) is None and catalog.by_code(victim.sku) is None


async def test_a_sync_failing_on_page_one_keeps_the_old_catalog(sandbox, catalog):
    async with client_for(sandbox) as client:
        first = await sync_catalog(client, catalog)
        victim = catalog.in_category("Fiction")[0]
        await client.delete_item(victim.id)
        sandbox.inject("item.list", 503, count=10)
        with pytest.raises(ServerError):
            await sync_catalog(client, catalog)
    assert catalog.count() == 300 and catalog.synced_at() == first.synced_at
    assert catalog.get(victim.id) == victim


class FailPage(httpx.AsyncHTTPTransport):
    """Forwards to the sandbox, but the connection breaks on one page of the item list."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/public/item" and request.url.params.get("page") == self.page:
            raise httpx.ConnectError("cable pulled", request=request)
        return await super().handle_async_request(request)


async def test_a_sync_failing_halfway_keeps_the_old_catalog(sandbox, catalog):
    async with client_for(sandbox) as client:
        first = await sync_catalog(client, catalog)
        await client.delete_item(catalog.in_category("Cafe")[0].id)
    async with client_for(sandbox, transport=FailPage("3")) as broken:
        with pytest.raises(ConnectionFailed):
            await sync_catalog(broken, catalog)
    assert catalog.count() == 300 and catalog.synced_at() == first.synced_at


class ChangeWhilePaging(httpx.AsyncHTTPTransport):
    """Forwards to the sandbox; before page 2 is served, an item of page 3 is updated, so it
    jumps to page 1 (the list is sorted by -updatedAt) and plain paging would miss it."""

    def __init__(self, sandbox: Any, victim: dict[str, Any]) -> None:
        super().__init__()
        self.sandbox = sandbox
        self.victim = victim
        self.done = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self.done and request.url.path == "/public/item" and request.url.params.get("page") == "2":
            self.done = True
            body = {"name": self.victim["name"] + " (2nd ed.)", "categories": self.victim["categories"],
                    "taxes": self.victim["taxes"]}
            async with httpx.AsyncClient(base_url=self.sandbox.base_url,
                                         headers={"key-hash": self.sandbox.keys["B"]}) as side:
                (await side.patch(f"/public/item/{self.victim['id']}", json=body)).raise_for_status()
        return await super().handle_async_request(request)


async def test_an_item_moved_by_an_update_during_the_sync_is_not_lost(sandbox, catalog):
    async with httpx.AsyncClient(base_url=sandbox.base_url, headers={"key-hash": sandbox.keys["B"]}) as raw:
        victim = (await raw.get("/public/item", params={"page": 3, "limit": 100})).json()["data"][50]
    async with client_for(sandbox, transport=ChangeWhilePaging(sandbox, victim)) as client:
        result = await sync_catalog(client, catalog, concurrency=1)
    assert result.count == 300 == catalog.count()
    assert result.refetched == 1
    assert catalog.get(victim["id"]).name == victim["name"] + " (2nd ed.)"


# ---------------------------------------------------------------- canned answers


def canned_item(n: int, **extra: Any) -> dict[str, Any]:
    return {"id": f"i{n}", "name": f"Item {n}", "type": "product", "description": "", "salesPrice": "1.25",
            "sku": f"{n:012d}", "categories": [{"id": "c1", "name": "Things"}], "taxes": ["t1"], "deletedAt": None,
            **extra}


def canned(pages: list[list[dict[str, Any]]], ids: list[str] | None, *, meta: dict[str, Any] | None = None,
           fail_items: bool = False) -> httpx.MockTransport:
    total = sum(len(p) for p in pages)

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/public/item":
            page = int(request.url.params.get("page", "1"))
            data = pages[page - 1] if page <= len(pages) else []
            page_meta = meta if meta is not None else {"count": total, "totalPages": len(pages), "page": page,
                                                       "limit": 100}
            return httpx.Response(200, json={"meta": page_meta, "data": data})
        if path == "/public/item/ids":
            if ids is None:
                return httpx.Response(404, json={"statusCode": 404, "message": "Cannot GET /public/item/ids"})
            return httpx.Response(200, json=ids)
        if path == "/public/tax":
            return httpx.Response(200, content=json.dumps([{"id": "t1", "name": "Tax", "rate": 8.25}]))
        if path == "/public/item/categories":
            return httpx.Response(200, json=[{"id": "c1", "name": "Things"}])
        if path.startswith("/public/item/"):
            item_id = path.rsplit("/", 1)[1]
            if fail_items:
                return httpx.Response(500, json={"statusCode": 500, "message": "boom"})
            return httpx.Response(200, json={"data": canned_item(int(item_id[1:]))})
        return httpx.Response(404, json={"statusCode": 404, "message": "no"})

    return httpx.MockTransport(handler)


def canned_client(transport: httpx.MockTransport) -> PaymentsClient:
    return PaymentsClient("http://127.0.0.1:9", "k", retry=FAST_RETRY, transport=transport)


async def test_items_marked_deleted_in_the_list_are_skipped(catalog):
    pages = [[canned_item(1), canned_item(2, deletedAt="2026-01-01T00:00:00Z")], [canned_item(3)]]
    async with canned_client(canned(pages, ["i1", "i3"])) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 2 and result.skipped_deleted == 1
    assert catalog.get("i2") is None
    assert catalog.get("i1").price_cents == 125
    assert catalog.taxes()["t1"].rate == Decimal("8.25")


async def test_duplicates_across_pages_are_kept_once_and_items_deleted_meanwhile_dropped(catalog):
    pages = [[canned_item(1), canned_item(2)], [canned_item(2), canned_item(3)]]
    async with canned_client(canned(pages, ["i1", "i2"])) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 2 and catalog.get("i3") is None


async def test_without_the_id_route_the_sync_is_unverified(catalog):
    async with canned_client(canned([[canned_item(1)]], None)) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 1 and not result.verified


async def test_too_many_missed_items_fail_the_sync(catalog, monkeypatch):
    monkeypatch.setattr(sync_module, "MAX_REFETCH", 2)
    async with canned_client(canned([[canned_item(1)]], [f"i{n}" for n in range(1, 6)])) as client:
        with pytest.raises(SyncError, match="changed while it was synced"):
            await sync_catalog(client, catalog)
    assert catalog.count() == 0 and catalog.synced_at() is None


async def test_a_failing_refetch_fails_the_sync(catalog):
    async with canned_client(canned([[canned_item(1)]], ["i1", "i2"], fail_items=True)) as client:
        with pytest.raises(ServerError):
            await sync_catalog(client, catalog)
    assert catalog.count() == 0


async def test_a_list_without_paging_facts_is_refused(catalog):
    async with canned_client(canned([[canned_item(1)]], ["i1"], meta={"page": 1})) as client:
        with pytest.raises(SyncError, match="neither totalPages nor count"):
            await sync_catalog(client, catalog)


async def test_an_empty_catalog_syncs(catalog):
    async with canned_client(canned([], [], meta={"count": 0, "totalPages": 0})) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 0 and catalog.synced_at() == result.synced_at
