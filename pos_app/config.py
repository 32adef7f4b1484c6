"""Where the app's settings, secrets and files come from.

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
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The client (httpx, pydantic: ~0.2 s) is imported only where an address or a route is
# checked, so that the app's first screen and the CLI's help can read settings without it.
if TYPE_CHECKING:
    from pos_app.api.routes import RouteTable

KEYRING_SERVICE = "pos-app"
PROFILE_NAME = "store.toml"
BAKED_PROFILE_NAME = "store-profile.toml"
GATEWAYS = ("auto", "s", "b")
TRAINING_BASE_URL = "http://127.0.0.1"
"""Stands for the built-in sandbox in a training profile (its port is picked at start)."""


class Mode(StrEnum):
    """What a profile's station runs on."""

    STORE = "store"  # the Merchant Payments Service at base_url, with the station's key-hash
    TRAINING = "training"  # the built-in sandbox: training banner, demo staff, no real money


@dataclass(frozen=True)
class StationProfile:
    """One station (lane) of a store profile's ``[stations]`` table."""

    name: str
    terminal_id: str | None = None
    printer: str | None = None


class ConfigError(Exception):
    """The configuration cannot be used; the message says what to fix."""


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


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    if env.get("POS_DATA_DIR"):
        return Path(env["POS_DATA_DIR"]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("pos-app", appauthor=False))


PROFILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "base_url": str, "gateway": str, "store_id": str, "store_name": str, "station_id": str,
    "cashier_id": str, "connect_timeout": (int, float), "read_timeout": (int, float),
    "poll_wait_limit": (int, float), "terminal_id": str, "printer": str, "theme": str, "currency": str,
    "locale": str,
    "routes": dict, "mode": str, "stations": dict,
}
STATION_KEYS = ("name", "terminal_id", "printer")
THEMES = ("light", "dark")


def profile_path(directory: Path) -> Path:
    """``<data dir>/store.toml``."""
    return directory / PROFILE_NAME


def baked_profile(env: Mapping[str, str] = os.environ) -> Path | None:
    """The store profile of this installation: ``POS_PROFILE`` (``--profile``), else the
    ``store-profile.toml`` an installer put next to the executable; None from source."""
    if env.get("POS_PROFILE"):
        path = Path(env["POS_PROFILE"]).expanduser()
        if not path.is_file():
            raise ConfigError(f"POS_PROFILE (or --profile) names {path}, which is not a file")
        return path
    if getattr(sys, "frozen", False):
        path = Path(sys.executable).resolve().parent / BAKED_PROFILE_NAME
        return path if path.is_file() else None
    return None


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


def profile_mode(env: Mapping[str, str] = os.environ) -> Mode:
    """The mode the settings name, read without the client's imports (the app picks its
    way to start with it); ``Mode.STORE`` when they cannot be read (``load_config`` then
    says what is wrong)."""
    try:
        return Mode(profile_values(env)[0].get("mode", Mode.STORE))
    except (ConfigError, ValueError):
        return Mode.STORE


def check_store_profile(path: Path) -> StoreConfig:
    """A store profile (``packaging/stores/*.toml``, an installer's ``store-profile.toml``)
    checked as the app loads it; a training profile stands on the built-in sandbox."""
    values = read_profile(path)
    _station_defaults(values, {})
    if "base_url" not in values:
        if values.get("mode", Mode.STORE) != Mode.TRAINING:
            raise ConfigError(f"{path}: base_url is missing (the service's address, e.g. https://payments.example"
                              '.com); a profile for training says mode = "training"')
        values["base_url"] = TRAINING_BASE_URL
    return config_from_values(values, path.parent)


def profile_values(env: Mapping[str, str] = os.environ) -> tuple[dict[str, Any], Path]:
    """The settings' entries, each checked, from the installation's profile, then the
    station's ``store.toml``, then the env vars (each overrides the one before); and the
    data folder."""
    directory = data_dir(env)
    baked = baked_profile(env)
    values: dict[str, Any] = read_profile(baked) if baked is not None else {}
    path = profile_path(directory)
    own = read_profile(path) if path.exists() else {}
    values.update(own)
    _station_defaults(values, own)
    if env.get("POS_BASE_URL"):
        values["base_url"] = env["POS_BASE_URL"]
    if env.get("POS_GATEWAY"):
        values["gateway"] = env["POS_GATEWAY"]
    if env.get("POS_TERMINAL"):
        values["terminal_id"] = env["POS_TERMINAL"]
    if env.get("POS_PRINTER"):
        values["printer"] = env["POS_PRINTER"]
    return values, directory


def _station_defaults(values: dict[str, Any], own: Mapping[str, Any]) -> None:
    """The station's entry of ``[stations]`` gives its terminal and printer, unless the
    station's own ``store.toml`` (``own``) names them."""
    entry = values.get("stations", {}).get(values.get("station_id"))
    for key in ("terminal_id", "printer"):
        if entry is not None and key in entry and key not in own:
            values[key] = entry[key]


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


def read_profile(path: Path) -> dict[str, Any]:
    """The entries of a ``store.toml``, each checked (``ConfigError`` saying what to fix)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    check_profile_entries(raw, path)
    return raw


def check_profile_entries(raw: Mapping[str, Any], path: Path) -> None:
    """Each entry of a profile: known, of its type, and never a key-hash."""
    if any(k.replace("-", "_").lower() in {"key_hash", "keyhash"} for k in raw):
        raise ConfigError(f"{path} contains a key-hash: remove it; the key lives in the OS keyring or POS_KEY_HASH")
    unknown = set(raw) - set(PROFILE_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}; known: {', '.join(PROFILE_KEYS)}")
    for key, value in raw.items():
        expected = PROFILE_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, expected):
            raise ConfigError(f"{path}: {key} has the wrong type ({type(value).__name__})")
    if "routes" in raw and not all(isinstance(v, str) for v in raw["routes"].values()):
        raise ConfigError(f"{path}: every [routes] entry must be a string like 'POST /public/terminal/pay'")
    for station, entry in raw.get("stations", {}).items():
        _check_station(station, entry, path)


def _check_station(station: str, entry: object, path: Path) -> None:
    """One ``[stations.<id>]`` table: a name, and optionally a terminal and a printer."""
    where = f"{path}: [stations.{station}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table with {', '.join(STATION_KEYS)}")
    unknown = set(entry) - set(STATION_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))}; known: {', '.join(STATION_KEYS)}")
    if not isinstance(entry.get("name"), str) or not entry["name"].strip():
        raise ConfigError(f'{where} needs a name, e.g. name = "Lane 1"')
    for key in ("terminal_id", "printer"):
        if key in entry and not isinstance(entry[key], str):
            raise ConfigError(f"{where}: {key} must be a string")


def key_hash(config: StoreConfig, env: Mapping[str, str] = os.environ) -> str:
    """The key-hash from ``POS_KEY_HASH`` or the OS keyring; never logged, never stored in files."""
    if env.get("POS_KEY_HASH"):
        return env["POS_KEY_HASH"]
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
    return secret


class RedactSecrets(logging.Filter):
    """Replaces a secret wherever it would appear in a log record."""

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(s in message for s in self._secrets):
            for secret in self._secrets:
                message = message.replace(secret, "[redacted]")
            record.msg, record.args = message, None
        return True


def setup_logging(config: StoreConfig, secret: str, *, verbose: bool = False) -> None:
    """Log to ``<data dir>/logs/pos-app.log`` with the key-hash redacted from every record."""
    config.log_path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(config.log_path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secret))
    root = logging.getLogger("pos_app")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
