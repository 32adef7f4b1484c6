"""Every way staff sign-in and staff changes refuse, rooted at ``StaffError``.

The messages are sentences for a person (a cashier, a manager, whoever runs the CLI) and
never contain a PIN.
"""

from __future__ import annotations

from datetime import datetime

from pos_app.staff.lockout import LockLevel


class StaffError(Exception):
    """Base of every staff error."""


class StaffFileError(StaffError):
    """The staff file cannot be used: not creatable or writable, damaged, not a staff file."""


class StaffTooNew(StaffFileError):
    """The staff file was written by a newer pos-app (higher schema version); left untouched."""


class InvalidPin(StaffError, ValueError):
    """A PIN that breaks the rules (4 to 8 digits). Never counted as a wrong PIN."""


class InvalidName(StaffError, ValueError):
    """A staff name that is empty, too long or has control characters."""


class DuplicateName(StaffError, ValueError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"there is already a staff member named {name!r} (names ignore case)")


class DuplicatePin(StaffError, ValueError):
    """Another member has this PIN; sign-in is by PIN alone, so PINs must be unique.
    The message does not say whose PIN it is."""

    def __init__(self) -> None:
        super().__init__("that PIN is already used by another staff member; choose another PIN")


class UnknownMember(StaffError, LookupError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"there is no staff member named {name!r}")

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0])


def tries(count: int) -> str:
    """"1 try", "3 tries"."""
    return f"{count} {'try' if count == 1 else 'tries'}"


class WrongPin(StaffError):
    """No staff member has this PIN; ``tries_left`` more wrong PINs (within 15 minutes)
    lock the station's sign-in."""

    def __init__(self, tries_left: int) -> None:
        self.tries_left = tries_left
        super().__init__(f"wrong PIN; {self.left} before sign-in is locked for a few minutes")

    @property
    def left(self) -> str:
        """"1 try left", "3 tries left"."""
        return f"{tries(self.tries_left)} left"


class LockedOut(StaffError):
    """Too many wrong PINs: refused until ``until`` (an aware UTC datetime). ``level``
    says who may still sign in: at ``LockLevel.LOCKED`` a manager's PIN signs in (and
    lifts the lock), at ``LockLevel.CLOSED`` no PIN is tried. ``override``: refused to a
    manager's approval on a screen, which a lock refuses untried."""

    def __init__(self, until: datetime, level: LockLevel = LockLevel.LOCKED, *, just_locked: bool = False,
                 override: bool = False) -> None:
        self.until = until
        self.level = level
        self.override = override
        local = until.astimezone().strftime("%H:%M:%S")
        why = "wrong PIN; too many wrong PINs" if just_locked else "too many wrong PINs"
        if level is LockLevel.CLOSED:
            lift = "not even a manager's PIN is taken for now; `pos-app staff unlock` lifts it"
        elif override:
            lift = "a manager lifts the lock by signing in on this station, or `pos-app staff unlock`"
        else:
            lift = "a manager's PIN signs in and lifts it"
        what = "manager approvals are" if override else "sign-in is"
        super().__init__(f"{why}: {what} locked until {local}; {lift}")


class NotAManager(StaffError):
    """The PIN is right but belongs to a cashier: a manager override needs a manager's PIN."""

    def __init__(self, member_name: str) -> None:
        self.member_name = member_name
        super().__init__("that PIN is not a manager's; a manager must enter their own PIN")
