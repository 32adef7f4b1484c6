"""Waiting on a condition with a deadline: the suite's one replacement for sleep-and-hope."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(condition: Callable[[], Any], *, timeout: float = 5.0, interval: float = 0.02,
               what: str = "condition") -> Any:
    """Call ``condition`` until it returns something truthy (returned); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what} (last value {value!r})")
        time.sleep(interval)


async def wait_until_async(condition: Callable[[], Any], *, timeout: float = 5.0, interval: float = 0.02,
                           what: str = "condition") -> Any:
    """``wait_until`` for a test running on the event loop: other tasks run while it waits."""
    import asyncio

    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what} (last value {value!r})")
        await asyncio.sleep(interval)
