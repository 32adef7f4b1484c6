"""``pos-app staff …`` as a real child process: one JSON object, exit 0 or 1, no traceback."""

from __future__ import annotations

import csv
import getpass
import json
import os
import subprocess
import sys

import pytest

from pos_app.staff import CLOSED_AT, AuditAction, LockedOut, LockLevel, Role, Staff, StaffMember, WrongPin
from tests.staff.conftest import FAST


def run_staff(data_dir, *args: str, stdin: str | None = None) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POS_")}
    env["POS_DATA_DIR"] = str(data_dir)
    done = subprocess.run([sys.executable, "-m", "pos_app", "staff", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line, got {done.stdout!r} / {done.stderr!r}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(lines[0])


def test_add_list_sign_in_remove_round_trip(tmp_path):
    data = tmp_path / "data"
    code, payload = run_staff(data, "add", "Ann Lee", "--role", "manager", "--pin-from-stdin", stdin="48213\n")
    assert (code, payload["outcome"], payload["added"]) == (0, "ok", {"name": "Ann Lee", "role": "manager"})
    code, payload = run_staff(data, "add", "Bob", "--role", "cashier", "--pin-from-stdin", stdin="1357")
    assert code == 0, payload
    code, payload = run_staff(data, "list")
    assert code == 0
    assert payload == {"outcome": "ok", "file": str(data / "staff.sqlite3"), "locked_until": None, "wrong_pins": 0,
                       "staff": [{"name": "Ann Lee", "role": "manager"}, {"name": "Bob", "role": "cashier"}]}
    with Staff.open(data / "staff.sqlite3") as staff:  # the app signs in with what the CLI stored
        assert staff.sign_in("1357") == StaffMember("Bob", Role.CASHIER)
        assert staff.check_manager("48213").name == "Ann Lee"
    code, payload = run_staff(data, "remove", "bob")
    assert (code, payload["removed"]) == (0, {"name": "Bob", "role": "cashier"})
    with Staff.open(data / "staff.sqlite3") as staff:
        assert [m.name for m in staff.list()] == ["Ann Lee"]
        with pytest.raises(WrongPin):
            staff.sign_in("1357")
        actions = [(e.action, e.detail) for e in staff.audit()]
        assert actions == [("staff_removed", "Bob (cashier)"), ("staff_added", "Bob (cashier)"),
                           ("staff_added", "Ann Lee (manager)")]
        assert all(e.actor.startswith("os:") for e in staff.audit())


@pytest.mark.parametrize("stdin, words", [("12a4\n", "4 to 8 digits"), ("123\n", "4 to 8 digits"),
                                          ("", "no PIN on stdin")])
def test_a_bad_pin_is_invalid(tmp_path, stdin, words):
    code, payload = run_staff(tmp_path, "add", "Ann", "--role", "cashier", "--pin-from-stdin", stdin=stdin)
    assert (code, payload["outcome"]) == (1, "invalid")
    assert words in payload["error"]


def test_duplicates_and_unknown_names_are_invalid(tmp_path):
    assert run_staff(tmp_path, "add", "Ann", "--role", "manager", "--pin-from-stdin", stdin="4821\n")[0] == 0
    code, payload = run_staff(tmp_path, "add", "ann", "--role", "cashier", "--pin-from-stdin", stdin="1357\n")
    assert (code, payload["outcome"]) == (1, "invalid") and "already a staff member" in payload["error"]
    code, payload = run_staff(tmp_path, "add", "Bob", "--role", "cashier", "--pin-from-stdin", stdin="4821\n")
    assert (code, payload["outcome"]) == (1, "invalid") and "PIN is already used" in payload["error"]
    code, payload = run_staff(tmp_path, "remove", "Zed")
    assert (code, payload) == (1, {"outcome": "invalid", "error": "there is no staff member named 'Zed'"})


def test_usage_errors_are_invalid_json_and_the_pin_never_comes_from_argv(tmp_path):
    code, payload = run_staff(tmp_path, "add", "Ann", "--role", "owner", "--pin-from-stdin", stdin="4821\n")
    assert (code, payload["outcome"]) == (1, "invalid") and "--role" in payload["error"]
    code, payload = run_staff(tmp_path, "add", "Ann", "--role", "cashier", "--pin", "4821")
    assert (code, payload["outcome"]) == (1, "invalid")
    code, payload = run_staff(tmp_path, "add", "Ann", "--role", "cashier", stdin="4821\n")
    assert (code, payload["outcome"]) == (1, "invalid") and "--pin-from-stdin" in payload["error"]


def test_an_unwritable_data_dir_is_invalid(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    code, payload = run_staff(blocker / "data", "list")
    assert (code, payload["outcome"]) == (1, "invalid")
    assert "cannot create the folder" in payload["error"]


def test_a_damaged_staff_file_is_invalid(tmp_path):
    (tmp_path / "staff.sqlite3").write_bytes(b"garbage" * 50)
    code, payload = run_staff(tmp_path, "list")
    assert (code, payload["outcome"]) == (1, "invalid") and "not a staff file" in payload["error"]


def test_the_audit_trail_as_json_and_as_a_csv_file(tmp_path):
    data = tmp_path / "data"
    assert run_staff(data, "add", "Ann", "--role", "manager", "--pin-from-stdin", stdin="4821\n")[0] == 0
    with Staff.open(data / "staff.sqlite3") as staff:
        staff.record("Ann", AuditAction.VOID, "void of $12.50 (t-9): approved", reason="wrong item rung up")
    code, payload = run_staff(data, "audit")
    assert code == 0
    assert [(e["action"], e["reason"]) for e in payload["audit"]] == [("void", "wrong item rung up"),
                                                                     ("staff_added", "")]
    code, payload = run_staff(data, "audit", "--csv", str(tmp_path / "audit.csv"))
    assert (code, payload["entries"]) == (0, 2)
    with open(tmp_path / "audit.csv", newline="", encoding="utf-8") as exported:
        rows = list(csv.reader(exported))
    assert rows[0] == ["seq", "at", "actor", "action", "detail", "reason"]
    assert rows[1][2:] == ["Ann", "void", "void of $12.50 (t-9): approved", "wrong item rung up"]
    code, payload = run_staff(data, "audit", "--csv", str(tmp_path / "missing" / "audit.csv"))
    assert code == 1 and "cannot write the audit CSV" in payload["error"]


def test_training_staff_live_in_the_training_folder_that_make_run_uses(tmp_path):
    """Issue 16, item 14: ``make run`` (``pos-app --sandbox``) keeps its staff in
    ``<data dir>/training``; ``pos-app staff --training`` reaches them, plain ``pos-app staff``
    the station's, and adding staff to training (which starts with demo staff only) is refused."""
    from pos_app.profile import training_data_dir

    data = tmp_path / "data"
    assert training_data_dir({"POS_DATA_DIR": str(data)}) == data / "training"  # the app's (tests/ui: training)
    with Staff.open(data / "training" / "staff.sqlite3") as staff:
        staff.ensure_demo_staff()  # what the training app does at its start
    code, payload = run_staff(data, "--training", "list")
    assert (code, payload["file"]) == (0, str(data / "training" / "staff.sqlite3"))
    assert payload["staff"] == [{"name": "Demo Cashier", "role": "cashier"},
                                {"name": "Demo Manager", "role": "manager"}]
    code, payload = run_staff(data, "list")
    assert (code, payload["file"], payload["staff"]) == (0, str(data / "staff.sqlite3"), [])
    code, payload = run_staff(data, "--training", "add", "Eve Park", "--role", "cashier", "--pin-from-stdin",
                              stdin="2468\n")
    assert (code, payload["outcome"]) == (1, "invalid")
    assert payload["error"].startswith("training mode signs in with its demo staff only (PIN 1111 Demo Cashier")
    with Staff.open(data / "training" / "staff.sqlite3") as staff:
        assert [m.name for m in staff.list()] == ["Demo Cashier", "Demo Manager"]
        staff.ensure_demo_staff()  # training still starts


def test_unlock_lifts_a_lock_that_even_a_manager_cannot_and_is_audited(tmp_path):
    data = tmp_path / "data"
    with Staff.open(data / "staff.sqlite3", params=FAST) as staff:
        staff.add("Ann", Role.MANAGER, "4821")
        for _ in range(CLOSED_AT):
            with pytest.raises((WrongPin, LockedOut)):
                staff.sign_in("0000")
        with pytest.raises(LockedOut) as caught:
            staff.sign_in("4821")
        assert caught.value.level is LockLevel.CLOSED
        until = staff.locked_until()
        assert until is not None
    code, payload = run_staff(data, "list")
    assert (code, payload["locked_until"], payload["wrong_pins"]) == (0, until.isoformat(), CLOSED_AT)
    code, payload = run_staff(data, "unlock")
    assert (code, payload["outcome"], payload["unlocked"]) == (0, "ok", True)
    assert payload["was"] == {"level": "closed", "wrong_pins": CLOSED_AT, "locked_until": until.isoformat()}
    assert payload["by"] == f"os:{getpass.getuser()}"
    with Staff.open(data / "staff.sqlite3", params=FAST) as staff:
        assert staff.sign_in("4821").name == "Ann"
        [lifted, *_] = staff.audit()
        assert (lifted.actor, lifted.action) == (f"os:{getpass.getuser()}", "sign_in_unlocked")
        assert "by `pos-app staff unlock`" in lifted.detail
    code, payload = run_staff(data, "unlock")  # nothing to lift
    assert (code, payload["unlocked"], payload["was"]["wrong_pins"]) == (0, False, 0)


def test_a_member_may_have_a_language_of_their_own(tmp_path):
    data = tmp_path / "data"
    code, payload = run_staff(data, "add", "Ana", "--role", "cashier", "--language", "es-MX", "--pin-from-stdin",
                              stdin="2468\n")
    assert (code, payload["added"]) == (0, {"name": "Ana", "role": "cashier", "language": "es_MX"})
    with Staff.open(data / "staff.sqlite3") as staff:
        assert staff.sign_in("2468") == StaffMember("Ana", Role.CASHIER, "es_MX")
    code, payload = run_staff(data, "language", "ana", "fr")
    assert (code, payload["member"]) == (0, {"name": "Ana", "role": "cashier", "language": "fr"})
    code, payload = run_staff(data, "language", "Ana", "-")
    assert (code, payload["member"]) == (0, {"name": "Ana", "role": "cashier"})
    code, payload = run_staff(data, "language", "Ana", "elvish!")
    assert code == 1 and "not a language code; use one of en, es, fr" in payload["error"]
    code, payload = run_staff(data, "add", "Bo", "--role", "cashier", "--language", "??", "--pin-from-stdin",
                              stdin="1357\n")
    assert code == 1 and "not a language code" in payload["error"]
    with Staff.open(data / "staff.sqlite3") as staff:
        assert [m.name for m in staff.list()] == ["Ana"]
        assert [(e.action, e.detail) for e in staff.audit()][:2] == [
            ("staff_language", "Ana: the store language"), ("staff_language", "Ana: fr")]
