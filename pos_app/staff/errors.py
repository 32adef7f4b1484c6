"""Every way staff sign-in and staff changes refuse, rooted at ``StaffError``.

The messages are sentences for a person (a cashier, a manager, whoever runs the CLI) and
never contain a PIN.
"""

from __future__ import annotations

from datetime import datetime


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


class WrongPin(StaffError):
    """No staff member has this PIN; ``tries_left`` more wrong PINs lock the station's sign-in."""

    def __init__(self, tries_left: int) -> None:
        self.tries_left = tries_left
        plural = "try" if tries_left == 1 else "tries"
        super().__init__(f"wrong PIN; {tries_left} {plural} left before sign-in is locked for a few minutes")


class LockedOut(StaffError):
    """Too many wrong PINs in a row: sign-in and manager checks are refused until ``until``
    (an aware UTC datetime), even with a correct PIN."""

    def __init__(self, until: datetime, *, just_locked: bool = False) -> None:
        self.until = until
        local = until.astimezone().strftime("%H:%M:%S")
        why = "wrong PIN; too many wrong PINs in a row: " if just_locked else "too many wrong PINs in a row: "
        super().__init__(f"{why}sign-in is locked until {local}; try again then, or ask a manager")


class NotAManager(StaffError):
    """The PIN is right but belongs to a cashier: a manager override needs a manager's PIN."""

    def __init__(self, member_name: str) -> None:
        self.member_name = member_name
        super().__init__("that PIN is not a manager's; a manager must enter their own PIN")
