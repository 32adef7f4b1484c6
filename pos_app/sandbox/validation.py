"""Request validation the way the service does it: check every field, then refuse with
one message per failed field (400, code 900), never stop at the first problem.

``Fields`` reads a JSON object body; ``page_query`` reads the page/limit query of the
paginated lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pos_app.api.money import PHONE_PATTERN
from pos_app.sandbox.protocol import invalid

EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_POSITIVE = re.compile(r"^[0-9]+$")


class Fields:
    """Field checks on one body; each failed field adds one message; ``check`` raises them."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        self.body = body
        self.messages: list[str] = []

    def fail(self, message: str) -> None:
        self.messages.append(message)

    def check(self) -> None:
        if self.messages:
            raise invalid(self.messages)

    def text(self, name: str, *, required: bool = True, pattern: re.Pattern | None = None) -> str | None:
        value = self.body.get(name)
        if value is None:
            if required:
                self.fail(f"{name} should not be empty")
            return None
        if not isinstance(value, str):
            self.fail(f"{name} must be a string")
        elif required and not value.strip():
            self.fail(f"{name} should not be empty")
        elif pattern is not None and not pattern.fullmatch(value):
            self.fail(f"{name} must match {pattern.pattern} regular expression")
        else:
            return value
        return None

    def phone(self, name: str) -> str | None:
        return self.text(name, required=False, pattern=PHONE_PATTERN)

    def email(self, name: str) -> str | None:
        value = self.text(name, required=False)
        if value is not None and not EMAIL_PATTERN.fullmatch(value):
            self.fail(f"{name} must be an email")
            return None
        return value

    def cents(self, name: str, *, maximum: int | None = None) -> int | None:
        """A required positive whole number of cents; bools, floats and strings are refused."""
        value = self.body.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.fail(f"{name} must be a positive integer (cents)")
        elif maximum is not None and value > maximum:
            self.fail(f"{name} must not be greater than {maximum}")
        else:
            return value
        return None

    def boolean(self, name: str, *, required: bool = True) -> bool | None:
        value = self.body.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, bool):
            self.fail(f"{name} must be a boolean value")
            return None
        return value

    def array(self, name: str, *, required: bool = True, min_size: int = 0) -> list | None:
        value = self.body.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, list):
            self.fail(f"{name} must be an array")
        elif len(value) < min_size:
            self.fail(f"{name} must contain at least {min_size} elements")
        else:
            return value
        return None

    def ids(self, name: str, known: Mapping[str, Any] | set[str], *, what: str, required: bool = True) -> list[str]:
        """An array of ids, each one of ``known``; unknown ids fail the field."""
        values = self.array(name, required=required)
        if values is None:
            return []
        if not all(isinstance(v, str) for v in values):
            self.fail(f"each value in {name} must be a string")
            return []
        unknown = [v for v in values if v not in known]
        if unknown:
            self.fail(f"{name} has unknown {what} ids: {', '.join(unknown)}")
            return []
        return list(values)

    def dollars(self, name: str, *, required: bool = True) -> Decimal | None:
        """Exact dollars with at most two decimals; ``decode_json`` gives int or Decimal, never float."""
        value = self.body.get(name)
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            self.fail(f"{name} must be a number of dollars")
            return None
        amount = Decimal(value)
        if amount != amount.quantize(Decimal("0.01")):
            self.fail(f"{name} must not have more than 2 decimal places")
            return None
        return amount


def page_query(query: Mapping[str, str], *, max_limit: int = 100) -> tuple[int, int]:
    """``page`` (default 1) and ``limit`` (default 10) of a paginated list."""
    messages = []
    values = []
    for name, default in (("page", 1), ("limit", 10)):
        raw = query.get(name)
        if raw is None:
            values.append(default)
        elif not _POSITIVE.fullmatch(raw) or not 1 <= int(raw) <= (max_limit if name == "limit" else 10**9):
            bound = f"between 1 and {max_limit}" if name == "limit" else "a positive integer"
            messages.append(f"{name} must be {bound}")
        else:
            values.append(int(raw))
    if messages:
        raise invalid(messages)
    return values[0], values[1]


def page_meta(count: int, page: int, limit: int) -> dict:
    return {"count": count, "totalPages": (count + limit - 1) // limit, "page": page, "limit": limit}


def page_slice(rows: list, page: int, limit: int) -> list:
    return rows[(page - 1) * limit : page * limit]
