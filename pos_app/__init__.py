"""pos-app: a cashier desktop app that drives card payment terminals.

The core packages (api, terminal, journal, catalog, cart, sandbox) never import Qt;
the PySide6 user interface lives in ``pos_app.ui``.
"""

__version__ = "0.1.0"
