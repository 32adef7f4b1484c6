"""Syncing the catalog from the real sandbox over loopback, and from canned answers for the
shapes the sandbox never sends (deleted items in the list, a list that shifts while paged)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from pos_app.api.client import PaymentsClient, RetryPolicy
from pos_app.api.errors import ConnectionFailed, ServerError
from pos_app.api.parsing import RESPONSE_PARSERS
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


async def test_items_and_taxes_with_values_out_of_bounds_are_left_out_and_counted(sandbox, catalog, caplog):
    async with client_for(sandbox) as client:
        huge, nan, too_dear = (i.id for i in (await client.list_items(page=1, limit=3)).data)
        state, city, levy = await client.taxes()
    sandbox.set_item_fields("B", huge, salesPrice=10**17)  # dollars: its cents fit no SQLite integer
    sandbox.set_item_fields("B", nan, salesPrice="NaN")
    sandbox.set_item_fields("B", too_dear, salesPrice=Decimal("1E+15"))  # 10^17 cents: beyond MAX_PRICE_CENTS
    sandbox.set_taxes("B", [{"id": state.id, "name": state.name, "rate": state.rate},
                            {"id": city.id, "name": city.name, "rate": Decimal("1E+30")},
                            {"id": levy.id, "name": levy.name, "rate": "NaN"}])
    async with client_for(sandbox) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 297 == catalog.count() and result.verified
    assert {s.id for s in result.skipped_items} == {huge, nan, too_dear} and result.refetched == 0
    reasons = {s.id: s.reason for s in result.skipped_items}
    assert "too large to be a price" in reasons[huge] and "not a dollar amount: 'NaN'" in reasons[nan]
    assert "beyond the 1000000000 cents" in reasons[too_dear]
    assert [(s.id, s.reason) for s in result.skipped_taxes] == [
        (city.id, f"tax 'City tax': a rate of {10**30} % is not from 0 to 100 %"),
        (levy.id, "tax 'Cultural district levy': rate must be a number, got 'NaN'"),
    ]
    assert list(catalog.taxes()) == [state.id] and catalog.get(huge) is None and catalog.get(nan) is None
    assert "left out 3 items" in caplog.text and huge in caplog.text and "left out 2 taxes" in caplog.text
    assert f"{city.id} (" in caplog.text  # items naming a tax left out are kept, and said
    assert result.left_out == ("The catalog was refreshed, but 3 items and 2 taxes with values pos-app cannot use "
                               "were left out (the log names them): have them fixed in the merchant's catalog.")



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


async def test_the_pages_are_parsed_off_the_event_loop_thread(sandbox, catalog, monkeypatch):
    """The loop is the Qt thread's: a page's decoding and validation must not hold it."""
    parse_page = RESPONSE_PARSERS["item.list"]
    parsed_on: list[int] = []

    def spy(body: Any) -> object:
        parsed_on.append(threading.get_ident())
        return parse_page(body)

    monkeypatch.setitem(RESPONSE_PARSERS, "item.list", spy)
    async with client_for(sandbox) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 300 and len(parsed_on) == 3
    assert threading.get_ident() not in parsed_on


def canned_item(n: int, **extra: Any) -> dict[str, Any]:
    return {"id": f"i{n}", "name": f"Item {n}", "type": "product", "description": "", "salesPrice": "1.25",
            "sku": f"{n:012d}", "categories": [{"id": "c1", "name": "Things"}], "taxes": ["t1"], "deletedAt": None,
            **extra}


def canned(pages: list[list[dict[str, Any]]], ids: list[str] | None, *, meta: dict[str, Any] | None = None,
           fail_items: bool = False, taxes: list[dict[str, Any]] | None = None,
           override: Callable[[httpx.Request], httpx.Response | None] | None = None) -> httpx.MockTransport:
    total = sum(len(p) for p in pages)

    def handler(request: httpx.Request) -> httpx.Response:
        answer = override(request) if override is not None else None
        if answer is not None:
            return answer
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
            listed = taxes if taxes is not None else [{"id": "t1", "name": "Tax", "rate": 8.25}]
            return httpx.Response(200, content=json.dumps(listed))
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


async def test_an_item_read_one_by_one_that_cannot_be_read_is_left_out(catalog):
    pages = [[canned_item(1)]]

    def bad_refetch(request: httpx.Request) -> httpx.Response | None:
        if request.url.path == "/public/item/i2":
            return httpx.Response(200, json={"data": canned_item(2, salesPrice="1e999999")})
        return None

    async with canned_client(canned(pages, ["i1", "i2", "i3"], override=bad_refetch)) as client:
        result = await sync_catalog(client, catalog)
    assert result.count == 2 and result.refetched == 2 and catalog.get("i3") is not None
    [skipped] = result.skipped_items
    assert skipped.id == "i2" and "too large to be a price" in skipped.reason


async def test_taxes_listed_twice_or_without_a_rate_are_left_out(catalog):
    taxes = [{"id": "t1", "name": "Tax", "rate": 8.25}, {"id": "t1", "name": "Tax again", "rate": 9},
             {"id": "t2", "name": "No rate"}, {"id": "t3", "name": "Negative", "rate": -1},
             {"id": "t4", "name": "Fine", "rate": "0.75"}]
    async with canned_client(canned([[canned_item(1)]], ["i1"], taxes=taxes)) as client:
        result = await sync_catalog(client, catalog)
    assert [t.id for t in catalog.taxes().values()] == ["t1", "t4"] and catalog.taxes()["t1"].name == "Tax"
    assert [str(s) for s in result.skipped_taxes] == [
        "t1: tax 'Tax again': its id is listed twice; the first is kept", "t2: tax 'No rate' has no rate",
        "t3: tax 'Negative': a rate of -1 % is not from 0 to 100 %",
    ]
