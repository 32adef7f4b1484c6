"""Package names resolved on first use (PEP 562), so that importing a light module of a
package does not import its heavy ones.

The cashier app's start-up needs the staff file, the catalog and the cart before the
payment stack (httpx, pydantic and the answer models: most of a start's import time).
``pos_app.cart.taxes`` imports ``pos_app.api.money``, which runs ``pos_app/api/__init__``
first: were it to import the client eagerly, the sale screen would wait for all of it.
Each such package lists where its public names live and sets
``__getattr__ = exports(__name__, homes)``; a ``TYPE_CHECKING`` block imports the same
names for type checkers and for PyInstaller's import scan.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, homes: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name of ``homes[module]`` is imported
    from ``module`` the first time it is asked for, then kept in the package."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")  # not for people
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # looked up once
        return value

    return __getattr__

