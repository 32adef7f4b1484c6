"""Staff: members, PIN sign-in, manager checks, lockout persisted in the file, audit."""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import stat
import threading
from datetime import datetime, timedelta

import pytest

from pos_app.staff import (
    CLOSED_AT,
    DEMO_CASHIER_PIN,
    DEMO_MANAGER_PIN,
    LOCKOUT,
    LOCKOUT_CAP,
    MAX_WRONG_PINS,
    DuplicateName,
    DuplicatePin,
    InvalidName,
    InvalidPin,
    LockedOut,
    LockLevel,
    LockState,
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
from pos_app.staff.file import V1, V2
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


def wrong(staff, times: int, pin: str = "0000", check=None) -> StaffError:
    """Type a wrong PIN ``times`` times; the last refusal."""
    refusal: StaffError | None = None
    for _ in range(times):
        with pytest.raises((WrongPin, LockedOut)) as caught:
            (check or staff.sign_in)(pin)
        refusal = caught.value
    assert refusal is not None
    return refusal


def test_wrong_pins_count_down_then_lock_the_station(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    staff.add("Bob", Role.CASHIER, "1357")
    for left in range(MAX_WRONG_PINS - 1, 0, -1):
        with pytest.raises(WrongPin) as caught:
            staff.sign_in("0000")
        assert caught.value.tries_left == left
        assert f"{left} {'try' if left == 1 else 'tries'} left" in str(caught.value)
    with pytest.raises(LockedOut) as caught:
        staff.sign_in("0000")
    assert caught.value.until == clock.now + LOCKOUT and caught.value.level is LockLevel.LOCKED
    assert "locked until" in str(caught.value) and "manager's PIN" in str(caught.value)
    assert staff.locked_until() == clock.now + LOCKOUT
    with pytest.raises(LockedOut):  # a cashier's right PIN, and a manager's approval too
        staff.sign_in("1357")
    with pytest.raises(LockedOut) as caught:
        staff.check_manager("4821")
    assert caught.value.override and "approvals are locked" in str(caught.value)
    clock.advance(minutes=4, seconds=59)
    with pytest.raises(LockedOut):
        staff.sign_in("1357")
    clock.advance(seconds=1)
    assert staff.locked_until() is None
    assert staff.sign_in("1357").name == "Bob"
    assert staff.check_manager("4821").name == "Ann"
    [locked, *_] = staff.audit()
    assert (locked.actor, locked.action) == ("system", "sign_in_locked")
    assert locked.detail.startswith("5 wrong PINs in 15 minutes; locked for 5 minutes until")


def test_a_correct_pin_does_not_reset_the_count(open_staff, clock):
    """Issue 16 row 5: 4 wrong manager PINs, then the cashier's own right PIN, again and again."""
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    staff.add("Bob", Role.CASHIER, "1357")
    wrong(staff, MAX_WRONG_PINS - 1, check=staff.check_manager)
    assert staff.sign_in("1357").name == "Bob"
    assert staff.check_manager("4821").name == "Ann"  # a manager's right PIN does not reset it either
    assert staff.wrong_pins() == MAX_WRONG_PINS - 1
    clock.advance(minutes=1)
    with pytest.raises(LockedOut):
        staff.check_manager("2468")
    with pytest.raises(LockedOut):
        staff.sign_in("1357")


@pytest.mark.parametrize("later, locks", [(timedelta(minutes=14, seconds=59), True), (timedelta(minutes=15), False)])
def test_wrong_pins_count_over_a_rolling_15_minutes(open_staff, clock, later, locks):
    staff = open_staff()
    staff.add("Bob", Role.CASHIER, "1357")
    start = clock.now
    for minute in range(MAX_WRONG_PINS - 1):  # at 0, 1, 2 and 3 minutes
        clock.now = start + timedelta(minutes=minute)
        wrong(staff, 1)
    clock.now = start + later
    refusal = wrong(staff, 1)
    if locks:  # the one at 0 minutes still counts: the 5th in 15 minutes
        assert isinstance(refusal, LockedOut) and staff.locked_until() == clock.now + LOCKOUT
    else:  # the one at 0 minutes has left the window: 4 in it now
        assert isinstance(refusal, WrongPin) and refusal.tries_left == 1 and refusal.left == "1 try left"
        assert staff.wrong_pins() == MAX_WRONG_PINS - 1 and staff.locked_until() is None


def test_the_lock_doubles_while_wrong_pins_continue(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    wrong(staff, MAX_WRONG_PINS)
    assert staff.locked_until() == clock.now + LOCKOUT
    clock.advance(minutes=5)  # the lock is over, the 5 wrong PINs are still in the window
    assert staff.locked_until() is None
    refusal = wrong(staff, 1)
    assert isinstance(refusal, LockedOut) and refusal.until == clock.now + 2 * LOCKOUT
    lengths = []
    for _ in range(4):  # during a lock too (a manager's PIN is still tried)
        clock.advance(seconds=30)
        lengths.append(wrong(staff, 1).until - clock.now)
    assert lengths == [timedelta(minutes=20), timedelta(minutes=40), LOCKOUT_CAP, LOCKOUT_CAP]
    assert LOCKOUT_CAP == timedelta(hours=1)
    details = [e.detail for e in staff.audit() if e.action == "sign_in_locked"]
    assert len(details) == 6 and details[0].startswith("10 wrong PINs in 15 minutes; locked for 60 minutes until")


def test_a_managers_pin_signs_in_during_a_lock_and_lifts_it(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    staff.add("Bob", Role.CASHIER, "1357")
    wrong(staff, MAX_WRONG_PINS)
    clock.advance(minutes=2)
    with pytest.raises(LockedOut):
        staff.sign_in("1357")
    with pytest.raises(LockedOut):  # an approval on a screen does not lift it
        staff.check_manager("4821")
    assert staff.sign_in("4821") == StaffMember("Ann", Role.MANAGER)
    assert staff.lock_state() == LockState(0, None)  # lifted, and the count cleared
    [lifted, locked, *_] = staff.audit()
    assert (lifted.actor, lifted.action, lifted.at) == ("Ann", "sign_in_unlocked", clock.now)
    assert "lifted by a manager's sign-in" in lifted.detail and "5 wrong PINs" in lifted.detail
    assert locked.action == "sign_in_locked"
    assert staff.sign_in("1357").name == "Bob"
    assert isinstance(wrong(staff, 1), WrongPin)  # counted from zero again


def test_ten_wrong_pins_close_the_lock_to_managers_until_unlocked(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.MANAGER, "4821")
    refusal = wrong(staff, CLOSED_AT)
    assert isinstance(refusal, LockedOut) and refusal.level is LockLevel.CLOSED
    assert "pos-app staff unlock" in str(refusal)
    with pytest.raises(LockedOut) as caught:  # not even tried
        staff.sign_in("4821")
    assert caught.value.level is LockLevel.CLOSED
    assert staff.wrong_pins() == CLOSED_AT  # the refused PIN was not counted
    was = staff.unlock(by="os:owner")
    assert (was.wrong, was.until, was.level) == (CLOSED_AT, clock.now + LOCKOUT_CAP, LockLevel.CLOSED)
    [lifted, *_] = staff.audit()
    assert (lifted.actor, lifted.action) == ("os:owner", "sign_in_unlocked")
    assert "by `pos-app staff unlock`" in lifted.detail
    assert staff.sign_in("4821").name == "Ann"
    assert staff.unlock(by="os:owner") == LockState(0, None)  # nothing to lift: not audited
    assert staff.audit()[0].seq == lifted.seq


def test_the_lockout_and_the_count_survive_a_restart(open_staff, clock):
    staff = open_staff()
    staff.add("Ann", Role.CASHIER, "4821")
    staff.add("Mia", Role.MANAGER, "9753")
    wrong(staff, 2, pin="1357")
    staff.close()
    staff = open_staff()
    assert staff.wrong_pins() == 2
    with pytest.raises(WrongPin) as caught:
        staff.sign_in("1357")
    assert caught.value.tries_left == MAX_WRONG_PINS - 3
    wrong(staff, 2, pin="1357")
    until = staff.locked_until()
    assert until == clock.now + LOCKOUT
    staff.close()
    reopened = open_staff()
    with pytest.raises(LockedOut) as caught:
        reopened.sign_in("4821")
    assert caught.value.until == until
    reopened.close()
    assert open_staff().sign_in("9753").name == "Mia"  # liftable after the restart
    assert open_staff().sign_in("4821").name == "Ann"


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


def test_a_version_2_staff_file_keeps_its_lock_and_counts_wrong_pins_by_time(staff_file, clock):
    staff_file.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(staff_file)
    conn.executescript(";".join(V1 + V2) + ";PRAGMA user_version = 2;")
    until = clock.now + timedelta(minutes=3)
    conn.execute("UPDATE sign_in_state SET wrong_pins = 3, locked_until = ?", (until.isoformat(),))
    conn.commit()
    conn.close()
    with Staff.open(staff_file, params=FAST, clock=clock) as staff:
        assert staff.lock_state() == LockState(0, until)  # the lock is kept, the count in a row is not
    columns = [row[1] for row in sqlite3.connect(staff_file).execute("PRAGMA table_info(sign_in_state)")]
    assert columns == ["id", "locked_until"]


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
