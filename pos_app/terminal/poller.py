"""The poll scheduler: every type S message of one key shares one polling budget.

The service allows 120 polls a minute per key. The scheduler hands out poll slots one
at a time, first come first served (so N messages are polled round-robin), never closer
than ``interval`` apart (60/120 s plus a 1 % margin: no bursts, and ≤ 120 in any
minute even with network jitter). A 429 pushes the next slot past its Retry-After.
With a ``SharedPollBudget`` the slots are also shared with the station's other processes
on the same key (the app and a scripted ``resume``). Reads that must come after the
terminal's polls (the payment link watcher) take only a slot left over: ``spare_slot``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from pos_app.api.errors import RateLimited
from pos_app.api.models import MessageStatus
from pos_app.terminal.slots import SharedPollBudget

POLLS_PER_MINUTE = 120
DEFAULT_RETRY_AFTER = 1.0


class PollScheduler:
    def __init__(
        self,
        poll: Callable[[str], Awaitable[MessageStatus]],
        *,
        per_minute: int = POLLS_PER_MINUTE,
        margin: float = 1.01,
        shared: SharedPollBudget | None = None,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self._poll = poll
        self._shared = shared
        self.interval = 60.0 / per_minute * margin
        self._turn = asyncio.Lock()  # waiters are woken in FIFO order: round-robin
        self._next_slot = 0.0
        self.waiting = 0

    def next_poll_in(self) -> float:
        loop = asyncio.get_running_loop()
        return max(0.0, self._next_slot - loop.time()) + self.waiting * self.interval

    async def poll(self, message_id: str) -> MessageStatus:
        """Wait for this key's next free slot, then poll ``message_id`` once."""
        loop = asyncio.get_running_loop()
        self.waiting += 1
        try:
            await self._turn.acquire()
        finally:
            self.waiting -= 1
        try:
            delay = self._next_slot - loop.time()
            if self._shared is not None:
                delay = max(delay, await self._shared.reserve(self.interval))
            if delay > 0:
                await asyncio.sleep(delay)
            self._next_slot = loop.time() + self.interval
        finally:
            self._turn.release()
        try:
            return await self._poll(message_id)
        except RateLimited as error:
            wait = error.retry_after if error.retry_after is not None else DEFAULT_RETRY_AFTER
            self._next_slot = max(self._next_slot, loop.time() + wait)
            if self._shared is not None:
                await self._shared.push(time.time() + wait)
            raise

    async def spare_slot(self) -> None:
        """Wait for a slot no poll wants, and take it: none of this scheduler's polls waiting,
        its next slot due now and (shared) the key's next slot free now in every process. For
        reads that come after the terminal's polls (the payment link watcher): they only ever
        take what the polls leave of the budget."""
        loop = asyncio.get_running_loop()
        while True:
            if self.waiting == 0 and not self._turn.locked():
                async with self._turn:  # free: taken at once, and a poll arriving now waits for this check only
                    if self._next_slot <= loop.time() and (
                            self._shared is None or await self._shared.take_if_free(self.interval)):
                        self._next_slot = loop.time() + self.interval
                        return
            await asyncio.sleep(self.interval)
