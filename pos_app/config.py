"""Where the app's settings, secrets and files come from: the checked ``StoreConfig``.

The files are read, entry by entry, by ``pos_app.profile`` (light: the app's first
screen reads how to start from it); here they are checked as a whole.

- Store profile: ``<data dir>/store.toml`` (validated; a bad file is refused with the
  line to fix, never half-used). An installer built for a store carries that store's
  profile (``store-profile.toml`` next to the executable; ``POS_PROFILE`` or
  ``pos-app --profile FILE`` name another): its settings come first, the station's own
  ``store.toml`` overrides them, the env vars override both. Its ``[stations]`` table
  gives each station (by ``station_id``) a name, a terminal and a printer; ``mode =
  "training"`` starts the app on the built-in sandbox (the demo store).
- Key-hash: the OS keyring (service ``pos-app``, user ``<store>@<base url>``), or the
  ``POS_KEY_HASH`` env var for automation. Never in a file, a log or an error message.
- Env vars override the profile: ``POS_BASE_URL``, ``POS_KEY_HASH``, ``POS_DATA_DIR``
  (journal, config and logs go under it), ``POS_GATEWAY`` (``auto``, ``s``, ``b``),
  ``POS_TERMINAL`` (the station's payment terminal) and ``POS_PRINTER`` (the receipt
  printer's name in the OS print system; none means the print dialog).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pos_app.profile import THEMES, ConfigError, Mode, profile_path, profile_values, read_profile, station_defaults

# The client (httpx, pydantic: ~0.2 s) is imported only where an address or a route is
# checked, so that the app's first screen and the CLI's help can read settings without it.
if TYPE_CHECKING:
    from pos_app.api.routes import RouteTable

KEYRING_SERVICE = "pos-app"
GATEWAYS = ("auto", "s", "b")
TRAINING_BASE_URL = "http://127.0.0.1"
"""Stands for the built-in sandbox in a training profile (its port is picked at start)."""


@dataclass(frozen=True)
class StationProfile:
    """One station (lane) of a store profile's ``[stations]`` table."""

    name: str
    terminal_id: str | None = None
    printer: str | None = None


@dataclass(frozen=True)
class StoreConfig:
    base_url: str
    gateway: str = "auto"
    store_id: str = "-"
    store_name: str = ""
    station_id: str = "-"
    cashier_id: str = "-"
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    poll_wait_limit: float = 180.0
    terminal_id: str | None = None
    printer: str | None = None
    theme: str = "light"
    currency: str = "USD"
    locale: str | None = None  # how money is written (en_US, fr_CA...); None: the OS's
    routes: Mapping[str, str] = field(default_factory=dict)
    mode: Mode = Mode.STORE
    stations: Mapping[str, StationProfile] = field(default_factory=dict)
    data_dir: Path = Path(".")

    @property
    def journal_path(self) -> Path:
        return self.data_dir / "journal.sqlite3"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def cart_path(self) -> Path:
        return self.data_dir / "cart.json"

    @property
    def staff_path(self) -> Path:
        return self.data_dir / "staff.sqlite3"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "logs" / "pos-app.log"

    def route_table(self) -> RouteTable:
        from pos_app.api.routes import RouteTable

        return RouteTable(self.routes)

    @property
    def keyring_user(self) -> str:
        return f"{self.store_id}@{self.base_url}"


def load_config(env: Mapping[str, str] = os.environ) -> StoreConfig:
    """The store profile with env overrides applied, validated as a whole."""
    values, directory = profile_values(env)
    path = profile_path(directory)
    if "base_url" not in values:
        if values.get("mode") == Mode.TRAINING:
            raise ConfigError(
                "this station's profile is for training (mode = \"training\"): the app opens it on the built-in "
                "sandbox; the terminal commands need a service: `pos-app sandbox serve`, then set POS_BASE_URL"
            )
        raise ConfigError(
            f"no service address: run `pos-app setup` (or the app's setup screen), or set POS_BASE_URL "
            f"or base_url in {path}"
        )
    return config_from_values(values, directory)


def check_store_profile(path: Path) -> StoreConfig:
    """A store profile (``packaging/stores/*.toml``, an installer's ``store-profile.toml``)
    checked as the app loads it; a training profile stands on the built-in sandbox."""
    values = read_profile(path)
    station_defaults(values, {})
    if "base_url" not in values:
        if values.get("mode", Mode.STORE) != Mode.TRAINING:
            raise ConfigError(f"{path}: base_url is missing (the service's address, e.g. https://payments.example"
                              '.com); a profile for training says mode = "training"')
        values["base_url"] = TRAINING_BASE_URL
    return config_from_values(values, path.parent)


def config_from_values(values: Mapping[str, Any], directory: Path) -> StoreConfig:
    """A whole profile checked together (gateway, theme, address, routes, timeouts); also
    used to check a profile before ``pos_app.provisioning`` writes it."""
    from pos_app.api.address import check_base_url
    from pos_app.api.errors import InvalidInput

    values = dict(values)
    gateway = str(values.get("gateway", "auto")).lower()
    if gateway not in GATEWAYS:
        raise ConfigError(f"gateway must be one of {', '.join(GATEWAYS)}, got {values['gateway']!r}")
    values["gateway"] = gateway
    if values.get("theme", "light") not in THEMES:
        raise ConfigError(f"theme must be one of {', '.join(THEMES)}, got {values['theme']!r}")
    from pos_app.receipts.money import check_currency, check_locale

    try:
        values["currency"] = check_currency(values.get("currency", "USD"))
        values["locale"] = check_locale(values["locale"]) if values.get("locale") else None
    except ValueError as error:
        raise ConfigError(f"{error} (the store's currency and locale settings)") from None
    try:
        values["mode"] = Mode(values.get("mode", Mode.STORE))
    except ValueError:
        raise ConfigError(f"mode must be one of {', '.join(Mode)}, got {values['mode']!r}") from None
    values["stations"] = {name: StationProfile(**entry) for name, entry in values.get("stations", {}).items()}
    try:
        values["base_url"] = check_base_url(values["base_url"])
        config = StoreConfig(**values, data_dir=directory)
        config.route_table()
    except (InvalidInput, ValueError) as error:
        raise ConfigError(str(error)) from None
    for name in ("connect_timeout", "read_timeout", "poll_wait_limit"):
        if getattr(config, name) <= 0:
            raise ConfigError(f"{name} must be more than 0 seconds")
    return config


def key_hash(config: StoreConfig, env: Mapping[str, str] = os.environ) -> str:
    """The key-hash from ``POS_KEY_HASH`` or the OS keyring; never logged, never stored in files.
    A value that cannot be sent as a header (a space, a line break, not printable ASCII) is
    refused here, before any request, with a sentence that says where, never the value."""
    if env.get("POS_KEY_HASH"):
        return _usable(env["POS_KEY_HASH"], "the key-hash in POS_KEY_HASH")
    try:
        import keyring

        secret = keyring.get_password(KEYRING_SERVICE, config.keyring_user)
    except Exception as error:  # noqa: BLE001 - any backend's failure (D-Bus, locked, none) means the same
        raise ConfigError(
            f"cannot read the OS keyring ({type(error).__name__}); set POS_KEY_HASH instead"
        ) from None
    if not secret:
        raise ConfigError(
            f"no key-hash for {config.keyring_user} in the OS keyring; store it with `pos-app setup` "
            "or set POS_KEY_HASH"
        )
    return _usable(secret, f"the key-hash in the OS keyring (user {config.keyring_user})")


def _usable(secret: str, source: str) -> str:
    from pos_app.api.errors import InvalidKeyHash
    from pos_app.api.secrets import check_key_hash

    try:
        return check_key_hash(secret, source=source)
    except InvalidKeyHash as error:
        raise ConfigError(str(error)) from error


def setup_logging(config: StoreConfig, secret: str, *, verbose: bool = False) -> None:
    """Log to ``<data dir>/logs/pos-app.log`` with the key-hash redacted from every record
    (its message, traceback and stack: ``pos_app.api.secrets.RedactingFilter``)."""
    from pos_app.api.secrets import RedactingFilter, Redactor

    config.log_path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(config.log_path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(Redactor([secret])))
    root = logging.getLogger("pos_app")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
