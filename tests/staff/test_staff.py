"""Staff: members, PIN sign-in, manager checks, lockout persisted in the file, audit."""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import stat
import threading
from datetime import datetime

import pytest

from pos_app.staff import (
    DEMO_CASHIER_PIN,
    DEMO_MANAGER_PIN,
    LOCKOUT,
    MAX_WRONG_PINS,
    DuplicateName,
    DuplicatePin,
    InvalidName,
    InvalidPin,
    LockedOut,
    NotAManager,
    Role,
    ScryptParams,
    Staff,
    StaffError,
    StaffFileError,
    StaffMember,
    StaffTooNew,
    UnknownMember,
    WrongPin,
    audit_csv,
)
from pos_app.staff.audit import AuditAction
from pos_app.staff.store import V1
from tests.staff.conftest import FAST


def test_add_list_and_sign_in_by_pin(open_staff):
    staff = open_staff()
    ann = staff.add("Ann", Role.MANAGER, "4821")
    bob = staff.add("  bob  ", "cashier", "90210")
    assert ann == StaffMember("Ann", Role.MANAGER) and ann.is_manager
    assert bob == StaffMember("bob", Role.CASHIER)
    assert staff.list() == [ann, bob]
    assert staff.sign_in("90210") == bob
    assert staff.sign_in("4821") == ann


def test_no_pin_is_ever_written_to_the_files(open_staff, staff_file):
    pins = ["73914826", "58203", "6649"]
    staff = open_staff()
    for i, pin in enumerate(pins):
        staff.add(f"member {i}", Role.CASHIER, pin)
    for pin in pins:
        staff.sign_in(pin)
    with pytest.raises(WrongPin):
        staff.sign_in("11223344")
    files = [p for p in staff_file.parent.iterdir() if p.name.startswith(staff_file.name)]
    assert staff_file in files
    for path in files:
        data = path.read_bytes()
        for pin in [*pins, "11223344"]:
            assert pin.encode() not in data, f"{pin} found in {path.name}"
            assert pin.encode("utf-16-le") not in data
    hashes = [row[0] for row in sqlite3.connect(staff_file).execute("SELECT pin_hash FROM members")]
    assert len(hashes) == 3 and all(h.startswith("scrypt$n=16,r=1,p=1$") for h in hashes)


def test_the_file_is_readable_by_its_owner_only(open_staff, staff_file):
    open_staff()
    assert stat.S_IMODE(os.stat(staff_file).st_mode) == 0o600


def test_wrong_pins_count_down_then_lock_the_station(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    for left in range(MAX_WRONG_PINS - 1, 0, -1):
        with pytest.raises(WrongPin) as caught:
            staff.sign_in("0000")
        assert caught.value.tries_left == left
        assert f"{left} tr" in str(caught.value)
    with pytest.raises(LockedOut) as caught:
        staff.sign_in("0000")
    assert caught.value.until == clock.now + LOCKOUT
    assert "locked until" in str(caught.value)
    assert staff.locked_until() == clock.now + LOCKOUT
    with pytest.raises(LockedOut):  # even the right PIN, and the manager check too
        staff.sign_in("4821")
    with pytest.raises(LockedOut):
        staff.check_manager("4821")
    clock.advance(minutes=4, seconds=59)
    with pytest.raises(LockedOut):
        staff.sign_in("4821")
    clock.advance(seconds=1)
    assert staff.locked_until() is None
    assert staff.sign_in("4821").name == "Ann"
    assert [e.action for e in staff.audit()] == ["sign_in_locked", "staff_added"]


def test_the_lockout_and_the_count_survive_a_restart(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.CASHIER, "4821")
    for _ in range(2):
        with pytest.raises(WrongPin):
            staff.sign_in("1357")
    staff.close()
    staff = open_staff()
    assert staff.wrong_pins() == 2
    with pytest.raises(WrongPin) as caught:
        staff.sign_in("1357")
    assert caught.value.tries_left == MAX_WRONG_PINS - 3
    for _ in range(2):
        with pytest.raises((WrongPin, LockedOut)):
            staff.sign_in("1357")
    until = staff.locked_until()
    assert until == clock.now + LOCKOUT
    staff.close()
    reopened = open_staff()
    with pytest.raises(LockedOut) as caught:
        reopened.sign_in("4821")
    assert caught.value.until == until
    clock.advance(minutes=5)
    assert reopened.sign_in("4821").name == "Ann"


def test_a_correct_pin_resets_the_count(open_staff):
    staff = open_staff()
    staff.add("Ann", Role.CASHIER, "4821")
    for _ in range(MAX_WRONG_PINS - 1):
        with pytest.raises(WrongPin):
            staff.sign_in("0000")
    staff.sign_in("4821")
    assert staff.wrong_pins() == 0
    with pytest.raises(WrongPin) as caught:
        staff.sign_in("0000")
    assert caught.value.tries_left == MAX_WRONG_PINS - 1


def test_a_pin_breaking_the_rules_is_not_counted(open_staff):
    staff = open_staff()
    staff.add("Ann", Role.CASHIER, "4821")
    for _ in range(MAX_WRONG_PINS + 2):
        with pytest.raises(InvalidPin):
            staff.sign_in("12")
    assert staff.wrong_pins() == 0


def test_wrong_pins_count_with_no_staff_at_all(open_staff):
    staff = open_staff()
    with pytest.raises(WrongPin):
        staff.sign_in("4821")
    assert staff.wrong_pins() == 1


def test_manager_check(open_staff):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    staff.add("Bob", Role.CASHIER, "1357")
    assert staff.check_manager("4821") == StaffMember("Ann", Role.MANAGER)
    with pytest.raises(WrongPin):
        staff.check_manager("0000")
    with pytest.raises(NotAManager) as caught:
        staff.check_manager("1357")
    assert caught.value.member_name == "Bob"
    assert "1357" not in str(caught.value)
    assert staff.wrong_pins() == 1  # a cashier's PIN neither counts nor resets


def test_names_are_unique_ignoring_case_and_pins_are_unique(open_staff):
    staff = open_staff()
    staff.add("Ann Lee", Role.MANAGER, "4821")
    with pytest.raises(DuplicateName):
        staff.add("ANN LEE", Role.CASHIER, "1357")
    with pytest.raises(DuplicatePin) as caught:
        staff.add("Bob", Role.CASHIER, "4821")
    assert "Ann" not in str(caught.value)  # whose PIN it is stays secret
    assert isinstance(caught.value, ValueError)
    assert [m.name for m in staff.list()] == ["Ann Lee"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 65, "Ann\nLee", "Ann\x00"])
def test_bad_names_are_refused(open_staff, name):
    with pytest.raises(InvalidName):
        open_staff().add(name, Role.CASHIER, "4821")


def test_bad_role_and_pin_are_value_errors(open_staff):
    staff = open_staff()
    with pytest.raises(ValueError, match="cashier or manager"):
        staff.add("Ann", "owner", "4821")
    with pytest.raises(InvalidPin):
        staff.add("Ann", Role.CASHIER, "482")
    assert staff.list() == []


def test_remove_and_the_audit_of_staff_changes(open_staff):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821", by="os:owner")
    staff.add("Bob", Role.CASHIER, "1357", by="Ann")
    assert staff.remove("bob", by="Ann") == StaffMember("Bob", Role.CASHIER)
    with pytest.raises(UnknownMember, match="no staff member named 'Bob'"):
        staff.remove("Bob")
    with pytest.raises(WrongPin):
        staff.sign_in("1357")  # a removed member's PIN no longer signs in
    entry = staff.record("Ann", AuditAction.OVERRIDE, "line 3: 4.99 -> 3.99", reason="damaged box")
    audit = staff.audit()
    assert audit[0] == entry and entry.reason == "damaged box"
    assert [(e.actor, e.action, e.detail) for e in audit] == [
        ("Ann", "override", "line 3: 4.99 -> 3.99"),
        ("Ann", "staff_removed", "Bob (cashier)"),
        ("Ann", "staff_added", "Bob (cashier)"),
        ("os:owner", "staff_added", "Ann (manager)"),
    ]
    assert [e.seq for e in staff.audit(limit=2)] == [audit[0].seq, audit[1].seq]
    with pytest.raises(ValueError):
        staff.record("", AuditAction.VOID)
    with pytest.raises(ValueError):
        staff.record("Ann", "dance")  # type: ignore[arg-type]  # not an action the trail knows


def test_the_audit_exports_as_csv_a_spreadsheet_cannot_run(open_staff, clock):
    staff = open_staff()
    staff.record("Ann", AuditAction.REFUND, "refund of $5.00 on t-1: approved", reason='=HYPERLINK("x"), "quoted"')
    clock.advance(seconds=1)
    staff.record("Ann", AuditAction.VOID, "void of t-2: approved", reason="customer changed mind")
    rows = list(csv.reader(io.StringIO(audit_csv(staff.audit()))))
    assert rows[0] == ["seq", "at", "actor", "action", "detail", "reason"]
    assert [row[2:] for row in rows[1:]] == [
        ["Ann", "void", "void of t-2: approved", "customer changed mind"],
        ["Ann", "refund", "refund of $5.00 on t-1: approved", '\'=HYPERLINK("x"), "quoted"'],
    ]
    assert datetime.fromisoformat(rows[1][1]).tzinfo is not None
    since = staff.audit()[0].at
    assert [e.action for e in staff.audit(since=since)] == ["void"]


def test_a_version_1_staff_file_gains_the_reason_column_and_keeps_its_audit(staff_file):
    staff_file.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(staff_file)
    conn.executescript(";".join(V1) + ";PRAGMA user_version = 1;")
    conn.execute("INSERT INTO audit (at, actor, action, detail) VALUES "
                 "('2026-01-02T03:04:05.000000+00:00', 'os:owner', 'staff_added', 'Ann (manager)')")
    conn.commit()
    conn.close()
    with Staff.open(staff_file, params=FAST) as staff:
        [old] = staff.audit()
        assert (old.actor, old.action, old.detail, old.reason) == ("os:owner", "staff_added", "Ann (manager)", "")
        staff.record("Ann", AuditAction.SETTINGS_CHANGED, "theme: light -> dark", reason="night shift")
        assert staff.audit()[0].reason == "night shift"


def test_the_audit_is_append_only(open_staff, staff_file):
    open_staff().record("Ann", AuditAction.VOID, "order 12")
    conn = sqlite3.connect(staff_file)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM audit")


def test_demo_staff(open_staff, tmp_path):
    staff = open_staff()
    first = staff.ensure_demo_staff()
    assert first == staff.ensure_demo_staff()  # idempotent
    assert staff.sign_in(DEMO_CASHIER_PIN) == StaffMember("Demo Cashier", Role.CASHIER)
    assert staff.check_manager(DEMO_MANAGER_PIN) == StaffMember("Demo Manager", Role.MANAGER)
    with Staff.open(tmp_path / "store" / "staff.sqlite3", params=FAST) as real:
        real.add("Ann", Role.MANAGER, "4821")
        with pytest.raises(StaffError, match="real staff"):
            real.ensure_demo_staff()
        assert [m.name for m in real.list()] == ["Ann"]


def test_a_stronger_cost_upgrades_a_hash_at_the_next_sign_in(open_staff, staff_file):
    open_staff().add("Ann", Role.CASHIER, "4821")
    stronger = ScryptParams(n=64, r=2, p=1)
    staff = open_staff(params=stronger)
    assert staff.sign_in("4821").name == "Ann"
    (stored,) = sqlite3.connect(staff_file).execute("SELECT pin_hash FROM members").fetchone()
    assert stored.startswith("scrypt$n=64,r=2,p=1$")
    assert open_staff().sign_in("4821").name == "Ann"  # the weaker setting still verifies it


def test_threads_share_one_staff(open_staff):
    staff = open_staff()
    staff.add("Ann", Role.CASHIER, "4821")
    errors: list[BaseException] = []

    def work(pin: str) -> None:
        try:
            staff.sign_in(pin)
        except BaseException as error:  # collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=work, args=("0000" if i % 2 else "4821",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(e, WrongPin) for e in errors) and len(errors) == 4
    assert staff.wrong_pins() <= 4


def test_two_processes_count_wrong_pins_together(open_staff, staff_file, clock):
    first, second = open_staff(), open_staff()
    first.add("Ann", Role.CASHIER, "4821")
    for staff in (first, second, first, second):
        with pytest.raises(WrongPin):
            staff.sign_in("0000")
    with pytest.raises(LockedOut):
        second.sign_in("0000")
    with pytest.raises(LockedOut):
        first.sign_in("4821")


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(staff_file):
    staff_file.parent.mkdir(parents=True)
    staff_file.write_bytes(b"not a database at all" * 10)
    with pytest.raises(StaffFileError, match="not a staff file"):
        Staff.open(staff_file)
    assert staff_file.read_bytes() == b"not a database at all" * 10


def test_another_database_is_refused(staff_file):
    staff_file.parent.mkdir(parents=True)
    conn = sqlite3.connect(staff_file)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StaffFileError, match="not a pos-app staff file"):
        Staff.open(staff_file)


def test_a_newer_file_is_refused_untouched(open_staff, staff_file):
    open_staff().close()
    conn = sqlite3.connect(staff_file)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = staff_file.read_bytes()
    with pytest.raises(StaffTooNew, match="newer pos-app"):
        Staff.open(staff_file)
    assert staff_file.read_bytes() == before


def test_a_data_dir_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StaffFileError, match="cannot create the folder"):
        Staff.open(blocker / "data" / "staff.sqlite3")


def test_a_closed_staff_says_so(open_staff):
    staff = open_staff()
    staff.close()
    with pytest.raises(StaffFileError, match="closed"):
        staff.list()
