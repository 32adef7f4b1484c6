"""Every way the catalog refuses, rooted at ``CatalogError``; messages are meant for a person."""

from __future__ import annotations


class CatalogError(Exception):
    """Base of every catalog error."""


class CatalogCorrupt(CatalogError):
    """The file is not a pos-app catalog, or SQLite reports it damaged.

    The catalog is a copy of the service's: moving the file aside and syncing again
    rebuilds it. The file is never modified or deleted by the refusal.
    """


class CatalogTooNew(CatalogError):
    """The file was written by a newer pos-app (a higher schema version)."""


class CatalogClosed(CatalogError):
    """The catalog was used after ``close()``."""


class SyncError(CatalogError):
    """A sync could not produce a consistent catalog; the previous catalog was kept."""
