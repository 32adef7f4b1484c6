"""The sale in progress: lines, taxes and totals in integer cents, saved on every change.

``Cart`` holds the lines, the order key and the rates its lines were rung up with;
``Cart.totals(catalog.taxes())`` applies the contract's per-line tax rule, and never
raises (a tax the merchant stopped listing keeps its known rate, the line flagged);
``CartStore`` saves the cart atomically (``cart.on_change = store.save``) and restores it
after a crash. ``Cart.add_open_price`` rings up what the catalog lacks (the misc key), taxed
by one of the classes ``tax_choice`` offers.

This package imports no Qt. It uses ``pos_app.api.money`` for the rounding and
``pos_app.catalog.models`` for ``TaxRate``.
"""

from pos_app.cart.cart import Cart, CartSnapshot, new_order_key
from pos_app.cart.errors import (
    CartCorrupt,
    CartError,
    CartLoadError,
    CartSaveError,
    CartVersionUnknown,
    LineNotFound,
    UnknownTax,
)
from pos_app.cart.models import MAX_QUANTITY, CartLine, FlaggedTax, OrderCustomer, Sellable, TaxFlag, Totals
from pos_app.cart.open_price import (
    MAX_DESCRIPTION,
    OPEN_PRICE_ITEM,
    OPEN_PRICE_MAX_CENTS,
    OPEN_PRICE_NAME,
    TaxChoice,
    TaxClass,
    tax_choice,
)
from pos_app.cart.store import CartStore
from pos_app.cart.taxes import compute_totals, line_tax

__all__ = [
    "MAX_DESCRIPTION",
    "MAX_QUANTITY",
    "OPEN_PRICE_ITEM",
    "OPEN_PRICE_MAX_CENTS",
    "OPEN_PRICE_NAME",
    "Cart",
    "CartCorrupt",
    "CartError",
    "CartLine",
    "OrderCustomer",
    "CartLoadError",
    "CartSaveError",
    "CartSnapshot",
    "CartStore",
    "CartVersionUnknown",
    "FlaggedTax",
    "LineNotFound",
    "Sellable",
    "TaxChoice",
    "TaxClass",
    "TaxFlag",
    "Totals",
    "UnknownTax",
    "compute_totals",
    "line_tax",
    "new_order_key",
    "tax_choice",
]
