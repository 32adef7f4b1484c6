"""The settings' files, read and checked entry by entry: the installation's profile, the
station's ``store.toml`` and the env vars over them (``pos_app.config`` turns them into
the checked ``StoreConfig``).

Light on purpose (tomllib, no dataclasses, no client): the app reads how to start from
here (``start_profile``: training or not, the first screen's theme) before its window is
shown, and every millisecond here is one before the cashier sees it.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

PROFILE_NAME = "store.toml"
BAKED_PROFILE_NAME = "store-profile.toml"


class Mode(StrEnum):
    """What a profile's station runs on."""

    STORE = "store"  # the Merchant Payments Service at base_url, with the station's key-hash
    TRAINING = "training"  # the built-in sandbox: training banner, demo staff, no real money


class ConfigError(Exception):
    """The configuration cannot be used; the message says what to fix."""


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    if env.get("POS_DATA_DIR"):
        return Path(env["POS_DATA_DIR"]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("pos-app", appauthor=False))


def training_data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Training mode's own folder (``make run``, ``pos-app --sandbox``): ``<data dir>/training``,
    so that training never mixes with a store's journal and staff."""
    return data_dir(env) / "training"


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
    station_defaults(values, own)
    if env.get("POS_BASE_URL"):
        values["base_url"] = env["POS_BASE_URL"]
    if env.get("POS_GATEWAY"):
        values["gateway"] = env["POS_GATEWAY"]
    if env.get("POS_TERMINAL"):
        values["terminal_id"] = env["POS_TERMINAL"]
    if env.get("POS_PRINTER"):
        values["printer"] = env["POS_PRINTER"]
    return values, directory


def station_defaults(values: dict[str, Any], own: Mapping[str, Any]) -> None:
    """The station's entry of ``[stations]`` gives its terminal and printer, unless the
    station's own ``store.toml`` (``own``) names them."""
    entry = values.get("stations", {}).get(values.get("station_id"))
    for key in ("terminal_id", "printer"):
        if entry is not None and key in entry and key not in own:
            values[key] = entry[key]


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


class StartProfile(NamedTuple):
    """What the app's start takes from the settings before they are checked (read without
    the client's imports, so that the first screen is painted at once)."""

    training: bool  # the built-in sandbox: ``--sandbox``, or a profile for training (the demo store's installer)
    theme: str | None  # of the first screen; None: the setup screen comes first (see start_profile)


def start_profile(*, sandbox: bool = False, env: Mapping[str, str] = os.environ) -> StartProfile:
    """How the app starts, from one read of the installation's profile, the station's
    ``store.toml`` and the env vars. The sign-in screen is shown at once only for a
    station that was set up: a service address, and either the station's own
    ``store.toml`` (setup writes it once the key-hash is stored) or ``POS_KEY_HASH``. A
    fresh install (an installer's profile alone: no key-hash yet) goes straight to the
    setup screen rather than flashing the sign-in before it, and so do settings that
    cannot be read (``load_config`` then says what is wrong, on the setup screen)."""
    if sandbox:
        return StartProfile(training=True, theme="light")
    try:
        values, directory = profile_values(env)
        mode = Mode(values.get("mode", Mode.STORE))
    except (ConfigError, ValueError):
        return StartProfile(training=False, theme=None)
    if mode is Mode.TRAINING:
        return StartProfile(training=True, theme="light")
    set_up = bool(env.get("POS_KEY_HASH")) or profile_path(directory).exists()
    if "base_url" not in values or not set_up:
        return StartProfile(training=False, theme=None)
    theme = values.get("theme")
    return StartProfile(training=False, theme=theme if theme in THEMES else "light")
