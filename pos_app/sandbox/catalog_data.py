"""The generated starting catalog of each sandbox merchant: about 300 items in 8
categories, with UPC-A barcodes as SKUs, taxes, descriptions and discount lines.

It is deterministic for a seed, so a test (or a cashier trying the app) sees the same
shelf after every reset. The grocery store and the bookshop get different shelves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

ITEMS_PER_SHELF = 42


@dataclass(frozen=True)
class Shelf:
    """One category: how its item names, prices and taxes are made."""

    category: str
    qualifiers: tuple[str, ...]
    nouns: tuple[str, ...]
    price_range: tuple[int, int]  # cents
    taxes: tuple[int, ...]  # indexes into the merchant's taxes
    blurb: str
    type: str = "product"


@dataclass(frozen=True)
class SeedItem:
    name: str
    type: str
    description: str
    cents: int
    sku: str
    category: str
    taxes: tuple[int, ...]


_SHELVES: dict[str, tuple[Shelf, ...]] = {
    "S": (
        Shelf("Produce", ("Organic", "Local", "Fresh", "Baby", "Heirloom", "Sweet", "Red"),
              ("Apples", "Bananas", "Carrots", "Spinach", "Tomatoes", "Potatoes", "Onions", "Peppers"),
              (79, 699), (), "picked up this week from regional farms"),
        Shelf("Dairy & Eggs", ("Whole", "Low-fat", "Organic", "Farmhouse", "Greek", "Aged"),
              ("Milk", "Yogurt", "Cheddar", "Butter", "Eggs (dozen)", "Cream", "Mozzarella", "Kefir"),
              (149, 899), (), "kept cold from the dairy to the shelf"),
        Shelf("Bakery", ("Sourdough", "Whole wheat", "Rye", "Seeded", "Butter", "Cinnamon"),
              ("Loaf", "Bagels", "Croissant", "Muffin", "Baguette", "Rolls", "Scone"),
              (125, 749), (0, 1, 2), "baked in the store every morning"),
        Shelf("Pantry", ("Italian", "Organic", "Brown", "Wild", "Crunchy", "Classic", "Spicy"),
              ("Pasta", "Rice", "Oats", "Beans", "Peanut Butter", "Olive Oil", "Honey", "Lentils"),
              (99, 1499), (), "a staple for the cupboard"),
        Shelf("Beverages", ("Sparkling", "Cold-brew", "Diet", "Citrus", "Ginger", "Berry", "Iced"),
              ("Water", "Coffee", "Cola", "Lemonade", "Tea", "Kombucha", "Juice"),
              (99, 599), (0, 1), "best served chilled"),
        Shelf("Snacks", ("Sea salt", "Cheddar", "Honey", "Dark chocolate", "Smoky", "Lightly salted"),
              ("Chips", "Pretzels", "Popcorn", "Almonds", "Crackers", "Granola Bar", "Cookies", "Trail Mix"),
              (129, 649), (0, 1), "for the road or the couch"),
        Shelf("Household", ("Lavender", "Unscented", "Eco", "Lemon", "Heavy-duty", "Bamboo"),
              ("Dish Soap", "Paper Towels", "Laundry Pods", "Sponges", "Trash Bags", "Candles", "Napkins"),
              (199, 1899), (0, 1), "to keep the house in order"),
    ),
    "B": (
        Shelf("Fiction", ("The Quiet", "A Distant", "The Last", "Salt and", "The Paper", "Midnight"),
              ("Harbor", "Lighthouse", "Orchard", "Tide", "Garden", "Voyage", "Letters"),
              (999, 2899), (0,), "a novel the staff keep recommending"),
        Shelf("Non-fiction", ("A Short History of", "The Science of", "Notes on", "Inside", "The Art of", "Why We"),
              ("Maps", "Sleep", "Bread", "Sailing", "Memory", "Cities", "Birds", "Tea"),
              (1499, 3499), (0,), "curious, clear and well researched"),
        Shelf("Children's Books", ("Little", "Brave", "Sleepy", "Busy", "Tiny", "Giant"),
              ("Otter", "Dragon", "Tugboat", "Owl", "Fox", "Whale", "Robot"),
              (599, 1899), (0,), "for reading aloud at bedtime"),
        Shelf("Cookbooks", ("Weeknight", "Coastal", "Plant-based", "Slow", "Simple", "Baking with"),
              ("Suppers", "Kitchen", "Soups", "Breads", "Fish", "Salads", "Sweets"),
              (1999, 4499), (0,), "recipes tested in a home kitchen"),
        Shelf("Maps & Travel", ("Pocket", "Hiking", "Coastal", "City", "Road", "Island"),
              ("Atlas", "Map", "Guide", "Phrasebook", "Trail Notes", "Journal", "Postcards"),
              (799, 2999), (0, 1), "folds flat and survives rain"),
        Shelf("Stationery", ("Linen", "Dotted", "Recycled", "Pocket", "Classic", "Letterpress"),
              ("Notebook", "Pen", "Pencil Set", "Envelopes", "Bookmark", "Planner", "Cards"),
              (199, 2499), (0, 1), "for writing things down"),
        Shelf("Cafe", ("Oat milk", "Double", "Iced", "Spiced", "Vanilla", "Hot"),
              ("Latte", "Espresso", "Chai", "Cocoa", "Scone", "Muffin", "Cookie"),
              (250, 695), (0, 1, 2), "made at the counter while you browse", type="prepared food"),
    ),
}

_DISCOUNTS: dict[str, tuple[tuple[str, int], ...]] = {
    "S": (("Loyalty card discount", -100), ("Store coupon $2 off", -200), ("Bag refund", -10),
          ("Senior Tuesday discount", -150), ("Manager markdown", -50), ("Bottle deposit return", -5)),
    "B": (("Book club discount", -300), ("Used book trade-in credit", -500), ("Staff pick coupon", -200),
          ("Student discount", -150), ("Gift card promo", -1000), ("Damaged cover markdown", -100)),
}
DISCOUNT_CATEGORY = "Deals"


def seed_items(merchant_code: str, merchant_name: str, seed: int) -> list[SeedItem]:
    """The starting catalog of a merchant: 7 shelves of 42 items, then 6 discount lines."""
    rng = random.Random(f"{seed}:{merchant_code}:catalog")
    skus: set[str] = set()
    items = []
    for shelf in _SHELVES[merchant_code]:
        names = [f"{q} {n}" for q in shelf.qualifiers for n in shelf.nouns]
        for name in sorted(rng.sample(names, ITEMS_PER_SHELF)):
            low, high = shelf.price_range
            cents = rng.randrange(low, high + 1)
            if rng.random() < 0.5:  # half the shelf has prices ending in 0 or 5
                cents = max(low, cents - cents % 5)
            items.append(
                SeedItem(
                    name=name,
                    type=shelf.type,
                    description=f"{name}: {shelf.blurb}. {shelf.category} at {merchant_name}.",
                    cents=cents,
                    sku=_new_upc(rng, skus),
                    category=shelf.category,
                    taxes=shelf.taxes,
                )
            )
    for name, cents in _DISCOUNTS[merchant_code]:
        items.append(
            SeedItem(name, "discount", f"{name}: a discount line; enter it after the items.",
                     cents, _new_upc(rng, skus), DISCOUNT_CATEGORY, ())
        )
    return items


def category_names(merchant_code: str) -> list[str]:
    return [shelf.category for shelf in _SHELVES[merchant_code]] + [DISCOUNT_CATEGORY]


def upc_check_digit(first_11: str) -> str:
    odd = sum(int(d) for d in first_11[0::2])
    even = sum(int(d) for d in first_11[1::2])
    return str((10 - (odd * 3 + even) % 10) % 10)


def _new_upc(rng: random.Random, taken: set[str]) -> str:
    """A 12-digit UPC-A code with a valid check digit, not in ``taken``."""
    while True:
        body = f"0{rng.randrange(10**10):010d}"
        code = body + upc_check_digit(body)
        if code not in taken:
            taken.add(code)
            return code
