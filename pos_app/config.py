"""Where the app's settings, secrets and files come from.

- Store profile: ``<data dir>/store.toml`` (validated; a bad file is refused with the
  line to fix, never half-used).
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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos_app.api.client import check_base_url
from pos_app.api.errors import InvalidInput
from pos_app.api.routes import RouteTable

KEYRING_SERVICE = "pos-app"
PROFILE_NAME = "store.toml"
GATEWAYS = ("auto", "s", "b")


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
    routes: Mapping[str, str] = field(default_factory=dict)
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
    "routes": dict,
}
THEMES = ("light", "dark")


def profile_path(directory: Path) -> Path:
    """``<data dir>/store.toml``."""
    return directory / PROFILE_NAME


def load_config(env: Mapping[str, str] = os.environ) -> StoreConfig:
    """The store profile with env overrides applied, validated as a whole."""
    directory = data_dir(env)
    path = profile_path(directory)
    values: dict[str, Any] = {}
    if path.exists():
        values = read_profile(path)
    if env.get("POS_BASE_URL"):
        values["base_url"] = env["POS_BASE_URL"]
    if env.get("POS_GATEWAY"):
        values["gateway"] = env["POS_GATEWAY"]
    if env.get("POS_TERMINAL"):
        values["terminal_id"] = env["POS_TERMINAL"]
    if env.get("POS_PRINTER"):
        values["printer"] = env["POS_PRINTER"]
    if "base_url" not in values:
        raise ConfigError(
            f"no service address: run `pos-app setup` (or the app's setup screen), or set POS_BASE_URL "
            f"or base_url in {path}"
        )
    return config_from_values(values, directory)


def config_from_values(values: Mapping[str, Any], directory: Path) -> StoreConfig:
    """A whole profile checked together (gateway, theme, address, routes, timeouts); also
    used to check a profile before ``pos_app.provisioning`` writes it."""
    values = dict(values)
    gateway = str(values.get("gateway", "auto")).lower()
    if gateway not in GATEWAYS:
        raise ConfigError(f"gateway must be one of {', '.join(GATEWAYS)}, got {values['gateway']!r}")
    values["gateway"] = gateway
    if values.get("theme", "light") not in THEMES:
        raise ConfigError(f"theme must be one of {', '.join(THEMES)}, got {values['theme']!r}")
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
