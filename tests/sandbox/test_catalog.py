"""Catalog items and categories: the generated catalog, dollars and cents, CRUD quirks."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pos_app.sandbox.catalog_data import upc_check_digit
from tests.sandbox.helpers import body, call


@pytest.fixture
def taxes(s_client) -> list[str]:
    return [t["id"] for t in body(call(s_client, "tax.list"))]


@pytest.fixture
def category(s_client) -> dict:
    return body(call(s_client, "item.categories"))[0]


def all_items(client) -> list[dict]:
    return body(call(client, "item.list", params={"limit": 1000}))["data"]


def new_item(**fields) -> dict:
    return {"name": "Test soap", "type": "product", "description": "d", "sku": "000000000017", **fields}


def test_generated_catalog(s_client, b_client):
    items = all_items(s_client)
    assert 280 <= len(items) <= 320
    skus = [item["sku"] for item in items]
    assert len(set(skus)) == len(skus)
    assert all(re.fullmatch(r"[0-9]{12}", s) and upc_check_digit(s[:11]) == s[11] for s in skus)
    assert all(isinstance(item["salesPrice"], Decimal) for item in items)
    discounts = [item for item in items if item["salesPrice"] < 0]
    assert discounts and all(item["taxes"] == [] for item in discounts)
    assert any(item["taxes"] for item in items) and all(item["description"] for item in items)
    categories = body(call(s_client, "item.categories"))
    assert 7 <= len(categories) <= 9
    assert all(set(c) == {"id", "name", "clientId", "createdAt", "updatedAt"} for c in categories)
    assert {item["categories"][0]["id"] for item in items} <= {c["id"] for c in categories}
    assert {i["name"] for i in all_items(b_client)} != {i["name"] for i in items}


def test_list_is_paginated_with_sort_by(s_client):
    answer = body(call(s_client, "item.list"))
    meta = answer["meta"]
    assert meta["page"] == 1 and meta["limit"] == 10 and meta["sortBy"] and meta["count"] >= 280
    assert meta["totalPages"] == (meta["count"] + 9) // 10 and len(answer["data"]) == 10
    answer = body(call(s_client, "item.list", params={"sortBy": "salesPrice", "limit": 3}))
    prices = [i["salesPrice"] for i in answer["data"]]
    assert prices == sorted(prices) and prices[0] < 0 and answer["meta"]["sortBy"] == "salesPrice"
    assert call(s_client, "item.list", params={"sortBy": "colour"}).status_code == 400


def test_ids_is_a_bare_array(s_client):
    ids = body(call(s_client, "item.ids"))
    assert isinstance(ids, list) and len(ids) == len(all_items(s_client))
    assert all(re.fullmatch(r"[0-9a-f]{24}", i) for i in ids)


def test_get_item_in_dollars(s_client):
    item = all_items(s_client)[0]
    answer = body(call(s_client, "item.get", id=item["id"]))
    assert answer["data"] == item
    assert call(s_client, "item.get", id="f" * 24).status_code == 404
    assert call(s_client, "item.get", id="nope").status_code == 400


def test_items_are_per_merchant(s_client, b_client):
    assert call(b_client, "item.get", id=all_items(s_client)[0]["id"]).status_code == 404


def test_create_in_dollars_with_a_new_category(s_client, taxes):
    payload = new_item(salesPrice=Decimal("12.34"), taxes=taxes[:1], categories=[{"id": None, "name": "Soaps"}])
    response = call(s_client, "item.create", json=payload)
    assert response.status_code == 201, response.text
    created = body(response)["data"]
    assert created["salesPrice"] == Decimal("12.34") and b'"salesPrice":12.34' in response.content
    assert created["taxes"] == taxes[:1] and created["categories"][0]["name"] == "Soaps"
    assert "Soaps" in {c["name"] for c in body(call(s_client, "item.categories"))}
    assert body(call(s_client, "item.get", id=created["id"]))["data"]["salesPrice"] == Decimal("12.34")


def test_negative_price_only_without_taxes(s_client, taxes, category):
    cat = [{"id": category["id"], "name": category["name"]}]
    response = call(s_client, "item.create", json=new_item(salesPrice=-2, taxes=taxes[:1], categories=cat))
    assert response.status_code == 400
    assert any("negative" in m for m in body(response)["response"]["message"])
    response = call(s_client, "item.create", json=new_item(salesPrice=Decimal("-2.50"), taxes=[], categories=cat))
    assert response.status_code == 201 and body(response)["data"]["salesPrice"] == Decimal("-2.50")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"salesPrice": 0}, "salesPrice"),
        ({"salesPrice": Decimal("1.234")}, "salesPrice"),
        ({"salesPrice": "12.00"}, "salesPrice"),
        ({"salesPrice": True}, "salesPrice"),
        ({"type": ""}, "type"),
        ({"categories": None}, "categories"),
        ({"taxes": None}, "taxes"),
        ({"taxes": ["unknown"]}, "taxes"),
        ({"categories": [{"id": "f" * 24, "name": "x"}]}, "categories.0"),
        ({"categories": [{"id": None, "name": ""}]}, "categories.0"),
    ],
)
def test_create_validation(s_client, taxes, category, change, field):
    payload = new_item(salesPrice=5, taxes=taxes[:1], categories=[{"id": category["id"], "name": category["name"]}])
    payload.update(change)
    payload = {k: v for k, v in payload.items() if v is not None}
    response = call(s_client, "item.create", json=payload)
    assert response.status_code == 400
    messages = body(response)["response"]["message"]
    assert len(messages) == 1 and messages[0].startswith(field)


def test_update_answers_the_item_before_the_update(s_client):
    item = all_items(s_client)[5]
    change = {"name": "Renamed", "salesPrice": Decimal("99.99"), "categories": item["categories"]}
    change["taxes"] = item["taxes"]
    response = call(s_client, "item.update", id=item["id"], json=change)
    assert response.status_code == 200
    before = body(response)["data"]
    assert before["name"] == item["name"] and before["salesPrice"] == item["salesPrice"]
    stored = body(call(s_client, "item.get", id=item["id"]))["data"]
    assert stored["name"] == "Renamed" and stored["salesPrice"] == Decimal("99.99")
    assert stored["description"] == item["description"]


def test_update_needs_categories_and_taxes(s_client):
    item = all_items(s_client)[5]
    response = call(s_client, "item.update", id=item["id"], json={"name": "x"})
    assert response.status_code == 400 and len(body(response)["response"]["message"]) == 2


def test_update_keeps_discounts_free_of_taxes(s_client, taxes):
    discount = next(i for i in all_items(s_client) if i["salesPrice"] < 0)
    change = {"categories": discount["categories"], "taxes": taxes[:1]}
    assert call(s_client, "item.update", id=discount["id"], json=change).status_code == 400


def test_delete_is_soft_and_answers_cents(s_client):
    item = all_items(s_client)[0]
    response = call(s_client, "item.delete", id=item["id"])
    deleted = body(response)["data"]
    assert response.status_code == 200
    assert deleted["salesPrice"] == int(item["salesPrice"] * 100) and isinstance(deleted["salesPrice"], int)
    assert deleted["deletedAt"] is not None
    assert item["id"] not in body(call(s_client, "item.ids"))
    assert item["id"] not in {i["id"] for i in all_items(s_client)}
    still = body(call(s_client, "item.get", id=item["id"]))["data"]
    assert still["deletedAt"] is not None and still["salesPrice"] == item["salesPrice"]
    assert call(s_client, "item.delete", id=item["id"]).status_code == 404


def test_duplicate_answers_cents(s_client):
    item = all_items(s_client)[1]
    response = call(s_client, "item.duplicate", id=item["id"])
    copy = body(response)["data"]
    assert response.status_code == 201 and copy["id"] != item["id"]
    assert copy["salesPrice"] == int(item["salesPrice"] * 100)
    assert copy["id"] in body(call(s_client, "item.ids"))


def test_bulk_delete_and_duplicate(s_client):
    first, second = (i["id"] for i in all_items(s_client)[:2])
    count = len(body(call(s_client, "item.ids")))
    response = call(s_client, "item.bulk_duplicate", json={"itemList": [first, second], "createdBy": "amy"})
    assert body(response) == {"success": True}
    assert len(body(call(s_client, "item.ids"))) == count + 2
    response = call(s_client, "item.bulk_delete", json={"itemList": [first, "f" * 24], "createdBy": "amy"})
    assert response.status_code == 400  # not atomic: the first one is gone anyway
    assert first not in body(call(s_client, "item.ids"))
    assert call(s_client, "item.bulk_delete", json={"itemList": [], "createdBy": "amy"}).status_code == 400
    assert call(s_client, "item.bulk_delete", json={"itemList": [second]}).status_code == 400


# ---------------------------------------------------------------- data only the admin routes make


def test_the_tax_list_answers_what_the_admin_set(sandbox, s_client, b_client, taxes):
    odd = [{"id": taxes[0], "name": "State sales tax", "rate": Decimal("1E+30")}, {"id": "t-x", "name": "X"}]
    assert sandbox.set_taxes("S", odd) == odd
    assert body(call(s_client, "tax.list")) == odd
    assert len(body(call(b_client, "tax.list"))) == 3  # the other merchant's list is its own
    sandbox.set_taxes("S", [])  # every tax deleted: items still name theirs
    assert body(call(s_client, "tax.list")) == []
    assert any(item["taxes"] for item in all_items(s_client))


def test_item_fields_are_answered_as_given(sandbox, s_client):
    item = all_items(s_client)[0]
    shown = sandbox.set_item_fields("S", item["id"], salesPrice=10**17)
    assert shown["salesPrice"] == 10**17 and shown["name"] == item["name"]
    listed = next(i for i in all_items(s_client) if i["id"] == item["id"])
    assert listed["salesPrice"] == 10**17
    sandbox.set_item_fields("S", item["id"], salesPrice="NaN")
    assert body(call(s_client, "item.get", id=item["id"]))["data"]["salesPrice"] == "NaN"


def test_the_data_admin_routes_check_their_requests(sandbox, admin, s_client):
    item_id = all_items(s_client)[0]["id"]
    for path, request in (("/taxes", {"merchant": "X", "taxes": []}), ("/taxes", {"merchant": "S"}),
                          ("/taxes", {"merchant": "S", "taxes": [1]}),
                          ("/item-fields", {"merchant": "S", "id": item_id, "fields": {}}),
                          ("/item-fields", {"merchant": "S", "fields": {"salesPrice": 1}})):
        response = admin.post(path, json=request)
        assert response.status_code == 400 and body(response)["response"]["code"] == 900, (path, request)
    assert admin.post("/item-fields", json={"merchant": "S", "id": "f" * 24,
                                            "fields": {"salesPrice": 1}}).status_code == 404
    with pytest.raises(ValueError, match="refused"):
        sandbox.set_taxes("Q", [])
