"""How values become journal columns and back: UTC timestamps, JSON, and the secrets rule.

Kept apart so that the store, the migrations and the benchmark agree on one text form:
timestamps are always ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00`` (so text order is time order
and a day is a text range), JSON is compact with sorted keys, and nothing that looks like
the key-hash ever reaches the file.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

_SECRET_NAME = re.compile(r"[^a-z0-9]")
_SECRET_KEYS = frozenset({"keyhash"})


def utc_now() -> datetime:
    return datetime.now(UTC)


def time_text(moment: datetime) -> str:
    """``moment`` (aware) as fixed-width UTC text; naive datetimes are refused."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"journal timestamps must be timezone-aware, got naive {moment!r}")  # not for people
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def resolve_tz(tz: tzinfo | str | None) -> tzinfo | None:
    """An IANA name becomes a ``ZoneInfo``; ``None`` means the machine's local time."""
    if isinstance(tz, str):
        return ZoneInfo(tz)
    return tz


def tz_name(tz: tzinfo | None) -> str:
    if tz is None:
        return "local"
    return getattr(tz, "key", None) or str(tz)


def day_bounds(day: date, tz: tzinfo | None) -> tuple[str, str]:
    """The UTC text range ``[start, end)`` covering the calendar ``day`` in ``tz``.

    Each bound is computed on its own, so a day with a daylight-saving change is 23 or 25
    hours long, as the store's clock saw it.
    """
    if isinstance(day, datetime):
        raise TypeError("day must be a date, not a datetime")  # not for people

    def midnight(d: date) -> datetime:
        if tz is None:
            return datetime.combine(d, time()).astimezone()  # local rules, DST-aware
        return datetime.combine(d, time(), tzinfo=tz)

    return time_text(midnight(day)), time_text(midnight(day + timedelta(days=1)))


def is_secret_name(name: object) -> bool:
    """``key-hash``, ``key_hash``, ``keyHash``, ``KEY HASH``... all name the API secret."""
    return isinstance(name, str) and _SECRET_NAME.sub("", name.lower()) in _SECRET_KEYS


def find_secret(value: object, path: str = "") -> str | None:
    """The path of the first key naming the key-hash anywhere inside ``value``, if any."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if is_secret_name(key):
                return where
            found = find_secret(item, where)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = find_secret(item, f"{path}[{index}]")
            if found:
                return found
    return None


def dump_json(value: dict[str, Any], *, what: str) -> str:
    """``value`` as compact JSON, refusing secrets and anything JSON cannot carry exactly."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a dict, got {type(value).__name__}")  # not for people
    secret = find_secret(value)
    if secret:
        raise ValueError(
            f"{what} contains {secret!r}: the journal never stores the key-hash; "  # not for people
            "remove it (headers are not journaled)"
        )
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{what} must be JSON-able (str, int, bool, None, list, dict): {exc}") from None  # not for people


_DECODER = json.JSONDecoder()


def load_json(text: str | None) -> dict[str, Any]:
    """A stored JSON object (the journal writes them compact, without outer whitespace)."""
    if not text or text == "{}":
        return {}
    try:
        value, end = _DECODER.raw_decode(text)  # json.loads without its whitespace scans
    except json.JSONDecodeError:
        value, end = json.loads(text), len(text)  # outer whitespace: a row written by hand
    if end != len(text):
        value = json.loads(text)  # trailing text: json.loads raises the error it deserves
    return value if isinstance(value, dict) else {"value": value}
