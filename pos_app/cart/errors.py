"""Every way the cart refuses, rooted at ``CartError``; messages are meant for a person."""

from __future__ import annotations

from pathlib import Path


class CartError(Exception):
    """Base of every cart error."""


class LineNotFound(CartError, KeyError):
    """No line of the cart has that ``line_id``."""

    def __init__(self, line_id: int) -> None:
        self.line_id = line_id
        super().__init__(f"the cart has no line {line_id!r}")

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class UnknownTax(CartError):
    """A line names a tax the rates given to ``Cart.totals`` do not have.

    Never guessed as 0 %: the sale would be under-taxed. Sync the catalog (its taxes come
    with its items) and compute the totals again.
    """

    def __init__(self, line_id: int, name: str, tax_id: str) -> None:
        self.line_id = line_id
        self.tax_id = tax_id
        super().__init__(
            f"line {line_id} ({name}) names tax {tax_id!r}, which the merchant's taxes do not list; "
            "sync the catalog before taking payment"
        )


class CartSaveError(CartError):
    """The cart could not be written; the previous saved cart is still on disk, whole."""


class CartLoadError(CartError):
    """The saved cart cannot be used. It was moved aside to ``kept_at`` (never deleted)."""

    def __init__(self, message: str, kept_at: Path | None) -> None:
        self.kept_at = kept_at
        where = f"; the file was kept as {kept_at}" if kept_at else ""
        super().__init__(message + where)


class CartCorrupt(CartLoadError):
    """The saved cart is not valid JSON of the cart format, or breaks its rules."""


class CartVersionUnknown(CartLoadError):
    """The saved cart has a format version this pos-app does not know (a newer pos-app wrote it)."""
