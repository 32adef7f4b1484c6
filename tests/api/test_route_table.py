"""The route table names every operation of the reference, each with a method and a path,
marked spec or assumed as pos-contract.md says, and overridable by a store's config."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from pos_app.api.routes import ROUTES, SHARED_PATHS, RouteTable

REFERENCE_OPERATIONS = {
    # section 4.1: merchant taxes (the only operation named outside 4.2-4.9)
    "tax": 1,
    "ach": 4,  # 4.2: charge, refund, void, list
    # 4.3: charge, capture, void, refund, bulk charge; surcharge rate, acknowledgment, receipt,
    # single payment, payment list (the last five under their own families)
    "card": 5, "surcharge": 2, "receipt": 1, "payment": 1, "transactions": 1,
    "customer": 19,  # 4.4
    "subscription": 9,  # 4.5
    "link": 7,  # 4.6
    "item": 10,  # 4.7
    "terminal": 9,  # 4.8
    "old_link": 7,  # 4.9
}

SPEC_PATHS = {
    # every path the reference (or pos-contract.md quoting it) writes out; the rest are assumed
    "terminal.pay", "terminal.auth", "terminal.capture", "terminal.close_batch", "terminal.poll_message",
    "payment.get", "transactions.list", "tax.list", "item.get", "ach.void", "customer.delete", "customer.ach_add",
    "customer.update_request", "subscription.get", "subscription.upload_attachments",
    "link.list", "link.create", "link.get", "link.delete", "link.send_sms", "link.upload_attachments",
    "old_link.list", "old_link.create", "old_link.get", "old_link.delete",
}


def test_the_table_has_all_76_operations_of_the_reference():
    assert sum(REFERENCE_OPERATIONS.values()) == 76
    assert len(ROUTES) == 76
    assert Counter(route.family for route in ROUTES.values()) == REFERENCE_OPERATIONS


def test_every_operation_has_a_method_a_path_and_a_source():
    for route in ROUTES.values():
        assert route.method in {"GET", "POST", "PUT", "PATCH", "DELETE"}, route
        assert re.fullmatch(r"/public(/[\w{}-]+)+", route.path), route
        assert route.source in {"spec", "assumed"}, route
    assert {name for name, route in ROUTES.items() if route.source == "spec"} == SPEC_PATHS


def test_only_the_default_method_routes_share_a_path():
    by_path = Counter((route.method, route.path) for route in ROUTES.values())
    shared = {tuple(sorted(n for n, r in ROUTES.items() if (r.method, r.path) == key))
              for key, count in by_path.items() if count > 1}
    assert shared == {tuple(sorted(pair)) for pair in SHARED_PATHS}


def test_static_segments_are_not_shadowed_by_an_id():
    """``/public/customer/export`` must not be read as the customer ``export``: the sandbox
    and the contract put static paths first, so no static path may equal a param path's
    filled-in form with a different method-less meaning."""
    statics = {(r.method, r.path) for r in ROUTES.values() if not r.params}
    for route in ROUTES.values():
        if route.params:
            pattern = re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(route.path))
            clashes = [path for method, path in statics if method == route.method and re.fullmatch(pattern, path)]
            # the contract's rule: static segments win; these are the known ones
            for path in clashes:
                assert path.rsplit("/", 1)[-1] in {"export", "template", "ids", "categories"}, (route.name, path)


@pytest.mark.parametrize("name", ["customer.list", "customer.card_add", "link.get", "subscription.retry"])
def test_new_routes_are_overridable_by_config(name):
    route = ROUTES[name]
    new_path = "/public/v2" + route.path.removeprefix("/public")
    table = RouteTable({name: f"{route.method} {new_path}"})
    assert table[name].path == new_path and table[name].source == route.source
    with pytest.raises(ValueError):
        RouteTable({name: "/public/no-params-here"} if route.params else {name: "/public/{x}"})


def test_existing_route_names_keep_working():
    for name in ("terminal.pay", "payment.get", "transactions.list", "receipt.pdf", "surcharge.rate",
                 "surcharge.acknowledgment", "tax.list", "item.list", "item.bulk_duplicate"):
        assert name in ROUTES
