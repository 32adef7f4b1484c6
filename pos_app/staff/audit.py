"""The staff file's audit trail, as the app reads it: what was done (``AuditAction``),
one row (``AuditEntry``) and the CSV export (``audit_csv``). ``Staff`` writes and reads
the rows (``record``, ``audit``); this module holds no file."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from pos_app.i18n import _


class AuditAction(StrEnum):
    """What a manager, a cashier or the system did; the audit trail's ``action`` column."""

    STAFF_ADDED = "staff_added"
    STAFF_REMOVED = "staff_removed"
    STAFF_LANGUAGE = "staff_language"
    """A member's own language for the screens set or cleared."""
    SIGN_IN_LOCKED = "sign_in_locked"
    SIGN_IN_UNLOCKED = "sign_in_unlocked"
    """The lock lifted (and the wrong PINs cleared) by a manager's sign-in or ``pos-app staff unlock``."""
    VOID = "void"
    REFUND = "refund"
    RESOLVE = "resolve"
    CLOSE_BATCH = "close_batch"
    Z_REPORT = "z_report"
    """A shift's cash counted and closed (its Z): expected, counted, over or short, and why."""
    SETTINGS_CHANGED = "settings_changed"
    LINE_REMOVED = "line_removed"
    """A cashier removed a cart line after a card payment was attempted on the order."""
    QUANTITY_LOWERED = "quantity_lowered"
    """A cashier lowered a line's quantity after a card payment was attempted on the order."""
    ORDER_CANCELLED = "order_cancelled"
    """A manager gave back what an order had taken (card voids or refunds, cash)."""
    RETURN = "return"
    """A manager gave back the money of some of an order's lines, to the tenders they came from."""
    RETURN_TO_CASH = "return_to_cash"
    """A manager gave back in cash from the drawer the money of lines a card paid."""
    CASH_IN = "cash_in"
    """Cash put into the drawer (a manager, with a reason)."""
    CASH_OUT = "cash_out"
    """Cash taken out of the drawer (a manager, with a reason)."""
    NO_SALE = "no_sale"
    """The drawer opened with no money moving (a manager, with a reason)."""
    MEMBERSHIP_PAUSED = "membership_paused"
    """A manager paused a customer's membership (subscription) from the customer dialog."""
    MEMBERSHIP_RESUMED = "membership_resumed"
    """A manager resumed a customer's paused membership."""
    MEMBERSHIP_CANCELLED = "membership_cancelled"
    """A manager cancelled a customer's membership (the subscription is inactive)."""
    OVERRIDE = "override"
    """A manager's PIN on a cashier's screen for anything not listed above."""


REASON_MAX = 200
"""The longest reason a manager may give (one line of the audit trail)."""


def check_reason(reason: str) -> str:
    """A reason is asked for every manager action: non-empty, one line, at most 200 characters."""
    text = " ".join(str(reason).split())
    if not text:
        raise ValueError(_("give a reason: it is recorded with the action"))
    if len(text) > REASON_MAX:
        raise ValueError(_("keep the reason under {count} characters").format(count=REASON_MAX))
    return text


@dataclass(frozen=True)
class AuditEntry:
    """One row of the audit trail: who (``actor``), when (``at``, aware UTC), what
    (``action`` and ``detail``) and why (``reason``, empty where none was asked)."""

    seq: int
    at: datetime
    actor: str
    action: str
    """An ``AuditAction`` value (kept as text: a newer app may have written another)."""
    detail: str
    reason: str = ""

    def to_json(self) -> dict[str, str | int]:
        return {"seq": self.seq, "at": self.at.isoformat(), "actor": self.actor, "action": self.action,
                "detail": self.detail, "reason": self.reason}


AUDIT_CSV_COLUMNS: Final = ("seq", "at", "actor", "action", "detail", "reason")


def audit_csv(entries: Iterable[AuditEntry]) -> str:
    """The entries as CSV text (a header row, then one row per entry; times in ISO 8601 UTC).

    A cell that a spreadsheet would run as a formula (starting with = + - @) is prefixed
    with an apostrophe, so an exported reason can never execute anything."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(AUDIT_CSV_COLUMNS)
    for entry in entries:
        writer.writerow([_inert(str(value)) for value in (entry.seq, entry.at.isoformat(), entry.actor,
                                                          entry.action, entry.detail, entry.reason)])
    return out.getvalue()


def _inert(cell: str) -> str:
    return "'" + cell if cell[:1] in ("=", "+", "-", "@") else cell
