"""``Staff``: the station's staff, their PINs and roles, the sign-in lockout and an audit trail.

Everything lives in one SQLite file, ``<data dir>/staff.sqlite3`` (its schema, migrations
and opening are ``file``'s). Only slow salted hashes of PINs are stored (``pins``).
Sign-in is by PIN alone, so two members never share a PIN.

Costs, with the default hash parameters (about 0.12 s per PIN hash, see ``pins``), for a
staff of N members:

- ``sign_in`` / ``check_manager``: one hash per member tried until the PIN matches, so up
  to N hashes; a wrong PIN always costs N (at least one): 10 members, about 1.2 s.
- ``match``: the same hashes, worked out while the PIN is still being typed (it changes
  nothing); ``sign_in(pin, ahead=match)`` then costs no hash at all when the PIN and the
  staff are the same as when it was worked out.
- ``add``: N hashes (the new PIN against every member's, to keep PINs unique) plus one.
- ``list``, ``remove``, ``record``, ``audit``: no hashing, milliseconds.

Those calls block on purpose: call them off the GUI thread. The API is synchronous and
thread-safe: one lock serializes every call on a ``Staff`` (a sign-in holds it while it
hashes). Several processes may open the same file: wrong PINs are recorded in a write
transaction, so they count across processes.

Lockout (its rules are ``lockout``'s): wrong PINs typed to ``sign_in`` or
``check_manager`` count over a rolling 15 minutes; the 5th locks cashier sign-in and
manager overrides (``check_manager``, refused untried during a lock), longer with every
further one. A manager's correct PIN given to ``sign_in`` during a lock signs in and
lifts it; ``unlock`` lifts it too; both are audited (who, when). Each wrong PIN's time and
the lock's end are in the file (a restart does not lift a lock) as absolute UTC times, so
setting the clock back lengthens a lock. A correct PIN never resets the count, nor does a
cashier's PIN given to ``check_manager`` count as wrong. A PIN that breaks the rules
(``InvalidPin``) is not counted.
"""

from __future__ import annotations

import builtins
import hmac
import sqlite3
import threading
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Final

from pos_app.i18n import _, check_language
from pos_app.staff.audit import AuditAction, AuditEntry
from pos_app.staff.errors import (
    DuplicateName,
    DuplicatePin,
    InvalidName,
    LockedOut,
    NotAManager,
    StaffError,
    StaffFileError,
    UnknownMember,
    WrongPin,
)
from pos_app.staff.file import DEFAULT_BUSY_TIMEOUT, connect, file_error
from pos_app.staff.lockout import WINDOW, LockLevel, LockState, in_window
from pos_app.staff.pins import DEFAULT_PARAMS, ScryptParams, check_pin, hash_pin, needs_rehash, verify_pin

NAME_MAX: Final = 64

class Role(StrEnum):
    CASHIER = "cashier"
    MANAGER = "manager"


@dataclass(frozen=True)
class StaffMember:
    name: str
    role: Role
    language: str | None = None
    """The screens' language at this member's sign-in; None: the store's."""

    @property
    def is_manager(self) -> bool:
        return self.role is Role.MANAGER

    def to_json(self) -> dict[str, str]:
        """Name and role, and the language when the member has one of their own."""
        return {"name": self.name, "role": self.role.value, **({"language": self.language} if self.language else {})}


DEMO_CASHIER_PIN: Final = "1111"
DEMO_MANAGER_PIN: Final = "9999"
DEMO_STAFF: Final[tuple[tuple[str, Role, str], ...]] = (
    ("Demo Cashier", Role.CASHIER, DEMO_CASHIER_PIN),  # not for people: a name stored in the staff file
    ("Demo Manager", Role.MANAGER, DEMO_MANAGER_PIN),  # not for people: a name stored in the staff file
)
"""Training mode's staff: (name, role, PIN). The PINs are public: never in a store's real staff file."""

SYSTEM_ACTOR: Final = "system"


def check_name(name: object) -> str:
    """The name with outer spaces removed; ``InvalidName`` if empty, over 64 characters or
    with control characters."""
    if not isinstance(name, str):
        raise InvalidName(_("a staff name must be text"))
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise InvalidName(_("a staff name cannot be empty"))
    if len(name) > NAME_MAX:
        raise InvalidName(_("a staff name has at most {count} characters").format(count=NAME_MAX))
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise InvalidName(_("a staff name cannot contain control characters"))
    return name


def _key(name: str) -> str:
    return name.casefold()


def _time_text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class _Row:
    name: str
    role: Role
    pin_hash: str
    language: str | None = None

    @property
    def member(self) -> StaffMember:
        return StaffMember(self.name, self.role, self.language)


@dataclass(frozen=True)
class PinMatch:
    """Whose PIN a typed PIN is, worked out by ``Staff.match`` before it is entered.

    It decides nothing by itself: ``sign_in`` / ``check_manager`` take it as the result of
    their hashes only for the very same PIN against the very same members (names and
    stored hashes), and still apply the lockout and count a wrong PIN. Not shown anywhere:
    the repr leaves the PIN and the hashes out."""

    pin: str = field(repr=False)
    members: tuple[_Row, ...] = field(repr=False)
    matched: _Row | None = field(repr=False)

    def answers(self, pin: str, members: builtins.list[_Row]) -> bool:
        """Whether this match stands for ``pin`` against ``members`` (the file now)."""
        return hmac.compare_digest(self.pin.encode(), pin.encode()) and self.members == tuple(members)


class Staff:
    """One open staff file. Thread-safe (one lock); see the module docstring for costs."""

    def __init__(self, conn: sqlite3.Connection, path: Path, params: ScryptParams,
                 clock: Callable[[], datetime]) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._path = path
        self._params = params
        self._clock = clock
        self._lock = threading.RLock()
        self._dummy_hash: str | None = None

    @classmethod
    def open(cls, path: str | Path, *, params: ScryptParams = DEFAULT_PARAMS,
             clock: Callable[[], datetime] | None = None, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Staff:
        """Open the staff file at ``path``, creating it (owner-only) and its folder if needed.

        ``params``: the hash cost for PINs hashed from now on (older hashes keep theirs and
        are upgraded at their next correct sign-in). ``clock``: aware datetimes (tests).
        Raises ``StaffFileError`` (folder or file not creatable or writable, not a staff
        file, damaged) or ``StaffTooNew``; a refused file is left as it was.
        """
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StaffFileError(_("cannot create the folder {folder} for the staff file: {error}").format(
                folder=path.parent, error=error.strerror or error)) from None
        conn = connect(path, busy_timeout)
        return cls(conn, path, params, clock or _utc_now)

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()

    def __enter__(self) -> Staff:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- members ------------------------------------------------------------------------

    def list(self) -> builtins.list[StaffMember]:
        """Every member, by name."""
        with self._lock:
            return [r.member for r in sorted(self._rows(), key=lambda r: r.name.casefold())]

    def add(self, name: str, role: Role | str, pin: str, *, by: str = SYSTEM_ACTOR,
            language: str | None = None) -> StaffMember:
        """Add a member (recorded in the audit as ``staff_added`` by ``by``), with their own
        language for the screens or none (the store's).

        Raises ``InvalidName``, ``InvalidPin``, ``UnknownLanguage`` or a ``ValueError`` for an
        unknown role (all ``ValueError``), ``DuplicateName`` (names ignore case),
        ``DuplicatePin``, ``StaffFileError``. Costs one PIN hash per existing member, plus one.
        """
        name = check_name(name)
        member_role = _role(role)
        check_pin(pin)
        language = check_language(language) if language else None
        with self._lock:
            rows = self._rows()
            if any(_key(r.name) == _key(name) for r in rows):
                raise DuplicateName(name)
            self._refuse_shared_pin(pin, rows)
            pin_hash = hash_pin(pin, self._params)
            with self._write(_("adding a staff member")) as conn:
                seen = {_key(r.name) for r in rows}
                newer = [r for r in self._rows(conn) if _key(r.name) not in seen]  # added meanwhile elsewhere
                if any(_key(r.name) == _key(name) for r in newer):
                    raise DuplicateName(name)
                self._refuse_shared_pin(pin, newer)
                conn.execute("INSERT INTO members (name_key, name, role, pin_hash, added_at, language) "
                             "VALUES (?, ?, ?, ?, ?, ?)",
                             (_key(name), name, member_role.value, pin_hash, _time_text(self._clock()), language))
                self._insert_audit(conn, by, AuditAction.STAFF_ADDED, f"{name} ({member_role.value})")
        return StaffMember(name, member_role, language)

    def set_language(self, name: str, language: str | None, *, by: str = SYSTEM_ACTOR) -> StaffMember:
        """Give a member their own language for the screens (None: the store's again),
        recorded as ``staff_language``; ``UnknownMember``, ``UnknownLanguage``."""
        language = check_language(language) if language else None
        with self._lock, self._write(_("setting a staff member's language")) as conn:
            row = conn.execute("SELECT name, role FROM members WHERE name_key = ?",
                               (_key(unicodedata.normalize("NFC", name.strip())),)).fetchone()
            if row is None:
                raise UnknownMember(name.strip())
            conn.execute("UPDATE members SET language = ? WHERE name_key = ?", (language, _key(row[0])))
            detail = f"{row[0]}: {language or 'the store language'}"  # not for people: the audit's record
            self._insert_audit(conn, by, AuditAction.STAFF_LANGUAGE, detail)
        return StaffMember(row[0], Role(row[1]), language)

    def remove(self, name: str, *, by: str = SYSTEM_ACTOR) -> StaffMember:
        """Remove a member (recorded as ``staff_removed``); ``UnknownMember`` if there is none."""
        if not isinstance(name, str):
            raise UnknownMember(repr(name))
        with self._lock, self._write(_("removing a staff member")) as conn:
            row = conn.execute("SELECT name, role FROM members WHERE name_key = ?",
                               (_key(unicodedata.normalize("NFC", name.strip())),)).fetchone()
            if row is None:
                raise UnknownMember(name.strip())
            member = StaffMember(row[0], Role(row[1]))
            conn.execute("DELETE FROM members WHERE name_key = ?", (_key(member.name),))
            self._insert_audit(conn, by, AuditAction.STAFF_REMOVED, f"{member.name} ({member.role.value})")
        return member

    def ensure_demo_staff(self) -> builtins.list[StaffMember]:
        """Training mode: make sure ``DEMO_STAFF`` ("Demo Cashier" PIN 1111, "Demo Manager"
        PIN 9999) exist; returns them. Refuses (``StaffError``) a file that has any other
        member: the demo PINs are public and must never open a real store's staff file."""
        with self._lock:
            demo_names = {_key(name) for name, _role, _pin in DEMO_STAFF}
            others = [r.name for r in self._rows() if _key(r.name) not in demo_names]
            if others:
                raise StaffError(_("{path} has real staff ({names}); demo staff (public PINs) only go into a "
                                   "training data dir's staff file").format(path=self._path,
                                                                            names=", ".join(sorted(others))))
            present = {_key(r.name): r for r in self._rows()}
            members = []
            for name, role, pin in DEMO_STAFF:
                row = present.get(_key(name))
                if row is None:
                    members.append(self.add(name, role, pin, by=SYSTEM_ACTOR))
                else:
                    members.append(row.member)
            return members

    # -- PINs -----------------------------------------------------------------------------

    def sign_in(self, pin: str, *, ahead: PinMatch | None = None) -> StaffMember:
        """The member whose PIN this is.

        Raises ``InvalidPin`` (not 4-8 digits; not counted), ``LockedOut`` (locked now, for
        a cashier's PIN or a wrong one, or this wrong PIN locked it: ``until`` says till
        when), ``WrongPin`` (``tries_left``), ``StaffFileError``. During a lock a manager's
        PIN signs in and lifts it (audited). Slow on purpose (see the module docstring),
        unless ``ahead`` (from ``match``) already holds the answer for this PIN.
        """
        return self._identify(pin, manager=False, ahead=ahead)

    def check_manager(self, pin: str, *, ahead: PinMatch | None = None) -> StaffMember:
        """The manager whose PIN this is, for an override on a cashier's screen.

        Raises what ``sign_in`` raises (``LockedOut`` for any PIN during a lock, untried),
        and ``NotAManager`` for a cashier's PIN (not counted as wrong). Recording the
        override itself is the caller's: ``record(manager.name, AuditAction..., detail,
        reason)`` once it is done.
        """
        return self._identify(pin, manager=True, ahead=ahead)

    def match(self, pin: str) -> PinMatch:
        """Work out whose PIN ``pin`` is, as ``sign_in`` would, without signing in: no
        lockout check, nothing counted or written. The sign-in screen calls it while the
        PIN is typed, so that Enter finds the slow hashes done. The lock is held only to
        read the members, so other calls go on meanwhile. Raises ``InvalidPin``,
        ``StaffFileError``."""
        check_pin(pin)
        with self._lock:
            rows = self._rows()
        matched = next((r for r in rows if verify_pin(pin, r.pin_hash)), None)
        if not rows:  # the same cost as sign_in's
            verify_pin(pin, self._dummy())
        return PinMatch(pin, tuple(rows), matched)

    def lock_state(self) -> LockState:
        """The wrong PINs counted now and the lock, if any."""
        with self._lock:
            return self._lock_state(self._connection(), self._clock())

    def locked_until(self) -> datetime | None:
        """When the current lockout ends (aware UTC), or None when sign-in is open."""
        return self.lock_state().until

    def wrong_pins(self) -> int:
        """Wrong PINs counted now (typed in the last 15 minutes, since the last lift)."""
        return self.lock_state().wrong

    def unlock(self, *, by: str) -> LockState:
        """Lift the lock, if any, and clear the count of wrong PINs (audited as
        ``sign_in_unlocked`` by ``by`` when there was anything to lift). Returns what
        there was."""
        with self._lock, self._write(_("lifting the sign-in lock")) as conn:
            state = self._lock_state(conn, self._clock())
            if state.until is not None or state.wrong:
                self._lift(conn, state, by, "by `pos-app staff unlock`")  # not for people: the audit's record
            return state

    def _identify(self, pin: str, *, manager: bool, ahead: PinMatch | None) -> StaffMember:
        check_pin(pin)
        with self._lock:
            self._refuse_untried(self._lock_state(self._connection(), self._clock()), manager=manager)
            rows = self._rows()
            if ahead is not None and ahead.answers(pin, rows):
                match = ahead.matched
            else:
                match = next((r for r in rows if verify_pin(pin, r.pin_hash)), None)
                if not rows:  # a wrong PIN costs at least one hash, members or not
                    verify_pin(pin, self._dummy())
            with self._write(_("recording a PIN check")) as conn:
                now = self._clock()
                state = self._lock_state(conn, now)
                self._refuse_untried(state, manager=manager)  # another process locked it meanwhile
                if match is not None:
                    member = match.member
                    if manager and not member.is_manager:
                        raise NotAManager(member.name)
                    if state.until is not None:
                        if not member.is_manager:  # a correct PIN: refused, not counted
                            raise LockedOut(state.until, state.level)
                        # not for people: the audit's record
                        self._lift(conn, state, member.name, "by a manager's sign-in")  # not for people
                    if needs_rehash(match.pin_hash, self._params):
                        conn.execute("UPDATE members SET pin_hash = ? WHERE name_key = ? AND pin_hash = ?",
                                     (hash_pin(pin, self._params), _key(match.name), match.pin_hash))
                    return member
                after = state.after_wrong_pin(now)
                conn.execute("DELETE FROM wrong_pins WHERE at <= ?", (_time_text(now - WINDOW),))
                conn.execute("INSERT INTO wrong_pins (at) VALUES (?)", (_time_text(now),))
                if after.until is None:
                    raise WrongPin(after.tries_left)
                if after.until != state.until:
                    conn.execute("UPDATE sign_in_state SET locked_until = ? WHERE id = 1", (_time_text(after.until),))
                    # the audit's record, in English like the journal (a stored row, not a screen's text)
                    self._insert_audit(conn, SYSTEM_ACTOR, AuditAction.SIGN_IN_LOCKED,
                                       f"{after.wrong} wrong PINs in {_minutes(WINDOW)}; locked for "  # not for people
                                       f"{_minutes(after.until - now)} until {after.until.isoformat()}")
                raise LockedOut(after.until, after.level, just_locked=True, override=manager)

    @staticmethod
    def _refuse_untried(state: LockState, *, manager: bool) -> None:
        """During a lock a manager's approval is refused untried, and so is every PIN once
        the lock is closed to managers."""
        if state.until is not None and (manager or state.level is LockLevel.CLOSED):
            raise LockedOut(state.until, state.level, override=manager)

    def _lift(self, conn: sqlite3.Connection, state: LockState, actor: str, how: str) -> None:
        conn.execute("DELETE FROM wrong_pins")
        conn.execute("UPDATE sign_in_state SET locked_until = NULL WHERE id = 1")
        # the audit's record, in English like the journal (a stored row, not a screen's text)
        what = f"the lock until {state.until.isoformat()}" if state.until else "no lock"  # not for people
        self._insert_audit(conn, actor, AuditAction.SIGN_IN_UNLOCKED,
                           f"{what} and {state.wrong} wrong PINs lifted {how}")  # not for people

    # -- audit ----------------------------------------------------------------------------

    def record(self, actor: str, action: AuditAction, detail: str = "", reason: str = "") -> AuditEntry:
        """Append an audit entry (a manager's action, a staff change) and return it."""
        if not isinstance(actor, str) or not actor.strip():
            raise ValueError("an audit entry needs a non-empty actor")  # not for people
        action = AuditAction(action)
        if not isinstance(detail, str) or not isinstance(reason, str):
            raise ValueError("an audit entry's detail and reason are text")  # not for people
        with self._lock, self._write(_("recording an audit entry")) as conn:
            return self._insert_audit(conn, actor.strip(), action, detail, reason.strip())

    def audit(self, limit: int | None = None, *, since: datetime | None = None) -> builtins.list[AuditEntry]:
        """Audit entries, newest first (at most ``limit``; from ``since`` on when given)."""
        query = "SELECT seq, at, actor, action, detail, reason FROM audit"
        params: builtins.list[str | int] = []
        if since is not None:
            query += " WHERE at >= ?"
            params.append(_time_text(since))
        query += " ORDER BY seq DESC"
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        with self._lock:
            conn = self._connection()
            try:
                rows = conn.execute(query, params).fetchall()
            except sqlite3.Error as error:
                raise file_error(error, self._path, _("reading the audit")) from None
        return [AuditEntry(seq, _parse_time(at), actor, action, detail, reason)
                for seq, at, actor, action, detail, reason in rows]

    # -- internals ------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StaffFileError(f"staff file {self._path} is closed")  # not for people: a bug
        return self._conn

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = hash_pin("0" * 4, self._params)
        return self._dummy_hash

    def _rows(self, conn: sqlite3.Connection | None = None) -> builtins.list[_Row]:
        conn = conn or self._connection()
        try:
            rows = conn.execute("SELECT name, role, pin_hash, language FROM members ORDER BY rowid").fetchall()
        except sqlite3.Error as error:
            raise file_error(error, self._path, _("reading the staff")) from None
        return [_Row(name, Role(role), pin_hash, language) for name, role, pin_hash, language in rows]

    def _lock_state(self, conn: sqlite3.Connection, now: datetime) -> LockState:
        try:
            row = conn.execute("SELECT locked_until FROM sign_in_state WHERE id = 1").fetchone()
            times = [_parse_time(at) for (at,) in conn.execute("SELECT at FROM wrong_pins")]
        except sqlite3.Error as error:
            raise file_error(error, self._path, _("reading the sign-in state")) from None
        if row is None:
            raise StaffFileError(_("staff file {path} is damaged: its sign-in state is missing").format(
                path=self._path))
        until = _parse_time(row[0]) if row[0] else None
        return LockState(in_window(now, times), until if until is not None and now < until else None)

    def _refuse_shared_pin(self, pin: str, rows: builtins.list[_Row]) -> None:
        if any(verify_pin(pin, r.pin_hash) for r in rows):
            raise DuplicatePin()

    def _insert_audit(self, conn: sqlite3.Connection, actor: str, action: AuditAction, detail: str,
                      reason: str = "") -> AuditEntry:
        at = self._clock()
        cursor = conn.execute("INSERT INTO audit (at, actor, action, detail, reason) VALUES (?, ?, ?, ?, ?)",
                              (_time_text(at), actor, action.value, detail, reason))
        assert cursor.lastrowid is not None
        return AuditEntry(cursor.lastrowid, at.astimezone(UTC), actor, action.value, detail, reason)

    @contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction, committed when the block ends, also when it
        raises a ``StaffError`` (the block raises after recording, e.g. a wrong PIN)."""
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except StaffError:
                if conn.in_transaction:
                    conn.execute("COMMIT")
                raise
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise file_error(error, self._path, action) from None


def _minutes(length: timedelta) -> str:
    minutes = round(length.total_seconds() / 60)
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


def _role(role: Role | str) -> Role:
    try:
        return Role(role.lower() if isinstance(role, str) else role)
    except ValueError:
        raise ValueError(_("a role is {cashier} or {manager}, not {role!r}").format(
            cashier=Role.CASHIER.value, manager=Role.MANAGER.value, role=role)) from None
