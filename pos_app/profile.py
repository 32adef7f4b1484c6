"""The settings' files, read as they are written: the installation's profile, the
station's ``store.toml``, and the ``POS_*`` env vars over them. ``pos_app.config`` checks
them as a whole into the typed ``StoreConfig``, whose fields are the one list of settings.

Light on purpose (tomllib, and only when there is a file to read; no pydantic, no
dataclasses): the app reads how to start from here (``start_profile``: training or not,
the first screen's theme) before its window is shown, and every millisecond here is one
before the cashier sees it. So this module reads the few settings the first screen needs
(``mode``, ``theme``, ``base_url``) and checks nothing else but a key-hash written into a
file; the model checks the rest.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

PROFILE_NAME = "store.toml"
BAKED_PROFILE_NAME = "store-profile.toml"
ENV_PREFIX = "POS_"
"""Every setting can also be set as ``POS_<NAME>`` (``POS_BASE_URL``, ``POS_READ_TIMEOUT``...)."""


class Mode(StrEnum):
    """What a profile's station runs on."""

    STORE = "store"  # the Merchant Payments Service at base_url, with the station's key-hash
    TRAINING = "training"  # the built-in sandbox: training banner, demo staff, no real money


class Theme(StrEnum):
    """The app's look (a QSS file of ``resources/``)."""

    LIGHT = "light"
    DARK = "dark"
    HIGH_CONTRAST = "high-contrast"


class ConfigProblem(StrEnum):
    """Which unusable settings: the setup screen says each its own way (the message is in
    the language in force, so it cannot be told apart by its words)."""

    NO_SERVICE_ADDRESS = "no_service_address"
    NO_KEY_HASH = "no_key_hash"
    KEYRING_UNREADABLE = "keyring_unreadable"
    ENV_KEY_HASH_UNUSABLE = "env_key_hash_unusable"
    KEYRING_KEY_HASH_UNUSABLE = "keyring_key_hash_unusable"
    OTHER = "other"


class ConfigError(Exception):
    """The configuration cannot be used; the message says what to fix, ``kind`` which problem it is."""

    def __init__(self, message: str, kind: ConfigProblem = ConfigProblem.OTHER) -> None:
        super().__init__(message)
        self.kind = kind


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    if env.get("POS_DATA_DIR"):
        return Path(env["POS_DATA_DIR"]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("pos-app", appauthor=False))


def training_data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Training mode's own folder (``make run``, ``pos-app --sandbox``): ``<data dir>/training``,
    so that training never mixes with a store's journal and staff."""
    return data_dir(env) / "training"


def profile_path(directory: Path) -> Path:
    """``<data dir>/store.toml``."""
    return directory / PROFILE_NAME


def env_name(setting: str) -> str:
    """The env var of a setting: ``read_timeout`` → ``POS_READ_TIMEOUT``."""
    return ENV_PREFIX + setting.upper()


def baked_profile(env: Mapping[str, str] = os.environ) -> Path | None:
    """The store profile of this installation: ``POS_PROFILE`` (``--profile``), else the
    ``store-profile.toml`` an installer put next to the executable; None from source."""
    if env.get("POS_PROFILE"):
        path = Path(env["POS_PROFILE"]).expanduser()
        if not path.is_file():
            from pos_app.i18n import _  # only on this path: the app's start does not wait for it

            raise ConfigError(_("POS_PROFILE (or --profile) names {path}, which is not a file").format(path=path))
        return path
    if getattr(sys, "frozen", False):
        path = Path(sys.executable).resolve().parent / BAKED_PROFILE_NAME
        return path if path.is_file() else None
    return None


class Layer(NamedTuple):
    """One settings file as it was read: where it is, and its entries."""

    path: Path
    values: dict[str, Any]


class Layers(NamedTuple):
    """A station's settings files: the installation's profile (none from source), under
    the station's own ``store.toml`` (none before setup); the env vars go over both."""

    directory: Path  # the data folder
    profile: Layer | None
    station: Layer | None


def read_layers(env: Mapping[str, str] = os.environ) -> Layers:
    """The data folder and its settings files, each read once (``ConfigError`` when one
    cannot be read or holds a key-hash)."""
    directory = data_dir(env)
    baked = baked_profile(env)
    path = profile_path(directory)
    return Layers(directory, Layer(baked, read_profile(baked)) if baked is not None else None,
                  Layer(path, read_profile(path)) if path.exists() else None)


def read_profile(path: Path) -> dict[str, Any]:
    """The entries of a settings file as written (``ConfigError`` saying what to fix when
    it cannot be read, is not TOML, or holds a key-hash)."""
    import tomllib  # here: a start without settings files (training from source) does without it

    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        from pos_app.i18n import _  # only when it fails: the app's start does not wait for it

        raise ConfigError(_("cannot read {path}: {error}").format(path=path, error=error)) from error
    except tomllib.TOMLDecodeError as error:
        from pos_app.i18n import _

        raise ConfigError(_("{path} is not valid TOML: {error}").format(path=path, error=error)) from error
    if any(holds_a_key(name) for name in raw):
        from pos_app.i18n import _

        raise ConfigError(_("{path} contains a key-hash: remove it; the key lives in the OS keyring or "
                            "POS_KEY_HASH").format(path=path))
    return raw


def holds_a_key(name: str) -> bool:
    """Whether a settings file's entry ``name`` is a key-hash (never allowed in a file)."""
    return name.replace("-", "_").lower() in {"key_hash", "keyhash"}


def layered(layers: Layers, env: Mapping[str, str], setting: str) -> Any:
    """A setting as the layers give it, unchecked: its env var, else the station's file,
    else the installation's profile; None when none sets it."""
    if env.get(env_name(setting)):
        return env[env_name(setting)]
    for layer in (layers.station, layers.profile):
        if layer is not None and setting in layer.values:
            return layer.values[setting]
    return None


class StartProfile(NamedTuple):
    """What the app's start takes from the settings before they are checked (read without
    the client's imports, so that the first screen is painted at once)."""

    training: bool  # the built-in sandbox: ``--sandbox``, or a profile for training (the demo store's installer)
    theme: Theme | None  # of the first screen; None: the setup screen comes first (see start_profile)
    language: str = "en"  # the store's (pos_app.i18n.chosen_store_language): the first screen speaks it


def profile_language(env: Mapping[str, str] = os.environ, layers: Layers | None = None) -> str:
    """The store's language from the settings' layers (``POS_LANGUAGE``, ``language`` in
    ``store.toml`` or the installer's profile), else the OS's; the OS's too for settings
    that cannot be read or a language that is not one (the settings' check says why)."""
    from pos_app.i18n import check_language, os_language

    try:
        configured = layered(layers or read_layers(env), env, "language")
        return check_language(configured) if isinstance(configured, str) and configured else os_language()
    except (ConfigError, ValueError):  # UnknownLanguage is a ValueError
        return os_language()


def start_profile(*, sandbox: bool = False, env: Mapping[str, str] = os.environ) -> StartProfile:
    """How the app starts, from one read of the installation's profile, the station's
    ``store.toml`` and the env vars. The sign-in screen is shown at once only for a
    station that was set up: a service address, and either the station's own
    ``store.toml`` (setup writes it once the key-hash is stored) or ``POS_KEY_HASH``. A
    fresh install (an installer's profile alone: no key-hash yet) goes straight to the
    setup screen rather than flashing the sign-in before it, and so do settings that
    cannot be read (``load_config`` then says what is wrong, on the setup screen)."""
    try:
        layers = read_layers(env)
    except ConfigError:
        return StartProfile(training=sandbox, theme=Theme.LIGHT if sandbox else None, language=profile_language(env))
    language = profile_language(env, layers)
    if sandbox:
        return StartProfile(training=True, theme=Theme.LIGHT, language=language)
    try:
        mode = Mode(layered(layers, env, "mode") or Mode.STORE)
    except ValueError:
        return StartProfile(training=False, theme=None, language=language)
    if mode is Mode.TRAINING:
        return StartProfile(training=True, theme=Theme.LIGHT, language=language)
    set_up = bool(env.get("POS_KEY_HASH")) or layers.station is not None
    if layered(layers, env, "base_url") is None or not set_up:
        return StartProfile(training=False, theme=None, language=language)
    theme = layered(layers, env, "theme")
    return StartProfile(training=False, theme=Theme(theme) if theme in tuple(Theme) else Theme.LIGHT,
                        language=language)
