"""Store configuration: a bad profile is refused with what to fix; the key never sits in a file."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import keyring
import pytest

from pos_app.config import RedactSecrets, key_hash, load_config
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


def test_route_overrides_reach_the_route_table(tmp_path):
    text = 'base_url = "https://a.example.com"\n[routes]\n"terminal.void" = "POST /public/terminal/void-tx"\n'
    env = profile(tmp_path, text)
    assert load_config(env).route_table()["terminal.void"].path == "/public/terminal/void-tx"


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


def test_log_records_have_the_secret_redacted():
    record = logging.LogRecord("pos_app", logging.INFO, __file__, 1, "sent with %s", ("sk-123",), None)
    RedactSecrets("sk-123").filter(record)
    assert "sk-123" not in record.getMessage() and "[redacted]" in record.getMessage()
