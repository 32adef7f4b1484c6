"""JSON on the wire without floats: numbers with a fraction decode to ``Decimal`` and
``Decimal`` encodes to its exact digits, so a dollar price never passes through a float."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")  # not for people


def decode_json(data: bytes | str) -> Any:
    """Parse JSON; fractional numbers become ``Decimal``; NaN/Infinity are refused (ValueError)."""
    return json.loads(data, parse_float=Decimal, parse_constant=_refuse_constant)


def encode_json(value: Any) -> bytes:
    """Compact JSON bytes; ``Decimal`` is written as its exact digits."""
    return "".join(_encode(value)).encode()


def _encode(value: Any) -> Iterator[str]:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"cannot send {value} as JSON")  # not for people
        yield format(value, "f")
    elif isinstance(value, float):
        raise TypeError("floats are not sent: use int cents or Decimal dollars")  # not for people
    elif isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            if index:
                yield ","
            yield json.dumps(str(key))
            yield ":"
            yield from _encode(item)
        yield "}"
    elif isinstance(value, (list, tuple)):
        yield "["
        for index, item in enumerate(value):
            if index:
                yield ","
            yield from _encode(item)
        yield "]"
    else:
        yield json.dumps(value)
