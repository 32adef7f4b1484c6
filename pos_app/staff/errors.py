"""Every way staff sign-in and staff changes refuse, rooted at ``StaffError``.

The messages are sentences for a person (a cashier, a manager, whoever runs the CLI) and
never contain a PIN.
"""

from __future__ import annotations

from datetime import datetime

from pos_app.i18n import _, ngettext
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
        super().__init__(_("there is already a staff member named {name!r} (names ignore case)").format(name=name))


class DuplicatePin(StaffError, ValueError):
    """Another member has this PIN; sign-in is by PIN alone, so PINs must be unique.
    The message does not say whose PIN it is."""

    def __init__(self) -> None:
        super().__init__(_("that PIN is already used by another staff member; choose another PIN"))


class UnknownMember(StaffError, LookupError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(_("there is no staff member named {name!r}").format(name=name))

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0])


def tries(count: int) -> str:
    """"1 try", "3 tries"."""
    return ngettext("{count} try", "{count} tries", count).format(count=count)


class WrongPin(StaffError):
    """No staff member has this PIN; ``tries_left`` more wrong PINs (within 15 minutes)
    lock the station's sign-in."""

    def __init__(self, tries_left: int) -> None:
        self.tries_left = tries_left
        super().__init__(ngettext("wrong PIN; {count} try left before sign-in is locked for a few minutes",
                                  "wrong PIN; {count} tries left before sign-in is locked for a few minutes",
                                  tries_left).format(count=tries_left))

    @property
    def left(self) -> str:
        """"1 try left", "3 tries left"."""
        return ngettext("{count} try left", "{count} tries left", self.tries_left).format(count=self.tries_left)


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
        super().__init__(_("{locked}; {lift}").format(locked=_locked(local, just_locked=just_locked,
                                                                     override=override),
                                                      lift=_lift(level, override=override)))


def _locked(local: str, *, just_locked: bool, override: bool) -> str:
    """What is locked, and till when (``local``: a time of day)."""
    if just_locked:
        if override:
            return _("wrong PIN; too many wrong PINs: manager approvals are locked until {time}").format(time=local)
        return _("wrong PIN; too many wrong PINs: sign-in is locked until {time}").format(time=local)
    if override:
        return _("too many wrong PINs: manager approvals are locked until {time}").format(time=local)
    return _("too many wrong PINs: sign-in is locked until {time}").format(time=local)


def _lift(level: LockLevel, *, override: bool) -> str:
    """Who or what lifts a lock."""
    if level is LockLevel.CLOSED:
        return _("not even a manager's PIN is taken for now; `pos-app staff unlock` lifts it")
    if override:
        return _("a manager lifts the lock by signing in on this station, or `pos-app staff unlock`")
    return _("a manager's PIN signs in and lifts it")


class NotAManager(StaffError):
    """The PIN is right but belongs to a cashier: a manager override needs a manager's PIN."""

    def __init__(self, member_name: str) -> None:
        self.member_name = member_name
        super().__init__(_("that PIN is not a manager's; a manager must enter their own PIN"))
