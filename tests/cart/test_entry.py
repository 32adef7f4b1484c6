"""How many, as a cashier types it: ``3*`` before the item, a number in the Qty cell."""

from __future__ import annotations

import pytest

from pos_app.cart import MAX_QUANTITY
from pos_app.cart.entry import Entry, read_entry, read_quantity


@pytest.mark.parametrize("typed,read", [
    ("012345678905", Entry(1, "012345678905")),
    ("3*012345678905", Entry(3, "012345678905")),
    (" 12 * green apples ", Entry(12, "green apples")),
    ("3*", Entry(3, "")),
    ("", Entry(1, "")),
    ("apples*", Entry(1, "apples*")),  # a * after words is punctuation of a search
    ("*3", Entry(1, "*3")),
    (f"{MAX_QUANTITY}*x", Entry(MAX_QUANTITY, "x")),
])
def test_a_typed_quantity_is_read_before_the_item(typed, read):
    assert read_entry(typed) == read


@pytest.mark.parametrize("typed", ["0*x", f"{MAX_QUANTITY + 1}*x", "99999999999999999999*x"])
def test_a_quantity_out_of_range_is_said(typed):
    with pytest.raises(ValueError, match=r"is not a quantity: type 1 to 9999, then \* and the item"):
        read_entry(typed)


@pytest.mark.parametrize("typed,quantity", [("5", 5), (" 12 ", 12), ("0", 0), (str(MAX_QUANTITY), MAX_QUANTITY)])
def test_the_qty_cell_takes_whole_numbers_from_0(typed, quantity):
    assert read_quantity(typed) == quantity


@pytest.mark.parametrize("typed", ["", "abc", "-1", "2.5", "1e3", "٣", str(MAX_QUANTITY + 1)])
def test_anything_else_in_the_qty_cell_is_said(typed):
    with pytest.raises(ValueError, match="is not a quantity: type a whole number from 0"):
        read_quantity(typed)
