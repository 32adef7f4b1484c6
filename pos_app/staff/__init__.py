"""Staff, PINs, roles, the sign-in lockout and an audit trail (no Qt).

``Staff.open(staff_path(data_dir))``; ``add``, ``remove``, ``list``, ``sign_in``,
``check_manager``, ``lock_state``, ``unlock``, ``record``, ``audit`` (``audit_csv`` to export it),
``ensure_demo_staff``. PIN checks are slow on purpose (about 0.12 s per stored PIN tried): call them off the
GUI thread. The lockout's rules are ``lockout``'s.
"""

from pos_app.staff.audit import AuditAction, AuditEntry, audit_csv
from pos_app.staff.errors import (
    DuplicateName,
    DuplicatePin,
    InvalidName,
    InvalidPin,
    LockedOut,
    NotAManager,
    StaffError,
    StaffFileError,
    StaffTooNew,
    UnknownMember,
    WrongPin,
)
from pos_app.staff.file import STAFF_FILE_NAME, staff_path
from pos_app.staff.lockout import CLOSED_AT, LOCKOUT, LOCKOUT_CAP, MAX_WRONG_PINS, WINDOW, LockLevel, LockState
from pos_app.staff.pins import DEFAULT_PARAMS, PIN_MAX_DIGITS, PIN_MIN_DIGITS, ScryptParams, check_pin
from pos_app.staff.store import (
    DEMO_CASHIER_PIN,
    DEMO_MANAGER_PIN,
    DEMO_STAFF,
    PinMatch,
    Role,
    Staff,
    StaffMember,
)

__all__ = [
    "CLOSED_AT", "DEFAULT_PARAMS", "DEMO_CASHIER_PIN", "DEMO_MANAGER_PIN", "DEMO_STAFF", "LOCKOUT", "LOCKOUT_CAP",
    "MAX_WRONG_PINS", "PIN_MAX_DIGITS", "PIN_MIN_DIGITS", "STAFF_FILE_NAME", "WINDOW", "AuditAction", "AuditEntry",
    "DuplicateName", "DuplicatePin", "InvalidName", "InvalidPin", "LockLevel", "LockState", "LockedOut", "NotAManager",
    "PinMatch", "Role", "ScryptParams", "Staff", "StaffError", "StaffFileError", "StaffMember", "StaffTooNew",
    "UnknownMember", "WrongPin", "audit_csv", "check_pin", "staff_path",
]
