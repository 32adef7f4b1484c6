"""The open-price item (the misc key) in the cart, without Qt: its line, its tax, the bounds
of its price and description, the cart file's round trip, and the tax classes offered."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pos_app.cart import (
    MAX_DESCRIPTION,
    OPEN_PRICE_ITEM,
    OPEN_PRICE_MAX_CENTS,
    OPEN_PRICE_NAME,
    Cart,
    CartStore,
    TaxClass,
    UnknownTax,
    tax_choice,
)
from pos_app.catalog import CatalogItem, TaxRate

STATE = TaxRate("t-state", "State sales tax", Decimal("6.25"))
CITY = TaxRate("t-city", "City tax", Decimal("2.00"))
FOOD = TaxRate("t-food", "Prepared food tax", Decimal("1.50"))
RATES = {t.id: t for t in (STATE, CITY, FOOD)}
GENERAL = (STATE.id, CITY.id)


def test_an_open_price_line_is_a_plain_line_with_no_sku_taxed_as_chosen():
    cart = Cart()
    line = cart.add_open_price("Gift wrap", 499, GENERAL, rates=RATES)
    assert (line.item_id, line.name, line.sku, line.unit_cents, line.quantity, line.tax_ids) == (
        OPEN_PRICE_ITEM, "Gift wrap", None, 499, 1, GENERAL)
    assert line.is_open_price and cart.lines == (line,)
    totals = cart.totals(RATES)
    assert (totals.subtotal, totals.tax, totals.total) == (499, 41, 540)  # 499 × 8.25 % = 41.17: 41
    assert totals.breakdown == {"State sales tax": 31, "City tax": 10}
    assert cart.known_rates == {STATE.id: STATE, CITY.id: CITY}  # kept should the merchant stop listing one


def test_untaxed_and_unnamed_it_is_a_misc_item_at_its_price():
    cart = Cart()
    line = cart.add_open_price("   ", 250, rates=RATES)
    assert line.name == OPEN_PRICE_NAME and line.tax_ids == ()
    assert cart.totals(RATES).total == 250
    assert cart.add_open_price("  Gift \n wrap ", 100, rates=RATES).name == "Gift wrap"  # one line of text


def test_each_misc_item_is_a_line_of_its_own():
    cart = Cart()
    first = cart.add_open_price("Misc item", 300, GENERAL, rates=RATES)
    second = cart.add_open_price("Misc item", 300, (), rates=RATES)  # same price, another tax: another thing
    third = cart.add_open_price("Misc item", 300, (), rates=RATES)
    assert [line.line_id for line in cart.lines] == [first.line_id, second.line_id, third.line_id] == [1, 2, 3]
    assert cart.units == 3 and cart.totals(RATES).per_line == {1: 25, 2: 0, 3: 0}


def test_its_quantity_changes_like_any_line():
    cart = Cart()
    line = cart.add_open_price("Gift wrap", 499, GENERAL, rates=RATES)
    changed = cart.set_quantity(line.line_id, 3)
    assert changed is not None and changed.is_open_price and changed.name == "Gift wrap"
    totals = cart.totals(RATES)
    assert (totals.subtotal, totals.tax) == (1497, 124)  # 1497 × 8.25 % = 123.50: 124
    assert cart.set_quantity(line.line_id, 0) is None and cart.is_empty and cart.known_rates == {}


@pytest.mark.parametrize("cents", [0, -1, -499, OPEN_PRICE_MAX_CENTS + 1, 10**12, True, 4.99, "499"])
def test_a_price_of_nothing_less_or_absurd_is_refused_and_the_cart_stays(cents):
    cart = Cart()
    cart.add_open_price("Kept", 100, rates=RATES)
    before = cart.snapshot()
    with pytest.raises(ValueError, match="open price"):
        cart.add_open_price("Misc item", cents, rates=RATES)
    assert cart.snapshot() == before


def test_the_bounds_themselves_are_taken():
    cart = Cart()
    assert cart.add_open_price("Penny sweet", 1, rates=RATES).unit_cents == 1
    assert cart.add_open_price("Sofa", OPEN_PRICE_MAX_CENTS, rates=RATES).unit_cents == OPEN_PRICE_MAX_CENTS


def test_a_long_description_or_an_unknown_tax_is_refused():
    cart = Cart()
    assert cart.add_open_price("x" * MAX_DESCRIPTION, 100, rates=RATES).name == "x" * MAX_DESCRIPTION
    with pytest.raises(ValueError, match=f"at most {MAX_DESCRIPTION} characters"):
        cart.add_open_price("x" * (MAX_DESCRIPTION + 1), 100, rates=RATES)
    with pytest.raises(UnknownTax, match="t-gone"):
        cart.add_open_price("Gift wrap", 100, (STATE.id, "t-gone"), rates=RATES)
    assert len(cart) == 1


def test_the_cart_file_keeps_it_whole(tmp_path):
    store = CartStore(tmp_path / "cart.json")
    cart = Cart()
    cart.add(CatalogItem(id="id-1", name="Latte", sku="0123", price_cents=450, category="Cafe", tax_ids=GENERAL),
             rates=RATES)
    line = cart.add_open_price("Gift wrap – großes Format", 499, (STATE.id, FOOD.id), rates=RATES)
    cart.set_quantity(line.line_id, 2)
    store.save(cart)
    loaded = store.load()
    assert loaded is not None and loaded.lines == cart.lines and loaded.known_rates == cart.known_rates
    assert loaded.line(line.line_id).is_open_price
    kept, now = loaded.totals({}), cart.totals(RATES)  # the merchant lists no tax now: the rates rung up with
    assert (kept.subtotal, kept.tax, kept.breakdown) == (now.subtotal, now.tax, now.breakdown) == (
        1448, 114, {"State sales tax": 90, "City tax": 9, "Prepared food tax": 15})
    assert loaded.add_open_price("Misc item", 499, (STATE.id, FOOD.id), rates=RATES).line_id == line.line_id + 1


# ---------------------------------------------------------------- the tax classes offered


def labels(classes: tuple[TaxClass, ...]) -> list[str]:
    return [tax_class.label() for tax_class in classes]


def test_each_tax_alone_and_every_set_the_catalog_uses_are_offered():
    used = [((), 126), ((STATE.id, CITY.id), 126), ((FOOD.id, STATE.id, CITY.id), 42)]
    choice = tax_choice(RATES, used)
    assert labels(choice.classes) == [
        "No tax", "State sales tax 6.25 %", "City tax 2.00 %", "Prepared food tax 1.50 %",
        "State sales tax + City tax 8.25 %", "State sales tax + City tax + Prepared food tax 9.75 %"]
    assert choice.default.tax_ids == GENERAL  # as many untaxed items: the higher rate
    assert choice.classes[-1].tax_ids == (STATE.id, CITY.id, FOOD.id)  # the merchant's order


def test_the_default_is_the_class_most_items_carry():
    used = [((STATE.id,), 168), ((STATE.id, CITY.id), 84), ((STATE.id, CITY.id, FOOD.id), 42), ((), 0)]
    assert tax_choice(RATES, used).default.tax_ids == (STATE.id,)
    assert tax_choice(RATES, [((), 3), ((CITY.id, STATE.id), 2), ((STATE.id, CITY.id), 2)]).default.tax_ids == GENERAL


def test_a_set_naming_a_tax_the_merchant_no_longer_lists_is_not_offered():
    choice = tax_choice(RATES, [((STATE.id, "t-gone"), 50), ((), 1)])
    assert labels(choice.classes) == ["No tax", "State sales tax 6.25 %", "City tax 2.00 %",
                                      "Prepared food tax 1.50 %"]
    assert choice.default == TaxClass()


def test_with_no_items_to_go_by_the_only_tax_or_none():
    assert tax_choice({STATE.id: STATE}, []).default.tax_ids == (STATE.id,)
    assert tax_choice(RATES, []).default == TaxClass()
    assert tax_choice({}, [((), 3)]) == tax_choice({}, []) and labels(tax_choice({}, []).classes) == ["No tax"]
