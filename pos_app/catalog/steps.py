"""Big collections sorted and freed in steps, for the sync's worker threads.

A worker thread does not stop the event loop (the Qt thread's) while it runs Python code:
the interpreter hands the GIL over every few milliseconds. One C call does not let go:
sorting 100,000 rows holds the GIL for about 70 ms on a small till, freeing them (or a
dict of 100,000 items) 30-40 ms. These helpers do the same work as short C calls joined by
Python code, so the loop gets its turn in between.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

STEP = 4096
"""Entries sorted or freed by one C call: about 2 ms of GIL each."""


def sorted_in_steps[T: SupportsRichComparison](values: list[T]) -> list[T]:
    """``sorted(values)``, the same order, as runs of ``STEP`` sorted one by one and then merged."""
    runs = [sorted(values[start : start + STEP]) for start in range(0, len(values), STEP)]
    if len(runs) <= 1:
        return runs[0] if runs else []
    return list(heapq.merge(*runs))


def release_in_steps(values: list[Any]) -> None:
    """Empty ``values``, freeing its entries ``STEP`` at a time."""
    while values:
        del values[-STEP:]


def empty_in_steps(mapping: dict[Any, Any]) -> None:
    """Empty ``mapping``, freeing its entries one at a time."""
    while mapping:
        mapping.popitem()
