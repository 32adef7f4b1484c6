"""The merchant's catalog on the station: a local SQLite copy with full-text search.

``Catalog.open(path)`` opens (or creates) the file; ``sync_catalog(client, catalog)``
copies the service's items, taxes and categories into it in one transaction; the UI
searches it as the cashier types (``search``), looks scanned codes up (``by_code``) and
builds quick keys (``categories``, ``in_category``). See ``store.Catalog`` for threads.

This package imports no Qt; only ``sync`` uses ``pos_app.api``, and it is imported when
``sync_catalog`` is first used (``pos_app.lazy``): the local copy serves without it.
"""

from typing import TYPE_CHECKING

from pos_app.catalog.errors import CatalogClosed, CatalogCorrupt, CatalogError, CatalogTooNew, SyncError
from pos_app.catalog.models import MAX_PRICE_CENTS, CatalogItem, Skipped, SyncResult, TaxRate
from pos_app.catalog.schema import CURRENT_VERSION
from pos_app.catalog.store import Catalog
from pos_app.lazy import exports

if TYPE_CHECKING:
    from pos_app.catalog.sync import sync_catalog

__getattr__ = exports(__name__, {"pos_app.catalog.sync": ("sync_catalog",)})
__all__ = [
    "CURRENT_VERSION",
    "MAX_PRICE_CENTS",
    "Catalog",
    "CatalogClosed",
    "CatalogCorrupt",
    "CatalogError",
    "CatalogItem",
    "CatalogTooNew",
    "Skipped",
    "SyncError",
    "SyncResult",
    "TaxRate",
    "sync_catalog",
]
