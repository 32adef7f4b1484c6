"""Store profiles of packaging/stores: each one checked by the app's own config model, a
bad one refused with what to fix, and how a baked profile layers under a station's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from pos_app.config import check_store_profile, load_config
from pos_app.profile import BAKED_PROFILE_NAME, ConfigError, Mode, start_profile

STORES = Path(__file__).resolve().parents[2] / "packaging" / "stores"
PROFILES = sorted(STORES.glob("*.toml"))


def test_the_stores_folder_holds_the_demo_and_the_example():
    assert {p.stem for p in PROFILES} >= {"demo", "example-store"}


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.stem)
def test_every_store_profile_is_valid_and_holds_no_secret(path):
    config = check_store_profile(path)
    assert config.store_id != "-" and config.store_name
    assert config.stations, "a store profile names its stations"
    text = path.read_text(encoding="utf-8").lower()
    assert "key_hash =" not in text and "sandbox-key" not in text and "pin =" not in text


def test_the_demo_store_is_training_on_the_sandbox():
    config = check_store_profile(STORES / "demo.toml")
    assert config.mode is Mode.TRAINING and config.terminal_id == "ts-1001"
    start = start_profile(env={"POS_PROFILE": str(STORES / "demo.toml"), "POS_DATA_DIR": "/nonexistent"})
    assert start.training and start.theme == "light"


def test_a_real_store_profile_is_store_mode_with_its_service():
    config = check_store_profile(STORES / "example-store.toml")
    assert config.mode is Mode.STORE and config.base_url.startswith("https://")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text,expected", [
    ('store_id = "s1"\n', "base_url is missing"),
    ('mode = "live"\nbase_url = "https://a.example.com"\n', "mode must be one of store, training, got 'live'"),
    ('base_url = "https://a.example.com"\n[stations.lane-1]\nterminal_id = "t1"\n',
     r"\[stations.lane-1\] needs a name"),
    ('base_url = "https://a.example.com"\n[stations.lane-1]\nname = "L"\npin = "1234"\n', "unknown setting"),
    ('base_url = "https://a.example.com"\n[stations]\nlane-1 = "Lane 1"\n', "must be a table"),
    ('base_url = "https://a.example.com"\nkey-hash = "abc"\n', "contains a key-hash"),
    ('base_url = "https://a.example.com"\ntheme = "pink"\n', "theme must be one of light, dark"),
])
def test_an_invalid_profile_is_refused_with_a_clear_message(tmp_path, text, expected):
    with pytest.raises(ConfigError, match=expected):
        check_store_profile(write(tmp_path / "bad.toml", text))


def test_the_station_takes_its_terminal_and_printer_from_the_profile_and_its_own_settings_win(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    env = {"POS_PROFILE": str(STORES / "example-store.toml"), "POS_DATA_DIR": str(data)}
    write(data / "store.toml", 'station_id = "lane-2"\n')  # what `pos-app setup` leaves, less
    config = load_config(env)
    assert (config.store_id, config.terminal_id, config.printer) == ("store-042", "ts-0000-lane2",
                                                                     "receipt-printer-lane-2")
    write(data / "store.toml", 'station_id = "lane-2"\nprinter = "front"\n')
    assert load_config(env).printer == "front"  # the station's store.toml over the profile
    assert load_config({**env, "POS_PRINTER": "env"}).printer == "env"  # env over both


def test_the_training_profile_is_not_a_service_for_the_terminal_commands(tmp_path):
    env = {"POS_PROFILE": str(STORES / "demo.toml"), "POS_DATA_DIR": str(tmp_path)}
    with pytest.raises(ConfigError, match="for training.*pos-app sandbox serve"):
        load_config(env)


def test_a_missing_profile_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="POS_PROFILE .* not a file"):
        load_config({"POS_PROFILE": str(tmp_path / "nope.toml"), "POS_DATA_DIR": str(tmp_path)})


def test_the_build_puts_the_profile_where_the_app_looks():
    build = (Path(__file__).resolve().parents[2] / "packaging" / "build.py").read_text(encoding="utf-8")
    assert f'PROFILE_FILE = "{BAKED_PROFILE_NAME}"' in build


KEY = {"POS_KEY_HASH": "k"}


@pytest.mark.parametrize("profile,own,env,expected", [
    ('base_url = "https://a.example.com"\ntheme = "dark"\n', 'station_id = "l1"\n', {}, (False, "dark")),
    ('base_url = "https://a.example.com"\ntheme = "dark"\n', None, KEY, (False, "dark")),  # automation
    ('base_url = "https://a.example.com"\ntheme = "dark"\n', None, {}, (False, None)),  # fresh install: setup
    ('base_url = "https://a.example.com"\ntheme = "dark"\n', 'theme = "light"\n', {}, (False, "light")),
    (None, None, {"POS_BASE_URL": "https://a.example.com", **KEY}, (False, "light")),
    (None, None, {"POS_BASE_URL": "https://a.example.com"}, (False, None)),
    (None, 'theme = "dark"\n', {}, (False, None)),  # no service address: the setup screen first
    (None, "theme = [\n", {"POS_BASE_URL": "https://a.example.com"}, (False, None)),  # unreadable: setup says why
    ('mode = "live"\nbase_url = "https://a.example.com"\n', None, {}, (False, None)),
    ('mode = "training"\ntheme = "dark"\n', None, {}, (True, "light")),
])
def test_the_start_reads_the_installers_profile_the_stations_settings_and_the_env(tmp_path, profile, own, env,
                                                                                   expected):
    """The first screen is shown (in its theme) before the settings are checked, from the
    same layers ``load_config`` reads, once the station was set up; else setup comes first."""
    env = settings_layers(tmp_path, profile, own, env)
    start = start_profile(env=env)
    assert (start.training, start.theme) == expected
    training = start_profile(sandbox=True, env=env)
    assert (training.training, training.theme) == (True, "light")


def settings_layers(tmp_path, profile: str | None, own: str | None, env: dict[str, str]) -> dict[str, str]:
    """The env of a data folder with the installer's profile and the station's store.toml given."""
    data = tmp_path / "data"
    data.mkdir()
    env = {"POS_DATA_DIR": str(data), **env}
    if profile is not None:
        env["POS_PROFILE"] = str(write(tmp_path / "store-profile.toml", profile))
    if own is not None:
        write(data / "store.toml", own)
    return env


@pytest.mark.parametrize("profile,own,env,expected", [
    ('language = "fr-CA"\n', None, {}, "fr_CA"),
    ('language = "fr"\n', 'base_url = "https://a.example.com"\nlanguage = "es"\n', {}, "es"),
    (None, 'language = "es"\n', {"POS_LANGUAGE": "fr"}, "fr"),
    (None, 'language = "no such thing!"\n', {"LC_ALL": "fr_FR.UTF-8"}, "fr_FR"),
    (None, None, {"LC_ALL": "C.UTF-8", "LANG": "es_MX.UTF-8"}, "es_MX"),
])
def test_the_first_screen_speaks_the_store_language_from_the_same_layers(tmp_path, profile, own, env, expected,
                                                                         monkeypatch):
    """POS_LANGUAGE, the station's store.toml, the installer's profile, else the OS's (a
    language that is not one: the OS's too; the settings' check says why)."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        if variable in ("LC_ALL", "LANG"):
            monkeypatch.setenv(variable, value)
    assert start_profile(env=settings_layers(tmp_path, profile, own, env)).language == expected
