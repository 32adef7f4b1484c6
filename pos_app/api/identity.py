"""The user-agent the app sends, and reading an attempt id back out of it.

``pos-app/<version> (store <id>; station <id>; cashier <id>[; attempt <id>])``: the
service records it on every transaction (pos-contract.md, "Headers"), so the audit trail
names the lane and the cashier, and an attempt whose answer was lost can be found again.
This module is the one place that writes and reads that format. No I/O, no Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pos_app import __version__

_UNSAFE = re.compile(r"[^A-Za-z0-9._@:/+-]")
_ATTEMPT = re.compile(r"[(;]\s*attempt ([A-Za-z0-9._@:/+-]+)\s*[;)]")
_CASHIER = re.compile(r"[(;]\s*cashier ([A-Za-z0-9._@:/+-]+)\s*[;)]")


def clean_id(value: str) -> str:
    """An id made safe for the user-agent (no spaces, parentheses or semicolons)."""
    return _UNSAFE.sub("_", value) or "-"


@dataclass(frozen=True)
class Identity:
    """Who is calling: recorded by the service on every transaction for the audit trail."""

    store: str = "-"
    station: str = "-"
    cashier: str = "-"

    def user_agent(self, attempt_id: str | None = None) -> str:
        # the user-agent is sent to the service and read back by _ATTEMPT and _CASHIER
        parts = [
            f"store {clean_id(self.store)}",  # not for people
            f"station {clean_id(self.station)}",  # not for people
            f"cashier {clean_id(self.cashier)}",  # not for people
        ]
        if attempt_id is not None:
            parts.append(f"attempt {clean_id(attempt_id)}")  # not for people
        return f"pos-app/{__version__} ({'; '.join(parts)})"

    def made(self, user_agent: str | None) -> bool:
        """True when ``user_agent`` was sent from this station."""
        if not user_agent:
            return False
        return f"; station {clean_id(self.station)};" in user_agent


def attempt_in(user_agent: str | None) -> str | None:
    """The attempt id a pos-app user-agent carries, or None."""
    if not user_agent:
        return None
    found = _ATTEMPT.search(user_agent)
    return found.group(1) if found else None


def cashier_in(user_agent: str | None) -> str | None:
    """The cashier a pos-app user-agent names (as made safe by ``clean_id``), or None."""
    if not user_agent:
        return None
    found = _CASHIER.search(user_agent)
    return found.group(1) if found and found.group(1) != "-" else None
