"""The poll scheduler: evenly spaced slots, round-robin across messages until the key has
finished a few, then the ones most likely finished first; backoff on 429; the finishing
ages kept for the next start; reads of the transaction list that send a listed message's
poll first."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import RateLimited
from pos_app.api.requests import PayRequest
from pos_app.journal import Outcome
from pos_app.terminal import PollScheduler
from pos_app.terminal.hints import NEWEST_PAGE_SIZE, ListedAttempts
from pos_app.terminal.outcomes import Phase
from pos_app.terminal.poller import (
    DEFAULT_RETRY_AFTER,
    HINT_READ_EVERY,
    HINT_READ_WAIT,
    STALENESS_PER_S,
    CompletionModel,
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


async def test_a_429_on_a_read_holds_the_polls_past_its_retry_after(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1101, 1102], "limited")
        recorder = RecordingPoll(client)
        scheduler = PollScheduler(recorder, hints=ListedAttempts(client))
        sandbox.inject("transactions.list", 429)
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(*(scheduler.poll(m, attempt_id=a) for m, a in started))
    # the read answered 429, not retried; the slot waited, and a read went again before it
    assert len(recorder.calls) == 2 and sandbox.stats()["requests"]["S"]["transactions.list"] == 2
    assert recorder.calls[0][0] - began >= DEFAULT_RETRY_AFTER * 0.98  # the slot waited out the 429


async def test_the_hints_read_the_newest_page_of_a_list_that_runs_oldest_first(sandbox):
    sandbox.set_faults(s_delay_min=0.05, s_delay_max=0.05, list_oldest_first=1)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1200 + i for i in range(NEWEST_PAGE_SIZE + 5)], "old")
        await asyncio.sleep(0.1)  # not a wait for a condition: the sandbox records each at 0.05 s
        listed = ListedAttempts(client)
        first = await listed()  # page 1 runs oldest first: the hints turn to the last page
        assert started[0][1] in first
        second = await listed()
    assert started[-1][1] in second and started[0][1] not in second


async def test_a_read_that_fails_names_nothing(sandbox):
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        sandbox.inject("transactions.list", 503)
        assert await ListedAttempts(client)() == frozenset()


async def test_a_slow_read_is_given_up_and_the_slot_is_polled(sandbox):
    sandbox.set_faults(s_delay_min=30, s_delay_max=30)
    async with PaymentsClient(sandbox.base_url, sandbox.keys["S"]) as client:
        started = await start_attempts(client, [1301, 1302], "slow-list")
        recorder = RecordingPoll(client)

        async def hung() -> frozenset[str]:
            await asyncio.Event().wait()  # a list read the service never answers
            return frozenset()

        scheduler = PollScheduler(recorder, hints=hung)
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(*(scheduler.poll(m, attempt_id=a) for m, a in started))
    assert len(recorder.calls) == 2
    assert recorder.calls[0][0] - began < HINT_READ_WAIT + scheduler.interval  # waited for the read no longer
