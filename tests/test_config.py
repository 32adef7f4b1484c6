"""Store configuration: a bad profile is refused with what to fix; the key never sits in a file."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from pos_app.config import key_hash, load_config, setup_logging
from pos_app.profile import ConfigError

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


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring: headless test machines have no OS keyring service."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.secrets = {}

    def get_password(self, service, username):
        return self.secrets.get((service, username))

    def set_password(self, service, username, password):
        self.secrets[(service, username)] = password

    def delete_password(self, service, username):
        self.secrets.pop((service, username), None)


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


def test_the_log_file_has_the_secret_redacted_from_messages_and_tracebacks(tmp_path):
    config = load_config(profile(tmp_path, 'base_url = "https://a.example.com"\n'))
    root = logging.getLogger("pos_app")
    handlers, level = root.handlers[:], root.level
    try:
        setup_logging(config, "sk-123456")
        log = logging.getLogger("pos_app.tests")
        log.info("sent with %s", "sk-123456")
        try:
            raise RuntimeError("the service said: bad key sk-123456")
        except RuntimeError:
            log.exception("the request failed")
        for handler in root.handlers:
            handler.close()
    finally:
        root.handlers[:], root.level = handlers, level
    written = config.log_path.read_text(encoding="utf-8")
    assert "RuntimeError: the service said: bad key [redacted]" in written and "sent with [redacted]" in written
    assert "sk-123456" not in written


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
