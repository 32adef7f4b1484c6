"""The poll scheduler: evenly spaced slots, round-robin across messages until the key has
finished a few, then the ones most likely finished first; backoff on 429; the finishing
ages kept for the next start; reads of the transaction list that send a listed message's
poll first."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import RateLimited
from pos_app.api.models import MessageStatus, TransactionEntry
from pos_app.api.requests import PayRequest
from pos_app.journal import Outcome
from pos_app.terminal import PollScheduler
from pos_app.terminal.hints import NEWEST_PAGE_SIZE, ListedAttempts
from pos_app.terminal.lookup import attempt_of
from pos_app.terminal.outcomes import Phase
from pos_app.terminal.poller import (
    DEFAULT_RETRY_AFTER,
    HINT_READ_EVERY,
    HINT_READ_WAIT,
    STALENESS_PER_S,
    CompletionModel,
    _Waiter,
)
from pos_app.terminal.slots import SharedPollBudget


async def start_messages(client: PaymentsClient, count: int) -> list[str]:
    terminal = next(t.id for t in (await client.list_terminals()).data if t.is_active is not False)
    accepted = [await client.pay(PayRequest(terminalId=terminal, amount=1000 + i), attempt_id=f"a-p{i}")
                for i in range(count)]
    return [a.msg_identifier for a in accepted]


class RecordingPoll:
    """The real poll, with the loop time and message of each call noted."""

    def __init__(self, client: PaymentsClient) -> None:
        self.client = client
        self.calls: list[tuple[float, str]] = []

    async def __call__(self, message_id: str):
        self.calls.append((asyncio.get_running_loop().time(), message_id))
        return await self.client.poll_message(message_id)


async def test_slots_are_evenly_spaced_and_shared_round_robin(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30, rate_limit_per_minute=600)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        messages = await start_messages(client, 3)
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, per_minute=600)

        async def poll_repeatedly(message_id):
            for _ in range(6):
                await scheduler.poll(message_id)

        await asyncio.gather(*(poll_repeatedly(m) for m in messages))
    times = [t for t, _ in recorder.calls]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(recorder.calls) == 18
    assert min(gaps) >= scheduler.interval * 0.98, gaps  # never closer than one slot: no bursts
    order = [m for _, m in recorder.calls]
    for window in range(0, 18, 3):  # every message gets a turn before any gets a second
        assert sorted(order[window:window + 3]) == sorted(messages)


async def test_a_429_pushes_the_next_slot_past_retry_after(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        [message] = await start_messages(client, 1)
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, per_minute=600)
        await scheduler.poll(message)
        httpx.post(f"{sandbox.base_url}/_sandbox/inject",
                   json={"route": "terminal.poll_message", "status": 429, "count": 1}).raise_for_status()
        with pytest.raises(RateLimited) as limited:
            await scheduler.poll(message)
        assert limited.value.retry_after == 1
        limited_at = recorder.calls[-1][0]
        await scheduler.poll(message)
        waited = recorder.calls[-1][0] - limited_at
        assert waited >= 0.98 and waited > scheduler.interval * 5  # Retry-After, not the 0.1 s slot


async def test_progress_events_show_state_elapsed_and_next_poll(lane_factory):
    seen = []
    async with lane_factory("S") as lane:
        lane.service.on_progress = seen.append
        result = await lane.service.sale(lane.active[0], 1500)
    assert result.outcome is Outcome.APPROVED
    phases = [p.phase for p in seen]
    assert phases[0] is Phase.SENDING and phases[-1] is Phase.FINISHED and seen[-1].outcome is Outcome.APPROVED
    assert Phase.COMPLETE in phases and ({Phase.RECEIVED, Phase.PROCESSING} & set(phases))
    elapsed = [p.elapsed for p in seen]
    assert elapsed[1:-1] == sorted(elapsed[1:-1])
    assert any(p.next_poll_in is not None and 0 <= p.next_poll_in <= 1.0 for p in seen)
    assert {p.attempt_id for p in seen} == {result.attempt_id}


async def test_a_broken_progress_listener_does_not_break_the_sale(lane_factory):
    def explode(_):
        raise RuntimeError("listener bug")

    async with lane_factory("B") as lane:
        lane.service.on_progress = explode
        result = await lane.service.sale(lane.active[0], 1500)
    assert result.outcome is Outcome.APPROVED


def test_the_model_ranks_messages_where_the_service_usually_finishes_first():
    model = CompletionModel()
    assert not model.ready and model.claim(0.0, 1.0, 1.0) == 1.0  # no history yet: staleness, round-robin
    for age in (3.0, 3.5, 4.0, 4.5, 5.0):  # this key's service finishes in 3-5 s
        model.observe(age)
    assert model.ready and model.finished_by(1.0) == 0.0 and model.finished_by(9.0) == 1.0
    assert 0.0 < model.finished_by(3.2) < model.finished_by(4.0) < model.finished_by(4.8) < 1.0
    young = model.claim(0.5, 1.5, 1.0)  # 1.5 s old: nothing finishes that early
    due = model.claim(3.5, 4.5, 1.0)  # polled at 3.5 s, now 4.5 s: most finish in between
    overdue = model.claim(20.0, 21.0, 1.0)  # a timeout long past every finished message
    assert due > young and due > overdue and young == overdue == STALENESS_PER_S
    assert model.claim(20.0, 40.0, 20.0) > due  # left alone long enough, anything is polled


async def test_finishing_ages_are_kept_for_the_next_scheduler_of_the_key(tmp_path, sandbox):
    sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.4, rate_limit_per_minute=600)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        messages = await start_messages(client, 3)
        scheduler = PollScheduler(client.poll_message, per_minute=600, shared=SharedPollBudget(tmp_path, "key-s"))

        async def until_finished(message_id):
            while (await scheduler.poll(message_id)).status not in ("complete", "failed"):
                pass

        await asyncio.gather(*(until_finished(m) for m in messages))
    kept = SharedPollBudget(tmp_path, "key-s").finished_ages()
    assert len(kept) == 3 and all(0.0 < age < 2.0 for age in kept), kept
    again = PollScheduler(client.poll_message, per_minute=600, shared=SharedPollBudget(tmp_path, "key-s"))
    assert again.model.ready and again.model.finished_by(max(kept) + 1.0) == 1.0  # starts from what was kept


async def test_a_spare_slot_comes_after_every_waiting_poll_and_keeps_the_spacing(sandbox, tmp_path):
    """The link watcher's reads take what the terminal's polls leave: with polls waiting, a
    spare slot is taken only once none waits, and never closer than one slot to a poll."""
    sandbox.set_faults(s_delay_min=30, s_delay_max=30, rate_limit_per_minute=600)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        messages = await start_messages(client, 2)
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, per_minute=600, shared=SharedPollBudget(tmp_path, "key"))
        loop = asyncio.get_running_loop()
        spare_at: list[float] = []

        async def polls():
            for _ in range(3):
                await asyncio.gather(*(scheduler.poll(m) for m in messages))

        async def spare():
            await scheduler.spare_slot()
            spare_at.append(loop.time())

        poller = asyncio.ensure_future(polls())
        await asyncio.sleep(0)  # the first polls are queued
        await asyncio.gather(poller, spare())
    times = sorted([t for t, _ in recorder.calls] + spare_at)
    assert len(recorder.calls) == 6 and spare_at[0] >= max(t for t, _ in recorder.calls[:2])
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= scheduler.interval * 0.98


class RecordingHints:
    """The real ``ListedAttempts``, with the loop time of each read and what it named."""

    def __init__(self, client: PaymentsClient) -> None:
        self.listed = ListedAttempts(client)
        self.reads: list[tuple[float, frozenset[str]]] = []

    async def __call__(self) -> frozenset[str]:
        sent = asyncio.get_running_loop().time()
        named = await self.listed()
        self.reads.append((sent, named))
        return named


async def start_attempts(client: PaymentsClient, amounts: list[int], prefix: str) -> list[tuple[str, str]]:
    """(message id, attempt id) of type S sales of these amounts."""
    terminal = next(t.id for t in (await client.list_terminals()).data if t.is_active is not False)
    started = []
    for i, amount in enumerate(amounts):
        attempt = f"a-{prefix}{i}"
        accepted = await client.pay(PayRequest(terminalId=terminal, amount=amount), attempt_id=attempt)
        started.append((accepted.msg_identifier, attempt))
    return started


async def until_listed(client: PaymentsClient, condition: Callable[[list[TransactionEntry]], bool],
                       timeout: float = 5.0) -> None:
    """Read the transaction list until ``condition`` holds of its entries; fail after ``timeout``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition((await client.list_transactions(limit=100)).data):
        assert asyncio.get_running_loop().time() < deadline, "the transaction list never showed it"
        await asyncio.sleep(0.02)


async def test_a_message_the_transaction_list_names_takes_the_next_slot(sandbox):
    """Three messages wait; the service finishes one long before the others. A read of the
    list, sent right before a slot, names its attempt: that slot polls it, whoever's turn it
    was, and the polls keep their spacing with the reads between them."""
    sandbox.set_faults(s_delay_min=60, s_delay_max=60)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        slow = await start_attempts(client, [1001, 1002], "slow")
        sandbox.set_faults(s_delay_min=0.3, s_delay_max=0.3)
        [(quick, quick_attempt)] = await start_attempts(client, [1003], "quick")
        recorder, hints = RecordingPoll(client), RecordingHints(client)
        scheduler = PollScheduler(recorder, hints=hints)
        finished_at: list[float] = []

        async def until_finished(message_id: str, attempt_id: str) -> None:
            while (await scheduler.poll(message_id, attempt_id=attempt_id)).status not in ("complete", "failed"):
                pass
            finished_at.append(asyncio.get_running_loop().time())

        waits = [asyncio.ensure_future(until_finished(*pair)) for pair in slow]
        await asyncio.wait_for(until_finished(quick, quick_attempt), 10)
        for wait in waits:
            wait.cancel()
    naming = next(sent for sent, named in hints.reads if quick_attempt in named)
    polls_of_quick = [t for t, m in recorder.calls if m == quick]
    assert polls_of_quick[-1] - naming < scheduler.interval / 2  # the very slot the read came before
    assert all(slow_attempt not in named for _, slow_attempt in slow for _, named in hints.reads)
    times = [t for t, _ in recorder.calls]
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= scheduler.interval * 0.98
    reads = [t for t, _ in hints.reads]
    assert min(b - a for a, b in zip(reads, reads[1:], strict=False)) >= HINT_READ_EVERY * 0.98


async def test_one_waiting_message_is_polled_without_reading_the_list(sandbox):
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        [(message, attempt)] = await start_attempts(client, [1500], "alone")
        hints = RecordingHints(client)
        scheduler = PollScheduler(client.poll_message, hints=hints)
        while (await scheduler.poll(message, attempt_id=attempt)).status != "complete":
            pass
    assert hints.reads == []  # a poll tells as much about one message as a read would


@pytest.mark.alone  # it bounds the polls' pace
async def test_a_list_that_keeps_answering_429_holds_the_reads_not_the_polls(sandbox):
    """The list's own limit is not the polls': a 429 on every read stops the reads for its
    Retry-After, and the messages are polled in their slots all along."""
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1101, 1102], "limited")
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, hints=ListedAttempts(client))
        sandbox.inject("transactions.list", 429, count=1000)

        async def keep_polling(message_id: str, attempt_id: str) -> None:
            for _ in range(4):
                await scheduler.poll(message_id, attempt_id=attempt_id)

        began = asyncio.get_running_loop().time()
        await asyncio.wait_for(asyncio.gather(*(keep_polling(*pair) for pair in started)), 10)
        took = asyncio.get_running_loop().time() - began
    reads = sandbox.stats()["requests"]["S"]["transactions.list"]
    assert len(recorder.calls) == 8 and took < 8 * scheduler.interval + 0.5, took
    assert 1 <= reads <= took / DEFAULT_RETRY_AFTER + 1  # one read per Retry-After at most


async def test_a_read_that_raises_never_stops_the_polls(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1201, 1202], "crash")
        recorder = RecordingPoll(client)

        async def broken() -> frozenset[str]:
            raise KeyError("a bug in the read")

        scheduler = PollScheduler(recorder, hints=broken)
        await asyncio.wait_for(asyncio.gather(*(scheduler.poll(m, attempt_id=a) for m, a in started)), 3)
    assert len(recorder.calls) == 2


async def test_a_message_held_in_timeout_after_its_payment_is_listed_does_not_take_every_slot(sandbox):
    """9903: the payment is recorded (listed), the message stays in timeout; a read names it
    at every slot. It is moved ahead once: a failed message (never listed) is polled too."""
    sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.2)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        [(stuck, stuck_attempt), (failed, failed_attempt)] = await start_attempts(client, [9903, 9901], "held")
        await until_listed(client, lambda entries: stuck_attempt in map(attempt_of, entries))
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, hints=ListedAttempts(client))

        async def until_finished(message_id: str, attempt_id: str) -> None:
            while (await scheduler.poll(message_id, attempt_id=attempt_id)).status not in ("complete", "failed"):
                pass

        held = asyncio.ensure_future(until_finished(stuck, stuck_attempt))
        await asyncio.wait_for(until_finished(failed, failed_attempt), 10 * scheduler.interval + 2)
        held.cancel()
        await asyncio.gather(held, return_exceptions=True)
    assert [m for _, m in recorder.calls].count(failed) == 1


async def test_a_slow_read_stretches_no_slot(sandbox):
    """Reads go before their slot and are given up by it: three messages waiting on a list
    that answers in a second are polled one slot apart all the same."""
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1501, 1502, 1503], "slowlist")
        recorder = RecordingPoll(client)

        async def slow() -> frozenset[str]:
            await asyncio.sleep(1.0)
            return frozenset()

        scheduler = PollScheduler(recorder, hints=slow)

        async def poll_each(message_id: str, attempt_id: str) -> None:
            for _ in range(3):
                await scheduler.poll(message_id, attempt_id=attempt_id)

        await asyncio.wait_for(asyncio.gather(*(poll_each(*pair) for pair in started)), 12)
    times = [t for t, _ in recorder.calls]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(times) == 9 and max(gaps) < scheduler.interval + HINT_READ_WAIT / 2, gaps


async def test_two_processes_on_one_key_poll_one_slot_apart_with_reads_between(sandbox, tmp_path):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1301, 1302, 1303, 1304], "shared")
        calls: list[float] = []

        async def poll(message_id: str):
            calls.append(time.time())
            return await client.poll_message(message_id)

        async def slow_read() -> frozenset[str]:
            await asyncio.sleep(0.2)  # answered in time, not at once
            return frozenset()

        reading = PollScheduler(poll, shared=SharedPollBudget(tmp_path, "k"), hints=slow_read)
        other = PollScheduler(poll, shared=SharedPollBudget(tmp_path, "k"))  # another process, say

        async def poll_each(scheduler: PollScheduler, message_id: str, attempt_id: str) -> None:
            for _ in range(3):
                await scheduler.poll(message_id, attempt_id=attempt_id)

        await asyncio.gather(poll_each(reading, *started[0]), poll_each(reading, *started[1]),
                             poll_each(other, *started[2]), poll_each(other, *started[3]))
    calls.sort()
    assert min(b - a for a, b in zip(calls, calls[1:], strict=False)) >= reading.interval * 0.98


async def test_a_poll_arriving_as_the_last_waiter_gives_up_is_still_given_a_slot(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        [(first_message, first_attempt), (second_message, second_attempt)] = await start_attempts(
            client, [1601, 1602], "race")
        scheduler = PollScheduler(client.poll_message)
        await scheduler.poll(first_message, attempt_id=first_attempt)  # the next slot is one interval away
        first = asyncio.ensure_future(scheduler.poll(first_message, attempt_id=first_attempt))
        await asyncio.sleep(0)
        first.cancel()  # its caller's wait limit: the dispatcher is cancelled ...
        await asyncio.wait_for(scheduler.poll(second_message, attempt_id=second_attempt), 3)  # ... and started again


async def test_the_hints_tell_nothing_from_a_list_that_runs_oldest_first(sandbox):
    sandbox.set_faults(s_delay_min=0.05, s_delay_max=0.05, list_oldest_first=1)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1400 + i for i in range(NEWEST_PAGE_SIZE + 1)], "old")
        await until_listed(client, lambda entries: len(entries) > NEWEST_PAGE_SIZE)
        assert await ListedAttempts(client)() is None  # its first page is the oldest: no news of the newest
        sandbox.set_faults(list_oldest_first=0)
        assert started[-1][1] in (await ListedAttempts(client)() or ())


async def test_a_read_that_fails_tells_nothing(sandbox):
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        sandbox.inject("transactions.list", 503)
        assert await ListedAttempts(client)() is None


def test_a_poll_that_gave_up_its_turn_never_makes_the_dispatcher_spin():
    """A poll cancelled (its caller's wait limit) has its turn's future cancelled at once but
    leaves the queue only when its task runs next: a dispatcher that meets it first has no
    one to give the slot to, and must let that task run, not loop without yielding (which
    froze the event loop: a chaos run hung on it). On a loop of its own thread, so that a
    spin fails the test instead of hanging it."""
    outcome: list[str] = []

    async def never_polled(message_id: str) -> MessageStatus:
        raise AssertionError("no poll was asked for")

    async def scenario() -> None:
        scheduler = PollScheduler(never_polled)
        given_up = asyncio.get_running_loop().create_future()
        given_up.cancel()
        scheduler._waiters.append(_Waiter("m-given-up", given_up))  # its task has not run yet
        dispatcher = asyncio.ensure_future(scheduler._dispatch())
        await asyncio.sleep(scheduler.interval)
        outcome.append("the loop kept turning")
        dispatcher.cancel()

    runner = threading.Thread(target=asyncio.run, args=(scenario(),), daemon=True)
    runner.start()
    runner.join(5)
    assert outcome == ["the loop kept turning"]
