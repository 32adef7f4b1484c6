"""The catalog's item routes (reference 4.7) over a merchant's ``Catalog``
(``pos_app.sandbox.catalog``): list, ids, categories, get, create, update, delete,
duplicate and the bulk routes (not atomic, as the service's are)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_app.sandbox.protocol import Call, Reply, ServiceFailure, invalid, iso_time
from pos_app.sandbox.validation import Fields, page_meta, page_query, page_slice

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

SORT_FIELDS = ("name", "sku", "salesPrice", "createdAt", "updatedAt")
DEFAULT_SORT = "-updatedAt"
MAX_LIST_LIMIT = 1000


def _list(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    page, limit = page_query(call.query, max_limit=MAX_LIST_LIMIT)
    sort_by = call.query.get("sortBy", DEFAULT_SORT)
    if sort_by.removeprefix("-") not in SORT_FIELDS:
        raise invalid([f"sortBy must be one of {', '.join(SORT_FIELDS)}, optionally prefixed with -"])
    key = {
        "name": lambda i: i.name.lower(),
        "sku": lambda i: i.sku,
        "salesPrice": lambda i: i.cents,
        "createdAt": lambda i: i.created_at,
        "updatedAt": lambda i: i.updated_at,
    }[sort_by.removeprefix("-")]
    catalog = book.catalog
    rows = sorted(catalog.live(), key=lambda i: (key(i), i.id), reverse=sort_by.startswith("-"))
    meta = {**page_meta(len(rows), page, limit), "sortBy": sort_by}
    return Reply(200, {"meta": meta, "data": [catalog.json(i, dollars=True) for i in page_slice(rows, page, limit)]})


def _ids(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return Reply(200, [item.id for item in book.catalog.live()])


def _categories(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    client_id = book.merchant.client_id
    return Reply(
        200,
        [
            {"id": c.id, "name": c.name, "clientId": client_id,
             "createdAt": iso_time(c.created_at), "updatedAt": iso_time(c.updated_at)}
            for c in book.catalog.categories.values()
        ],
    )


def _get(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    item = book.catalog.find(call.params["id"], deleted_ok=True)
    return Reply(200, {"data": book.catalog.json(item, dollars=True)})


def _create(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    catalog = book.catalog
    item = catalog.create(catalog.read_changes(call.json_object()))
    return Reply(201, {"data": catalog.json(item, dollars=True)})


def _update(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    catalog = book.catalog
    item = catalog.find(call.params["id"])
    changes = catalog.read_changes(call.json_object(), current=item)
    before = catalog.json(item, dollars=True)
    catalog.update(item, changes)
    return Reply(200, {"data": before})


def _delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    item = book.catalog.find(call.params["id"])
    book.catalog.delete(item)
    return Reply(200, {"data": book.catalog.json(item, dollars=False)})


def _duplicate(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    item = book.catalog.find(call.params["id"])
    copy = book.catalog.duplicate(item, "api")
    return Reply(201, {"data": book.catalog.json(copy, dollars=False)})


def _bulk(action: str) -> Callable[[Sandbox, Book, Call], Reply]:
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        f = Fields(call.json_object())
        item_list = f.array("itemList", min_size=1)
        created_by = f.text("createdBy")
        if item_list is not None and not all(isinstance(i, str) for i in item_list):
            f.fail("each value in itemList must be a string")
        f.check()
        catalog = book.catalog
        failed = []
        for item_id in item_list or []:  # not atomic: earlier items stay processed
            item = catalog.items.get(item_id)
            if item is None or item.deleted_at is not None:
                failed.append(item_id)
            elif action == "delete":
                catalog.delete(item)
            else:
                catalog.duplicate(item, created_by or "api")
        if failed:
            raise ServiceFailure(400, 101, f"items not found: {', '.join(failed)}")
        return Reply(201, {"success": True})

    return handler


HANDLERS = {
    "item.list": _list,
    "item.ids": _ids,
    "item.categories": _categories,
    "item.get": _get,
    "item.create": _create,
    "item.update": _update,
    "item.delete": _delete,
    "item.duplicate": _duplicate,
    "item.bulk_delete": _bulk("delete"),
    "item.bulk_duplicate": _bulk("duplicate"),
}
