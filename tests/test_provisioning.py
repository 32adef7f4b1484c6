"""Provisioning a station: store.toml written atomically and validated (never the key-hash),
the key-hash in the OS keyring, and ``pos-app setup`` as a child process, including
against a REAL Secret Service (gnome-keyring in its own D-Bus session, HOME in tmp_path):
then ``pos-app terminal list`` with no POS_KEY_HASH reads the key from that keyring."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import keyring
import pytest
from keyring.backends import null

from pos_app.config import KEYRING_SERVICE, key_hash, load_config
from pos_app.profile import ConfigError
from pos_app.provisioning import (
    KeySource,
    NoKeyring,
    SetupError,
    StationSetup,
    check_key,
    check_manager,
    check_service,
    check_setup,
    environment_key,
    key_source,
    keyring_usable,
    provision,
    provision_station,
    read_existing,
    set_key_instructions,
    store_key,
    write_profile,
)
from pos_app.staff import AuditAction, Role, Staff, StaffMember, staff_path
from tests.ports import refused_port
from tests.system import require_tool
from tests.terminal.cli_runner import cli_command

SETUP = StationSetup(base_url="https://payments.example.com", store_id="harbor-7", station_id="lane-2",
                     store_name="Harbor Books", terminal_id="tb-2001")


# -- checking what was typed ---------------------------------------------------------------


def test_check_setup_trims_and_normalises():
    setup = check_setup(base_url=" https://payments.example.com/ ", store_id=" harbor-7 ", station_id="lane-2",
                        store_name="  Harbor Books ", terminal_id=" ", printer="", gateway="B")
    assert setup == StationSetup(base_url="https://payments.example.com", store_id="harbor-7", station_id="lane-2",
                                 store_name="Harbor Books", gateway="b")
    assert setup.keyring_user == "harbor-7@https://payments.example.com"


@pytest.mark.parametrize("change,sentence,field", [
    ({"base_url": ""}, "Type the payment service's address", "base_url"),
    ({"base_url": "http://payments.example.com"}, "must start with https://", "base_url"),
    ({"base_url": "payments.example.com"}, "must look like https://payments.example.com", "base_url"),
    ({"store_id": " "}, "Type the store id.", "store_id"),
    ({"station_id": "lane 2"}, "The station id is 1 to 64 letters", "station_id"),
    ({"store_name": "a\nb"}, "no control characters", "store_name"),
    ({"terminal_id": "tb 1"}, "The terminal id has at most 64 characters and no spaces", "terminal_id"),
    ({"printer": "office/printer"}, "A printer name has no spaces, '/' or '#'", "printer"),
    ({"gateway": "x"}, "The gateway is one of auto, s, b", "gateway"),
])
def test_check_setup_refuses_with_a_sentence_and_the_field(change, sentence, field):
    values = {"base_url": "https://payments.example.com", "store_id": "harbor-7", "station_id": "lane-2", **change}
    with pytest.raises(SetupError, match=sentence) as caught:
        check_setup(**values)
    assert caught.value.field == field


def test_check_key_and_manager():
    assert check_key("  sandbox-key-type-b\n") == "sandbox-key-type-b"
    for bad, sentence in (("", "Type or paste"), ("two words", "no spaces"), ("é" * 3, "no spaces")):
        with pytest.raises(SetupError, match=sentence):
            check_key(bad)
    assert check_manager(" Ann Lee ", "4821", "4821") == ("Ann Lee", "4821")
    for args, sentence in ((("", "4821", "4821"), "Type the manager's name."),
                           (("Ann", "48", "48"), "4 to 8 digits"), (("Ann", "48a1", "48a1"), "4 to 8 digits"),
                           (("Ann", "4821", "4812"), "not the same")):
        with pytest.raises(SetupError, match=sentence) as caught:
            check_manager(*args)
        assert "4821" not in str(caught.value) and "4812" not in str(caught.value)


# -- store.toml ----------------------------------------------------------------------------


def test_the_profile_is_written_atomically_and_loads(tmp_path):
    data = tmp_path / "new" / "data"  # folders are created
    result = write_profile(data, SETUP)
    assert result.profile == data / "store.toml" and result.kept == () and result.previous_saved_as is None
    assert sorted(p.name for p in data.iterdir()) == ["store.toml"]  # no temporary file left behind
    config = load_config({"POS_DATA_DIR": str(data)})
    assert (config.base_url, config.store_id, config.station_id, config.store_name, config.terminal_id,
            config.printer, config.gateway) == (SETUP.base_url, "harbor-7", "lane-2", "Harbor Books", "tb-2001",
                                                None, "auto")
    assert read_existing(data)["terminal_id"] == "tb-2001"


def test_awkward_text_survives_the_round_trip(tmp_path):
    name = 'Café "Quote" \\ back\tslash ☕'
    write_profile(tmp_path, StationSetup(base_url="http://127.0.0.1:8080", store_id="s", station_id="l",
                                         store_name=name))
    assert load_config({"POS_DATA_DIR": str(tmp_path)}).store_name == name
    assert tomllib.loads((tmp_path / "store.toml").read_text())["store_name"] == name


def test_other_settings_of_a_valid_profile_are_kept(tmp_path):
    (tmp_path / "store.toml").write_text('base_url = "https://old.example.com"\nprinter = "Old"\ntheme = "dark"\n'
                                         'read_timeout = 12.5\n[routes]\n"terminal.void" = "POST /public/v"\n')
    result = write_profile(tmp_path, SETUP)
    assert result.kept == ("read_timeout", "routes", "theme")
    profile = tomllib.loads((tmp_path / "store.toml").read_text())
    assert profile["base_url"] == SETUP.base_url and "printer" not in profile  # setup's own settings replaced
    assert profile["theme"] == "dark" and profile["routes"] == {"terminal.void": "POST /public/v"}
    assert load_config({"POS_DATA_DIR": str(tmp_path)}).read_timeout == 12.5


def test_setup_keeps_what_it_does_not_own_as_written_other_tools_tables_and_comments_included(tmp_path):
    text = ('# lane 2, by the window\n'
            'base_url = "https://old.example.com"  # moved in May\n'
            'printer = "Old"\n'
            'theme = "dark"\n\n'
            '[routes]\n# the old gateway\n"terminal.void" = "POST /public/v"\n\n'
            '[backup]  # the nightly copy script\nkeep_days = 7\n')
    (tmp_path / "store.toml").write_text(text)
    result = write_profile(tmp_path, SETUP)
    assert result.kept == ("backup", "routes", "theme") and result.previous_saved_as is None
    written = (tmp_path / "store.toml").read_text()
    for line in ("# lane 2, by the window", 'theme = "dark"', "# the old gateway", '"terminal.void" = "POST /public/v"',
                 "[backup]  # the nightly copy script", "keep_days = 7"):
        assert line in written
    assert tomllib.loads(written) == {
        "base_url": SETUP.base_url, "theme": "dark", "store_id": "harbor-7", "station_id": "lane-2",
        "store_name": "Harbor Books", "terminal_id": "tb-2001", "gateway": "auto",
        "routes": {"terminal.void": "POST /public/v"}, "backup": {"keep_days": 7},
    }  # the setup's settings set (printer: none, so removed), the rest as it was
    assert written.index("[routes]") > written.index("terminal_id")  # new settings above the tables
    assert load_config({"POS_DATA_DIR": str(tmp_path)}).theme == "dark"


def test_a_broken_profile_is_kept_as_bak(tmp_path):
    (tmp_path / "store.toml").write_text("base_url = \n")
    result = write_profile(tmp_path, SETUP)
    assert result.previous_saved_as == tmp_path / "store.toml.bak"
    assert (tmp_path / "store.toml.bak").read_text() == "base_url = \n"
    assert load_config({"POS_DATA_DIR": str(tmp_path)}).store_id == "harbor-7"


def test_the_key_hash_never_goes_into_the_file(tmp_path, memory_keyring):
    key = "k3y-hash-0123456789"
    with pytest.raises(SetupError, match="The key-hash was typed into the store name") as caught:
        write_profile(tmp_path, StationSetup(base_url=SETUP.base_url, store_id="s", station_id="l",
                                             store_name=f"Harbor {key}"), key=key)
    assert key not in str(caught.value)
    with pytest.raises(SetupError, match="typed into the terminal id"):
        provision(tmp_path, StationSetup(base_url=SETUP.base_url, store_id="s", station_id="l", terminal_id=key), key)
    assert not (tmp_path / "store.toml").exists() and memory_keyring.secrets == {}
    # a file that already holds one is replaced, and not kept as a backup either
    (tmp_path / "store.toml").write_text(f'base_url = "{SETUP.base_url}"\nkey_hash = "{key}"\n')
    result = write_profile(tmp_path, SETUP)
    assert result.previous_saved_as is None and not (tmp_path / "store.toml.bak").exists()
    assert key not in (tmp_path / "store.toml").read_text()


def test_an_unwritable_data_dir_is_a_sentence(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SetupError, match="cannot be written"):
        write_profile(blocker / "data", SETUP)


# -- the keyring ---------------------------------------------------------------------------


def test_provision_stores_the_key_where_the_app_reads_it(tmp_path, memory_keyring):
    result = provision(tmp_path, SETUP, "sandbox-key-type-b\n")
    assert memory_keyring.secrets == {(KEYRING_SERVICE, "harbor-7@https://payments.example.com"): "sandbox-key-type-b"}
    assert result.keyring_backend == "tests.keyrings.MemoryKeyring"
    assert key_hash(load_config({"POS_DATA_DIR": str(tmp_path)}), {}) == "sandbox-key-type-b"
    assert "sandbox-key-type-b" not in (tmp_path / "store.toml").read_text()


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_is_a_clear_error_and_nothing_is_written(tmp_path):
    with pytest.raises(NoKeyring, match="no keyring: this computer has no usable OS keyring; set POS_KEY_HASH"):
        provision(tmp_path, SETUP, "sandbox-key-type-b")
    assert not (tmp_path / "store.toml").exists()
    write_profile(tmp_path, SETUP)  # the app's side: it says what to do instead
    with pytest.raises(ConfigError, match=r"cannot read the OS keyring \(NoKeyringError\); set POS_KEY_HASH"):
        key_hash(load_config({"POS_DATA_DIR": str(tmp_path)}), {})


@pytest.mark.usefixtures("no_keyring")
@pytest.mark.parametrize(("env", "source", "kept"), [
    ({"POS_KEY_HASH": "sandbox-key-type-b"}, KeySource.ENVIRONMENT, "key-hash from POS_KEY_HASH, not stored"),
    ({}, KeySource.SESSION, "key-hash for this session only, not stored (no keyring)"),
])
def test_without_a_keyring_the_setup_is_written_and_the_key_lives_outside_files(tmp_path, env, source, kept):
    assert key_source(env) is source and not keyring_usable()
    provision_station(tmp_path, SETUP, "sandbox-key-type-b", ("Ann Lee", "4821"), source=source)
    assert tomllib.loads((tmp_path / "store.toml").read_text())["store_id"] == "harbor-7"
    assert [p for p in tmp_path.rglob("*") if p.is_file() and b"sandbox-key-type-b" in p.read_bytes()] == []
    with Staff.open(staff_path(tmp_path)) as staff:
        assert staff.list() == [StaffMember("Ann Lee", Role.MANAGER)]
        [settings] = [entry for entry in staff.audit() if entry.action == AuditAction.SETTINGS_CHANGED]
        assert settings.detail.endswith(kept)


def test_the_keyring_is_where_the_key_lives_when_there_is_one_and_no_pos_key_hash(memory_keyring):
    assert key_source({}) is KeySource.KEYRING
    assert key_source({"POS_KEY_HASH": "k"}) is KeySource.ENVIRONMENT


@pytest.mark.parametrize(("value", "sentence"), [
    ("sandbox-key-type-b\n", "POS_KEY_HASH, set in this app's environment, has a line break (LF) at the end: set it "
                             "again without it"),
    ("", "POS_KEY_HASH, set in this app's environment, is empty"),
])
def test_pos_key_hash_is_taken_as_the_app_sends_it_or_refused_with_where(value, sentence):
    with pytest.raises(SetupError, match=re.escape(sentence)) as refused:
        environment_key({"POS_KEY_HASH": value})
    assert refused.value.field == "key" and "type-b" not in str(refused.value)
    assert environment_key({"POS_KEY_HASH": "sandbox-key-type-b"}) == "sandbox-key-type-b"


@pytest.mark.parametrize(("platform", "words"), [
    ("linux", "~/.config/environment.d/pos-app.conf"), ("win32", 'setx POS_KEY_HASH "<key-hash>"'),
    ("darwin", "launchctl setenv POS_KEY_HASH"),
])
def test_the_way_to_set_pos_key_hash_is_said_for_each_system(platform, words):
    assert words in set_key_instructions(platform)


def test_a_keyring_that_keeps_nothing_is_refused(tmp_path):
    previous = keyring.get_keyring()
    keyring.set_keyring(null.Keyring())
    try:
        with pytest.raises(NoKeyring, match=r"no keyring: the OS keyring \(keyring.backends.null.Keyring\) did not "
                                            "keep the key-hash"):
            store_key(SETUP.base_url, SETUP.store_id, "sandbox-key-type-b")
    finally:
        keyring.set_keyring(previous)


def test_provision_station_adds_the_first_manager(tmp_path, memory_keyring):
    provision_station(tmp_path, SETUP, "sandbox-key-type-b", ("Ann Lee", "4821"))
    with Staff.open(staff_path(tmp_path)) as staff:
        assert staff.list() == [StaffMember("Ann Lee", Role.MANAGER)]
        assert staff.check_manager("4821").name == "Ann Lee"
    with pytest.raises(SetupError, match="A staff member named ann lee already exists") as caught:
        provision_station(tmp_path, SETUP, "sandbox-key-type-b", ("ann lee", "1357"))
    assert caught.value.field == "manager"
    provision_station(tmp_path, SETUP, "sandbox-key-type-b", None)  # run again, staff kept


def test_every_setup_is_in_the_audit_trail_without_the_key(tmp_path, memory_keyring):
    provision(tmp_path, SETUP, "sandbox-key-type-b", by="os:ann")
    with Staff.open(staff_path(tmp_path)) as staff:
        [entry] = staff.audit()
    assert (entry.actor, entry.action) == ("os:ann", "settings_changed")
    assert SETUP.base_url in entry.detail and f"station_id {SETUP.station_id}" in entry.detail
    assert "sandbox-key-type-b" not in entry.detail


# -- asking the service --------------------------------------------------------------------


async def test_check_service_lists_the_terminals_or_says_why_not(sandbox):
    terminals = await check_service(sandbox.base_url, sandbox.keys["B"])
    assert [t.id for t in terminals] == ["tb-2001", "tb-2002", "tb-2003"]
    with pytest.raises(SetupError, match=r"refused this key-hash \(401 Unauthorized\)") as caught:
        await check_service(sandbox.base_url, "not-the-key")
    assert caught.value.field == "key" and "not-the-key" not in str(caught.value)
    with refused_port() as port, pytest.raises(SetupError, match="Cannot reach the payment service at http://127.0.0.1"):
        await check_service(f"http://127.0.0.1:{port}", sandbox.keys["B"])
    with pytest.raises(SetupError, match="must start with https://"):
        await check_service("http://payments.example.com", sandbox.keys["B"])


# -- pos-app setup -------------------------------------------------------------------------


def setup_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POS_", "PYTHON_KEYRING"))}
    env.update(POS_DATA_DIR=str(data), **extra)
    return env


def run_setup(env: dict[str, str], *args: str, key: str | None = "sandbox-key-type-b\n") -> tuple[int, dict]:
    done = subprocess.run(cli_command("setup", *args), env=env, input=key, capture_output=True, text=True,
                          timeout=60)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line, got {done.stdout!r} / {done.stderr!r}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(lines[0])


ARGS = ("--base-url", "https://payments.example.com", "--store-id", "harbor-7", "--station-id", "lane-2",
        "--key-from-stdin")


def test_setup_cli_without_a_keyring_exits_1_with_the_way_out(tmp_path):
    env = setup_env(tmp_path / "data", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    code, payload = run_setup(env, *ARGS)
    assert code == 1 and payload["outcome"] == "invalid"
    assert payload["error"].startswith("no keyring:") and "POS_KEY_HASH" in payload["error"]
    assert "sandbox-key-type-b" not in json.dumps(payload) and not (tmp_path / "data" / "store.toml").exists()


@pytest.mark.parametrize("args,key,expected", [
    (ARGS, "", "no key-hash on stdin"),
    (("--base-url", "http://payments.example.com", *ARGS[2:]), "k\n", "must start with https://"),
    (("--store-id", "harbor-7", "--key-from-stdin"), "k\n", "the following arguments are required: --base-url"),
    ((*ARGS[:-1],), "k\n", "--key-from-stdin"),  # never from the command line
    ((*ARGS, "--terminal", "tb 1"), "k\n", "The terminal id has at most 64 characters"),
])
def test_setup_cli_refuses_bad_input_with_exit_1(tmp_path, args, key, expected):
    env = setup_env(tmp_path / "data", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    code, payload = run_setup(env, *args, key=key)
    assert (code, payload["outcome"]) == (1, "invalid") and expected in payload["error"]


SECRET_SERVICE_SCRIPT = """
set -e
echo | gnome-keyring-daemon --unlock --components=secrets >/dev/null
"$PY" -c 'import keyring; b = keyring.get_keyring(); print(type(b).__module__ + "." + type(b).__name__)' > backend.txt
"$PY" -m pos_app setup --base-url "$URL" --store-id harbor-7 --station-id lane-2 --store-name "Harbor Books" \\
    --terminal tb-2001 --key-from-stdin < key.txt > setup.json
"$PY" -c 'import keyring, sys; print(keyring.get_password("pos-app", sys.argv[1]))' "harbor-7@$URL" > stored.txt
"$PY" -m pos_app terminal list > list.json
"""


def test_setup_against_a_real_secret_service_then_the_cli_reads_the_key_from_it(tmp_path, sandbox):
    dbus_run_session = require_tool("dbus-run-session", "dbus-daemon")
    require_tool("gnome-keyring-daemon", "gnome-keyring")
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "key.txt").write_text(sandbox.keys["B"] + "\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POS_", "PYTHON_KEYRING", "XDG_", "DBUS_", "GNOME_KEYRING", "KEYRING"))}
    env.update(HOME=str(home), POS_DATA_DIR=str(tmp_path / "data"), URL=sandbox.base_url, PY=sys.executable,
               PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    done = subprocess.run([dbus_run_session, "--", "sh", "-c", SECRET_SERVICE_SCRIPT], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    outputs = {name: (tmp_path / name).read_text() if (tmp_path / name).exists() else None
               for name in ("backend.txt", "setup.json", "stored.txt", "list.json")}
    assert done.returncode == 0, f"{shlex.join(done.args[:2])} failed: {done.stderr}\n{outputs}"
    assert outputs["backend.txt"].strip() == "keyring.backends.SecretService.Keyring"
    setup = json.loads(outputs["setup.json"])
    assert setup["outcome"] == "ok" and setup["keyring"] == {
        "service": "pos-app", "user": f"harbor-7@{sandbox.base_url}",
        "backend": "keyring.backends.SecretService.Keyring"}
    assert outputs["stored.txt"].strip() == sandbox.keys["B"]
    assert list((home / ".local" / "share" / "keyrings").glob("*.keyring"))  # the test's own keyring file
    profile = (tmp_path / "data" / "store.toml").read_text()
    assert sandbox.keys["B"] not in profile and tomllib.loads(profile)["terminal_id"] == "tb-2001"
    listing = json.loads(outputs["list.json"])  # no POS_KEY_HASH: the key came from the Secret Service
    assert [t["id"] for t in listing["terminals"]] == ["tb-2001", "tb-2002", "tb-2003"]


def test_provisioning_and_the_setup_command_import_no_qt():
    code = ("import sys; from pos_app.cli import build_parser; import pos_app.provisioning; build_parser(); "
            "bad = sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'qasync', 'pos_app.ui'))); "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"pos-app setup pulled in Qt: {done.stdout}{done.stderr}"
