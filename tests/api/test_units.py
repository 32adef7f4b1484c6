"""The money-unit table (reference section 2.1), one trap per route family: every route
has its units, and each family's odd unit is converted exactly at the edge."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pos_app.api.errors import InvalidInput
from pos_app.api.parsing import parse_answer
from pos_app.api.routes import ROUTES
from pos_app.api.units import from_wire, request_unit, response_unit, to_wire, units
from pos_app.api.wire import encode_json


def test_every_route_has_money_units():
    for name in ROUTES:
        units(name)  # raises for a family nobody placed


@pytest.mark.parametrize("name", ["card.charge", "card.capture", "card.void", "card.refund", "card.bulk_charge",
                                  "ach.charge", "ach.refund", "ach.void", "receipt.pdf", "surcharge.rate"])
def test_charges_refunds_voids_captures_bulk_receipts_and_quotes_are_cents(name):
    assert units(name).request == "cents" and to_wire(1250, request_unit(name)) == 1250
    with pytest.raises(InvalidInput, match="whole cents"):
        from_wire(Decimal("12.50"), response_unit(name))  # a dollar value where cents are due


def test_transaction_list_entries_are_cents():
    assert units("transactions.list").response == "cents" and from_wire(1250, "cents") == 1250


def test_terminal_amounts_are_cents():
    assert request_unit("terminal.pay") == "cents" and to_wire(10_000_000, "cents") == 10_000_000


def test_catalog_items_are_dollars_except_delete_and_duplicate():
    for name in ("item.list", "item.create", "item.update", "item.get"):
        assert units(name).response == "dollars"
    for name in ("item.delete", "item.duplicate"):
        assert units(name).response == "cents"
    item = {"id": "i1", "name": "Tea", "salesPrice": Decimal("12.50")}
    assert parse_answer("item.get", encode_json({"data": item})).sales_price == 1250
    assert parse_answer("item.delete", encode_json({"data": {**item, "salesPrice": 1250}})).sales_price == 1250
    with pytest.raises(Exception, match="whole cents"):
        parse_answer("item.delete", encode_json({"data": item}))


def test_payment_links_202104_create_and_list_in_cents_but_the_view_in_dollars():
    assert request_unit("link.create") == response_unit("link.create") == "cents"
    assert response_unit("link.list") == "cents"
    assert response_unit("link.get") == "dollars"
    assert from_wire(Decimal("12.5"), response_unit("link.get"), field="totalAmount") == 1250
    assert from_wire(1250, response_unit("link.list")) == 1250
    with pytest.raises(InvalidInput):
        from_wire(Decimal("12.5"), response_unit("link.list"))


def test_deprecated_links_take_whole_dollars_and_answer_dollars():
    assert request_unit("old_link.create") == "whole_dollars"
    assert to_wire(1200, "whole_dollars") == 12
    with pytest.raises(InvalidInput, match="whole number of dollars"):
        to_wire(1250, "whole_dollars")  # 12.50 cannot be sent to the deprecated create
    for name in ("old_link.list", "old_link.get", "old_link.create"):
        assert response_unit(name) == "dollars"
    assert from_wire(Decimal("12.00"), response_unit("old_link.list")) == 1200


def test_subscriptions_are_cents_but_the_list_amount_filter_is_dollars():
    assert request_unit("subscription.create") == "cents"
    assert to_wire(1250, request_unit("subscription.create")) == 1250
    assert request_unit("subscription.list") == "dollars"
    assert to_wire(1250, request_unit("subscription.list")) == Decimal("12.50")
    assert encode_json({"amount": to_wire(1250, "dollars")}) == b'{"amount":12.50}'
    assert response_unit("subscription.list") == "cents"


def test_customer_vaults_and_taxes_carry_no_money():
    for name in ("customer.list", "customer.create", "customer.card_add", "tax.list"):
        assert units(name).request is None and units(name).response is None
    with pytest.raises(ValueError):
        request_unit("customer.create")


@pytest.mark.parametrize("value", [True, 12.5, None, [1], "abc", Decimal("0.001")])
def test_from_wire_refuses_what_is_no_amount(value):
    with pytest.raises(InvalidInput):
        from_wire(value, "dollars")


def test_no_float_ever_crosses():
    with pytest.raises(InvalidInput):
        from_wire(12.5, "dollars")
    assert isinstance(to_wire(1999, "dollars"), Decimal) and to_wire(1999, "dollars") == Decimal("19.99")
