"""A cashier process for the crash tests: rings items into a saved cart, then waits to be killed.

``python -m tests.cart.cart_worker PATH ready``: adds three known lines, saves after each
change, prints ``saved <order key>`` and sleeps. ``... PATH churn``: saves changing carts
in a loop (printing ``go`` once started) until it is killed mid-way.
"""

from __future__ import annotations

import sys
import time

from pos_app.cart import Cart, CartStore
from pos_app.catalog import CatalogItem

ITEMS = [
    CatalogItem(id="id-latte", name="Oat milk Latte", sku="012345678905", price_cents=450, category="Cafe",
                tax_ids=("t1", "t2")),
    CatalogItem(id="id-novel", name="The Quiet Harbor", sku="098765432109", price_cents=1999, category="Fiction",
                tax_ids=("t1",)),
    CatalogItem(id="id-deal", name="Book club discount", sku="011111111116", price_cents=-300, category="Deals"),
]


def main() -> None:
    path, mode = sys.argv[1], sys.argv[2]
    store = CartStore(path)
    cart = Cart(on_change=store.save)
    if mode == "ready":
        cart.add(ITEMS[0], 2)
        cart.add(ITEMS[1])
        cart.add(ITEMS[2])
        print(f"saved {cart.order_key}", flush=True)
        time.sleep(60)
        return
    print("go", flush=True)
    n = 0
    while True:
        n += 1
        line = cart.add(ITEMS[n % 3])
        if n % 7 == 0:
            cart.set_quantity(line.line_id, 1 + n % 50)
        if n % 40 == 0:
            cart.clear()


if __name__ == "__main__":
    main()
