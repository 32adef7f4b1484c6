"""The poll scheduler: every type S message of one key shares one polling budget.

The service allows 120 polls a minute per key. The scheduler hands out poll slots one
at a time, never closer than ``interval`` apart (60/120 s plus a 1 % margin: no bursts,
and ≤ 120 in any minute even with network jitter). A 429 pushes the next slot past its
Retry-After. With a ``SharedPollBudget`` the slots are also shared with the station's
other processes on the same key (the app and a scripted ``resume``).

Who gets a slot: the waiting message most likely to have finished since it was last
polled. ``CompletionModel`` keeps how old the key's recent messages were when a poll
found them complete or failed; a message's claim is its chance of having finished since
its last poll, ``(F(age now) − F(age then)) / (1 − F(age then))`` with ``F`` their share
finished by an age, plus a little for each second since that poll. So a message younger
than any the service has finished waits while older ones are polled, polls grow dense
where the service usually finishes, and a message older than all of them (a timeout, a
terminal left waiting for a card) is polled by its staleness alone, after newer ones.
Simulated (4 lanes, 2 polls a second, the service finishing in 2-6 s): p95 from
completion to result 1.7 s instead of round-robin's 1.9 s, median 0.65 s instead of
1.0 s; in 3-5 s: 1.4 s instead of 1.9 s (``make bench``'s ``four_lanes`` measures it over
loopback). Until the key has finished ``MIN_OBSERVED`` messages every message counts as
equally likely and the one polled longest ago goes first (round-robin). With a
``SharedPollBudget`` the ages are kept beside the key's slot file, for every process on
the key and the next start.

Hints: one read of the service's newest transactions (``hints``, a ``ListedAttempts``)
names every attempt whose payment is recorded, where a poll tells about one message. A
read goes ``HINT_READ_WAIT`` s before a slot when two or more messages of attempts wait,
the last read is ``HINT_READ_EVERY`` s old, and their chances of having finished since the
key last learned of them sum to ``HINT_MIN_CHANCE`` or more (or the model is not ready
yet); the slot is polled on time, by a message the read named (ahead of every model
claim, once per message: one held in ``timeout`` after its payment is listed must not
take every slot) or else by the model. A read not answered by its slot is given up. A read
that does not name a message counts as news of it for the model, though its staleness
runs from its last poll (a failed message is never listed: only a poll tells). A read is
not a poll: the service's 120 a minute are polls of messages, and stay so; the list's own
limit is not given, so reads stay within the polls' pace (one per slot at most, only while
messages wait together, never for a single one), are tried once, and a 429 on one holds
the reads, not the polls, past its Retry-After; a read that tells nothing (a failure, a
list not newest first) holds them ``HINT_PAUSE`` s. Measured (``make bench``'s
``four_lanes``, 4 lanes × 8 sales, the service finishing in 2-6 s): p95 from completion
to result 0.98 s (1.16 s on a first start, with no finishing ages kept), median 0.5 s;
by the model alone 1.45-3.2 s.

Reads that must come after the terminal's polls (the payment link watcher) take only a
slot left over: ``spare_slot``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pos_app.api.errors import RateLimited
from pos_app.api.models import MessageStatus
from pos_app.terminal.slots import SharedPollBudget

log = logging.getLogger(__name__)

POLLS_PER_MINUTE = 120
DEFAULT_RETRY_AFTER = 1.0
FINISHED = frozenset({"complete", "failed"})
"""Statuses after which a message is not polled again (``timeout`` is not final)."""
MIN_OBSERVED = 3
"""Finished messages the model needs before it orders the slots."""
KEPT_OBSERVED = 200
"""Recent finishing ages the model keeps: the service's pace of the last hour or so."""
STALENESS_PER_S = 0.1
"""A message's claim to a slot grows by this per second since its last poll, whatever the
model says: 1.0 after 10 s, a certainty's worth, so nothing starves."""
SPREAD = 0.15
MIN_SPREAD = 0.5
"""How far either side of its age one finished message counts (a share of it, seconds)."""
FORGET_AFTER = 600.0
"""Seconds without a poll after which a message's first-seen time is dropped."""
HINT_READ_EVERY = 0.5
"""Seconds between two reads of the transaction list, at least."""
HINT_MIN_CHANCE = 0.2
"""The chances (summed over the waiting messages) that make a read worth sending."""
HINT_READ_WAIT = 0.25
"""Seconds before its slot a read is sent; one not answered by the slot is given up."""
HINT_PAUSE = 10.0
"""Seconds without a read after one that told nothing (failed, or a list in another order)."""
HINTED = 100.0
"""The claim of a message whose payment a read found: above any model claim."""
MIN_HINTED_MESSAGES = 2
"""Messages of attempts that must wait together before a read is worth sending."""

Hints = Callable[[], Awaitable[frozenset[str] | None]]
"""A read of the service's newest transactions: the attempt ids they name, None when it
cannot tell (the read failed, the list does not show its newest entries first):
``ListedAttempts``."""


class CompletionModel:
    """How old (seconds since their first poll request) the key's recent messages were when
    they finished: the middle between the poll that found one finished and the one before.

    ``finished_by`` smooths them (each spread over ``SPREAD`` of its age either side, at
    least ``MIN_SPREAD`` s): a few dozen ages leave gaps, and a message whose age falls in
    one must not look as if it could not finish there."""

    def __init__(self, keep: int = KEPT_OBSERVED) -> None:
        self._recent: deque[float] = deque(maxlen=keep)

    def observe(self, age: float) -> None:
        self._recent.append(max(age, 0.0))

    @property
    def ready(self) -> bool:
        return len(self._recent) >= MIN_OBSERVED

    def finished_by(self, age: float) -> float:
        """The share of the recent messages finished by ``age``, smoothed."""
        total = 0.0
        for seen in self._recent:
            spread = max(seen * SPREAD, MIN_SPREAD)
            total += min(max((age - seen + spread) / (2 * spread), 0.0), 1.0)
        return total / len(self._recent)

    def chance(self, age_then: float, age_now: float) -> float:
        """The chance that a message not finished at ``age_then`` has finished by ``age_now``
        (none once older than every message finished: an old timeout waits behind newer
        messages)."""
        before = self.finished_by(age_then)
        if before >= 0.999:
            return 0.0
        return (self.finished_by(age_now) - before) / (1.0 - before)

    def claim(self, age_then: float, age_now: float, since: float) -> float:
        """A message's claim to the next slot: its ``chance`` of having finished since the key
        last learned of it at ``age_then``, plus ``STALENESS_PER_S`` for each of the
        ``since`` seconds since its last poll, which keeps every message polled."""
        if not self.ready:
            return since
        return self.chance(age_then, age_now) + STALENESS_PER_S * since


@dataclass
class _Message:
    first_seen: float
    attempt_id: str | None = None
    last_polled: float | None = None
    informed: float | None = None
    """When a poll or a read last found it not finished."""
    hinted: float | None = None
    """When a read was sent that named its attempt (its payment is recorded)."""
    hint_spent: bool = False
    """A poll after its hint found it not finished (a message held in ``timeout``): no
    read moves it ahead again, or it would take every slot."""

    @property
    def known_at(self) -> float:
        return self.informed if self.informed is not None else self.first_seen

    @property
    def polled_at(self) -> float:
        return self.last_polled if self.last_polled is not None else self.first_seen


@dataclass(eq=False)
class _Waiter:
    message_id: str
    granted: asyncio.Future[None]


class PollScheduler:
    def __init__(
        self,
        poll: Callable[[str], Awaitable[MessageStatus]],
        *,
        per_minute: int = POLLS_PER_MINUTE,
        margin: float = 1.01,
        shared: SharedPollBudget | None = None,
        hints: Hints | None = None,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")  # not for people: a caller's bug
        self._poll = poll
        self._shared = shared
        self._hints = hints
        self._next_read = float("-inf")
        self.interval = 60.0 / per_minute * margin
        self.model = CompletionModel()
        for age in shared.finished_ages() if shared is not None else ():
            self.model.observe(age)
        self._messages: dict[str, _Message] = {}
        self._waiters: list[_Waiter] = []
        self._dispatcher: asyncio.Task[None] | None = None
        self._next_slot = 0.0

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def next_poll_in(self) -> float:
        loop = asyncio.get_running_loop()
        return max(0.0, self._next_slot - loop.time()) + self.waiting * self.interval

    async def poll(self, message_id: str, *, attempt_id: str | None = None) -> MessageStatus:
        """Wait until this message is given a slot of the key, then poll it once. With the
        ``attempt_id`` that sent it, a read of the transaction list can name it (``hints``)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        message = self._messages.setdefault(message_id, _Message(first_seen=now))
        message.attempt_id = attempt_id or message.attempt_id
        waiter = _Waiter(message_id, loop.create_future())
        self._waiters.append(waiter)
        if self._dispatcher is None or self._dispatcher.done() or self._dispatcher.cancelling():
            self._dispatcher = loop.create_task(self._dispatch(), name="poll slots")  # not for people: a task name
        try:
            await waiter.granted
        except BaseException:  # cancelled (the caller's wait limit, a shutdown): give the turn up
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            if not self._waiters and self._dispatcher is not None:
                self._dispatcher.cancel()
            raise
        known_before, hinted = message.known_at, message.hinted
        message.last_polled = loop.time()
        if hinted is not None:  # a hint moves a message ahead once
            message.hinted, message.hint_spent = None, True
        try:
            status = await self._poll(message_id)
        except RateLimited as error:
            wait = error.retry_after if error.retry_after is not None else DEFAULT_RETRY_AFTER
            self._next_slot = max(self._next_slot, loop.time() + wait)
            if self._shared is not None:
                await self._shared.push(time.time() + wait)
            raise
        if status.status not in FINISHED:
            message.informed = message.last_polled
        else:  # it finished after the key last learned of it, before this poll (or the read naming it)
            found = hinted if hinted is not None and hinted >= known_before else message.last_polled
            age = (known_before + found) / 2 - message.first_seen
            self.model.observe(age)
            if self._shared is not None:
                await asyncio.to_thread(self._shared.add_finished_age, age, KEPT_OBSERVED)
            self._messages.pop(message_id, None)
        return status

    async def _dispatch(self) -> None:
        """Hand the key's slots out, one per ``interval``, while messages wait; a read of the
        transaction list, when worth it, goes ``HINT_READ_WAIT`` before its slot, which is
        polled on time."""
        loop = asyncio.get_running_loop()
        while self._waiters:
            delay = self._next_slot - loop.time()
            if self._shared is not None:
                delay = max(delay, await self._shared.reserve(self.interval))
            slot = loop.time() + max(delay, 0.0)
            if delay > HINT_READ_WAIT:
                await asyncio.sleep(delay - HINT_READ_WAIT)
            if slot - loop.time() > 0.0 and self._read_worth(loop.time()):
                await self._read_hints(loop.time(), slot)
            if slot > loop.time():
                await asyncio.sleep(slot - loop.time())
            waiter = self._chosen(loop.time())
            if waiter is None:  # the waiters gave up meanwhile: the reserved slot goes unused,
                await asyncio.sleep(0)  # and their tasks run to leave the queue (no spin)
                self._waiters = [waiter for waiter in self._waiters if not waiter.granted.done()]
                continue
            self._waiters.remove(waiter)
            waiter.granted.set_result(None)
            self._next_slot = loop.time() + self.interval
            self._forget_idle(loop.time())

    def _chosen(self, now: float) -> _Waiter | None:
        """The waiter with the best claim (a message a read named first)."""
        best: _Waiter | None = None
        best_claim = -1.0
        for waiter in self._waiters:  # first come first: a later waiter must claim more
            if waiter.granted.done():
                continue
            message = self._messages.setdefault(waiter.message_id, _Message(first_seen=now))
            if message.hinted is not None:
                claim = HINTED + now - message.hinted
            else:
                claim = self.model.claim(message.known_at - message.first_seen, now - message.first_seen,
                                         now - message.polled_at)
            if claim > best_claim:
                best, best_claim = waiter, claim
        return best

    def _listable(self) -> list[_Message]:
        """Waiting messages a read could name: sent by an attempt, not named yet."""
        waiting = {waiter.message_id for waiter in self._waiters if not waiter.granted.done()}
        return [message for message_id, message in self._messages.items()
                if message_id in waiting and message.attempt_id is not None and message.hinted is None
                and not message.hint_spent]

    def _read_worth(self, now: float) -> bool:
        """Is a read of the transaction list worth sending before this slot's poll?"""
        if self._hints is None or now < self._next_read:
            return False
        listable = self._listable()
        if len(listable) < MIN_HINTED_MESSAGES:
            return False
        if not self.model.ready:  # no chances known yet: a read a second while lanes wait together
            return True
        return sum(self.model.chance(message.known_at - message.first_seen, now - message.first_seen)
                   for message in listable) >= HINT_MIN_CHANCE

    async def _read_hints(self, sent: float, slot: float) -> None:
        """One read of the list, given up at ``slot``: the messages it names are polled
        first; the rest were not finished when it was sent, as far as the list knows. A 429
        holds the reads (not the polls: the list's limit is its own) past its Retry-After;
        a read that fails in any other way names nothing."""
        assert self._hints is not None  # not for people: only read with hints
        self._next_read = sent + HINT_READ_EVERY
        covered = self._listable()
        try:
            named = await asyncio.wait_for(self._hints(), max(slot - sent, 0.0))
        except TimeoutError:
            log.info("transaction list read for poll hints not answered by its slot: given up")
            return
        except RateLimited as error:
            wait = error.retry_after if error.retry_after is not None else DEFAULT_RETRY_AFTER
            log.info("transaction list read for poll hints answered 429: no read for %s s", wait)
            self._next_read = max(self._next_read, sent + wait)
            return
        except Exception:  # a bug in a read must never stop the polls
            log.exception("transaction list read for poll hints failed")
            return
        if named is None:
            self._next_read = sent + HINT_PAUSE
            return
        for message in covered:
            if message.attempt_id in named:
                message.hinted = sent
                log.debug("poll hint: attempt %s is listed: its message is polled first", message.attempt_id)
            else:
                message.informed = max(message.informed or sent, sent)

    def _forget_idle(self, now: float) -> None:
        waiting = {waiter.message_id for waiter in self._waiters}
        idle = [message_id for message_id, message in self._messages.items()
                if message_id not in waiting
                and now - (message.last_polled or message.first_seen) > FORGET_AFTER]
        for message_id in idle:
            del self._messages[message_id]

    async def spare_slot(self) -> None:
        """Wait for a slot no poll wants, and take it: none of this scheduler's polls waiting,
        its next slot due now and (shared) the key's next slot free now in every process. For
        reads that come after the terminal's polls (the payment link watcher): they only ever
        take what the polls leave of the budget."""
        loop = asyncio.get_running_loop()
        while True:
            if not self._waiters and self._next_slot <= loop.time() and (
                    self._shared is None or await self._shared.take_if_free(self.interval)):
                self._next_slot = loop.time() + self.interval  # a poll arriving meanwhile takes the next one
                return
            await asyncio.sleep(self.interval)
