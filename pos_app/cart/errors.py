"""Every way the cart refuses, rooted at ``CartError``; messages are meant for a person."""

from __future__ import annotations

from pathlib import Path

from pos_app.i18n import _


class CartError(Exception):
    """Base of every cart error."""


class LineNotFound(CartError, KeyError):
    """No line of the cart has that ``line_id``."""

    def __init__(self, line_id: int) -> None:
        self.line_id = line_id
        super().__init__(_("the cart has no line {line}").format(line=repr(line_id)))

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class UnknownTax(CartError, ValueError):
    """An item names a tax no rate is known for: neither the merchant's rates nor the cart's
    remembered ones have it, so ``Cart.add`` refuses it.

    Never guessed as 0 %: the sale would be under-taxed. The catalog names a tax the
    merchant does not list (deleted, or left out by the sync for a bad rate).
    """

    def __init__(self, item_name: str, tax_id: str) -> None:
        self.tax_id = tax_id
        super().__init__(
            _("{item} cannot be rung up: its tax {tax} is not listed by the merchant (or has a rate "
              "pos-app cannot use). Ask a manager to have the item or the tax fixed in the merchant's catalog.")
            .format(item=item_name, tax=tax_id)
        )


class CartSaveError(CartError):
    """The cart could not be written; the previous saved cart is still on disk, whole."""


class CartLoadError(CartError):
    """The saved cart cannot be used. It was moved aside to ``kept_at`` (never deleted)."""

    def __init__(self, message: str, kept_at: Path | None) -> None:
        self.kept_at = kept_at
        if kept_at:
            message = _("{message}; the file was kept as {path}").format(message=message, path=kept_at)
        super().__init__(message)


class CartCorrupt(CartLoadError):
    """The saved cart is not valid JSON of the cart format, or breaks its rules."""


class CartVersionUnknown(CartLoadError):
    """The saved cart has a format version this pos-app does not know (a newer pos-app wrote it)."""
