"""Store configuration: a bad profile is refused with what to fix; the key never sits in a file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import keyring
import pytest
from pydantic import ValidationError

from pos_app.config import StoreConfig, key_hash, load_config
from pos_app.profile import ConfigError
from tests.keyrings import MemoryKeyring

EXAMPLE = Path(__file__).parent.parent / "resources" / "store.example.toml"


def profile(tmp_path: Path, text: str) -> dict[str, str]:
    (tmp_path / "store.toml").write_text(text)
    return {"POS_DATA_DIR": str(tmp_path)}


def test_the_shipped_example_profile_loads(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "store.toml")
    config = load_config({"POS_DATA_DIR": str(tmp_path)})
    assert config.base_url == "https://payments.example.com" and config.gateway == "auto"
    assert config.journal_path == tmp_path / "journal.sqlite3"


def test_env_overrides_the_profile(tmp_path):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\ngateway = "b"\n')
    config = load_config({**env, "POS_BASE_URL": "http://127.0.0.1:9", "POS_GATEWAY": "S"})
    assert config.base_url == "http://127.0.0.1:9" and config.gateway == "s"


@pytest.mark.parametrize("text,expected", [
    ('base_url = "https://a.example.com"\nkey_hash = "abc"\n', "key-hash"),
    ('base_url = "https://a.example.com"\ncolour = "red"\n', "unknown setting"),
    ('base_url = "https://a.example.com"\nread_timeout = "30"\n', "wrong type"),
    ('base_url = "https://a.example.com"\nread_timeout = -1\n', "more than 0"),
    ('base_url = "http://a.example.com"\n', "https"),
    ('base_url = "https://a.example.com"\ngateway = "x"\n', "gateway"),
    ('base_url = "https://a.example.com"\n[routes]\n"payment.get" = "/public/payment"\n', "parameters"),
    ('base_url = "https://a.example.com"\n[routes]\n"nope" = "/x"\n', "unknown route"),
    ('base_url = \n', "not valid TOML"),
    ('gateway = "b"\n', "POS_BASE_URL"),
])
def test_bad_profiles_are_refused_with_a_clear_message(tmp_path, text, expected):
    with pytest.raises(ConfigError, match=expected):
        load_config(profile(tmp_path, text))


@pytest.mark.parametrize("line", [
    "poll_wait_limit = nan", "poll_wait_limit = inf", "read_timeout = -inf", "connect_timeout = 0",
    "poll_wait_limit = -1", "read_timeout = 1e9", 'poll_wait_limit = "180"', "connect_timeout = true",
])
def test_a_timeout_that_is_not_a_number_of_seconds_is_refused_naming_the_file_and_the_setting(tmp_path, line):
    """Row 11: ``poll_wait_limit = nan`` made every type S sale unknown at once."""
    setting = line.split(" = ")[0]
    with pytest.raises(ConfigError) as refused:
        load_config(profile(tmp_path, f'base_url = "https://a.example.com"\n{line}\n'))
    assert str(refused.value).startswith(f"{tmp_path / 'store.toml'}: {setting} ")
    assert "a number of seconds, more than 0 and at most 86400" in str(refused.value)


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0", "soon"])
def test_a_timeout_from_the_env_is_checked_as_a_files_is(tmp_path, value):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\n')
    with pytest.raises(ConfigError, match="^POS_POLL_WAIT_LIMIT: poll_wait_limit .*a number of seconds"):
        load_config({**env, "POS_POLL_WAIT_LIMIT": value})
    assert load_config({**env, "POS_POLL_WAIT_LIMIT": "42.5"}).poll_wait_limit == 42.5


@pytest.mark.parametrize("line", [
    "opening_float = 150.0", 'opening_float = "15000"', "opening_float = -1", "opening_float = true",
    "cash_difference_limit = 10000001", "cash_difference_limit = 5.5",
])
def test_a_cash_setting_is_whole_cents_from_zero_naming_the_file_and_the_setting(tmp_path, line):
    setting = line.split(" = ")[0]
    with pytest.raises(ConfigError) as refused:
        load_config(profile(tmp_path, f'base_url = "https://a.example.com"\n{line}\n'))
    assert str(refused.value).startswith(f"{tmp_path / 'store.toml'}: {setting} ")
    assert "a whole number of cents" in str(refused.value)


def test_the_cash_settings_default_and_come_from_the_file_or_the_env(tmp_path):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\nopening_float = 15000\n')
    config = load_config(env)
    assert (config.opening_float, config.cash_difference_limit) == (15000, 500)
    config = load_config({**env, "POS_OPENING_FLOAT": "0", "POS_CASH_DIFFERENCE_LIMIT": "250"})
    assert (config.opening_float, config.cash_difference_limit) == (0, 250)
    for value in ("150.00", "-5", "lots"):  # dollars typed where cents go are refused, never guessed
        with pytest.raises(ConfigError, match="^POS_OPENING_FLOAT: opening_float .*whole number of cents"):
            load_config({**env, "POS_OPENING_FLOAT": value})


def test_the_settings_layer_env_over_the_stations_file_over_its_entry_over_the_installers_profile(tmp_path):
    installer = tmp_path / "store-profile.toml"
    installer.write_text('base_url = "https://a.example.com"\nstore_id = "s7"\nread_timeout = 10\n'
                         'terminal_id = "store-wide"\nprinter = "front"\n'
                         '[routes]\n"terminal.void" = "POST /v"\n'
                         '[stations.l1]\nname = "Lane 1"\nterminal_id = "t1"\n'
                         '[stations.l2]\nname = "Lane 2"\nterminal_id = "t2"\nprinter = "p2"\n')
    env = {**profile(tmp_path, 'station_id = "l1"\nread_timeout = 20\n[routes]\n"terminal.refund" = "POST /r"\n'),
           "POS_PROFILE": str(installer)}
    config = load_config(env)
    assert (config.base_url, config.store_id, config.read_timeout) == ("https://a.example.com", "s7", 20.0)
    assert (config.terminal_id, config.printer) == ("t1", "front")  # the station's entry over the profile's top
    assert dict(config.routes) == {"terminal.void": "POST /v", "terminal.refund": "POST /r"}  # entry by entry
    assert config.stations["l2"].printer == "p2" and config.data_dir == tmp_path
    config = load_config({**env, "POS_READ_TIMEOUT": "25", "POS_STATION_ID": "l2", "POS_STORE_NAME": "Pier 4"})
    assert (config.read_timeout, config.terminal_id, config.printer, config.store_name) == (25.0, "t2", "p2", "Pier 4")
    assert load_config({**env, "POS_TERMINAL": "t9"}).terminal_id == "t9"  # the older name of POS_TERMINAL_ID
    (tmp_path / "store.toml").write_text('station_id = "l2"\nprinter = "own"\n')
    assert (load_config(env).terminal_id, load_config(env).printer) == ("t2", "own")  # the station's file wins


def test_a_config_built_in_code_reads_no_env_and_is_checked(monkeypatch):
    monkeypatch.setenv("POS_READ_TIMEOUT", "1")
    config = StoreConfig(base_url="https://a.example.com")
    assert config.read_timeout == 30.0 and config.replace(read_timeout=2).read_timeout == 2.0
    with pytest.raises(ValidationError):
        config.replace(poll_wait_limit=float("nan"))


def test_the_key_hash_is_not_a_setting_and_never_in_the_models_dumps(tmp_path):
    secret = "k3y-hash-from-the-env-0123"
    config = load_config({**profile(tmp_path, 'base_url = "https://a.example.com"\n'), "POS_KEY_HASH": secret})
    assert all(secret not in text for text in (repr(config), str(config), config.model_dump_json()))
    with pytest.raises(ValidationError, match="key_hash"):
        StoreConfig(base_url="https://a.example.com", key_hash=secret)


def test_a_table_of_another_tool_is_left_alone_a_near_miss_of_ours_is_refused(tmp_path):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\n[backup]\nkeep_days = 7\n')
    assert load_config(env).base_url == "https://a.example.com"
    env = profile(tmp_path, 'base_url = "https://a.example.com"\n[route]\n"terminal.void" = "POST /v"\n')
    with pytest.raises(ConfigError, match=r"store.toml: \[route\] is not a table pos-app knows: did you mean "
                                          r"\[routes\]\?"):
        load_config(env)


def test_route_overrides_reach_the_route_table(tmp_path):
    text = 'base_url = "https://a.example.com"\n[routes]\n"terminal.void" = "POST /public/terminal/void-tx"\n'
    env = profile(tmp_path, text)
    assert load_config(env).route_table()["terminal.void"].path == "/public/terminal/void-tx"


def test_the_cash_drawer_is_the_printer_a_device_path_or_none(tmp_path):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\nprinter = "front"\ncash_drawer = "Printer"\n')
    assert load_config(env).cash_drawer == "printer"
    assert load_config({**env, "POS_CASH_DRAWER": "/dev/usb/lp0"}).cash_drawer == "/dev/usb/lp0"
    assert load_config(profile(tmp_path, 'base_url = "https://a.example.com"\n')).cash_drawer is None


def test_a_printer_drawer_needs_a_printer_naming_the_setting(tmp_path):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\ncash_drawer = "printer"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(env)
    assert str(refused.value).startswith(f"{tmp_path / 'store.toml'}: cash_drawer: ")
    assert "no printer is set: set printer (POS_PRINTER)" in str(refused.value)
    assert load_config({**env, "POS_PRINTER": "front"}).cash_drawer == "printer"
    installer = tmp_path / "store-profile.toml"  # a lane's printer from the store's [stations] table will do
    installer.write_text('[stations.l1]\nname = "Lane 1"\nprinter = "lane-1"\n')
    config = load_config({**env, "POS_STATION_ID": "l1", "POS_PROFILE": str(installer)})
    assert (config.printer, config.cash_drawer) == ("lane-1", "printer")


@pytest.mark.parametrize("value", ["dev/usb/lp0", "~/drawer", "COM3", "yes", "", "printer2"])
def test_a_cash_drawer_that_is_neither_the_printer_nor_an_absolute_path_is_refused(tmp_path, value):
    env = profile(tmp_path, 'base_url = "https://a.example.com"\nprinter = "front"\n')
    with pytest.raises(ConfigError) as refused:
        load_config({**env, "POS_CASH_DRAWER": value} if value else profile(
            tmp_path, 'base_url = "https://a.example.com"\ncash_drawer = ""\n'))
    where = "POS_CASH_DRAWER" if value else str(tmp_path / "store.toml")
    assert str(refused.value).startswith(f"{where}: cash_drawer: {value!r} is neither \"printer\"")
    assert "absolute path of the drawer's device (e.g. /dev/usb/lp0" in str(refused.value)


def test_a_cash_drawer_of_the_wrong_type_says_what_it_must_be(tmp_path):
    with pytest.raises(ConfigError, match=r'store.toml: cash_drawer has the wrong type \(bool\): it must be "printer"'):
        load_config(profile(tmp_path, 'base_url = "https://a.example.com"\ncash_drawer = true\n'))


def test_key_hash_comes_from_env_first_then_the_keyring(tmp_path):
    config = load_config(profile(tmp_path, 'base_url = "https://a.example.com"\nstore_id = "s9"\n'))
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        with pytest.raises(ConfigError, match="no key-hash for s9@https://a.example.com"):
            key_hash(config, {})
        keyring.set_password("pos-app", "s9@https://a.example.com", "from-keyring")
        assert key_hash(config, {}) == "from-keyring"
        assert key_hash(config, {"POS_KEY_HASH": "from-env"}) == "from-env"
    finally:
        keyring.set_keyring(previous)


@pytest.mark.parametrize(("value", "where"), [
    ("sk-123456\n", "line break (LF) at the end"), ("sk-123456\r", "carriage return (CR) at the end"),
    ("sk 123456", "space at position 3 of 9"),
    ("sk-1234é6", "character that is not plain ASCII (letters, digits, symbols) at position 8 of 9"),
])
def test_a_key_hash_that_cannot_be_sent_is_refused_with_where_never_the_value(tmp_path, memory_keyring, value,
                                                                               where):
    config = load_config(profile(tmp_path, 'base_url = "https://a.example.com"\nstore_id = "s9"\n'))
    with pytest.raises(ConfigError, match=re.escape(f"the key-hash in POS_KEY_HASH has a {where}")) as refused:
        key_hash(config, {"POS_KEY_HASH": value})
    assert "123" not in str(refused.value)
    memory_keyring.set_password("pos-app", "s9@https://a.example.com", value)
    with pytest.raises(ConfigError, match=re.escape(f"the key-hash in the OS keyring (user s9@https://a.example.com) "
                                                    f"has a {where}")) as refused:
        key_hash(config, {})
    assert "123" not in str(refused.value)
