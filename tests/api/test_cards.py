"""Card brands: one spelling per brand, whatever case, spacing or short form the service uses."""

from __future__ import annotations

import pytest

from pos_app.api.cards import card_brand


@pytest.mark.parametrize("spelt", ["Mastercard", "mastercard", "MasterCard", "MASTERCARD", " master card ", "MC",
                                   "master-card", "Debit Mastercard"])
def test_every_spelling_of_mastercard_is_one_brand(spelt):
    assert card_brand(spelt) == "Mastercard"


@pytest.mark.parametrize(("spelt", "name"), [
    ("visa", "Visa"), ("VISA DEBIT", "Visa"), ("amex", "American Express"), ("American  Express", "American Express"),
    ("AMERICAN_EXPRESS", "American Express"), ("discover", "Discover"), ("Diners Club", "Diners Club"),
    ("jcb", "JCB"), ("China UnionPay", "UnionPay"), ("RUPAY", "RuPay"),
])
def test_known_brands_take_their_one_name(spelt, name):
    assert card_brand(spelt) == name


def test_the_network_stands_in_when_there_is_no_brand():
    assert card_brand(None, "mastercard") == card_brand("", "MASTERCARD") == "Mastercard"
    assert card_brand("Visa", "mastercard") == "Visa"  # the brand the service gave wins


def test_an_unknown_brand_keeps_its_words_in_one_spelling():
    assert card_brand("elo") == card_brand("ELO") == card_brand("  Elo ") == "Elo"
    assert card_brand("troy  card") == card_brand("TROY Card") == "Troy Card"


@pytest.mark.parametrize("nothing", [None, "", "   ", 42])
def test_no_brand_is_none(nothing):
    assert card_brand(nothing, nothing) is None
