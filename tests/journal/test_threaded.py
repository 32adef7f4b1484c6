"""``AsyncJournal``: the journal on its own thread, so a slow or locked write never stalls
the event loop (the app's screen)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

from pos_app.journal import Journal, JournalLocked, Operation, Outcome
from pos_app.journal.threaded import AsyncJournal


async def test_a_locked_write_waits_on_the_journal_thread_not_on_the_event_loop(tmp_path):
    path = tmp_path / "journal.sqlite3"
    journal = await AsyncJournal.open(path, busy_timeout=2.0)
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        write = asyncio.ensure_future(journal.begin_attempt(
            operation=Operation.SALE, terminal_id="T1", gateway="B", amount=500, order_key="o-1", request={}))
        gaps, last, started = [], time.monotonic(), time.monotonic()
        while not write.done():
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last)
            last = now
            if now - started > 0.3 and locker.in_transaction:
                locker.execute("ROLLBACK")  # the other process lets go after 0.3 s
        attempt = await write
    finally:
        locker.close()
    assert attempt.amount == 500 and time.monotonic() - started >= 0.3
    assert max(gaps) < 0.05, f"the event loop stalled {max(gaps):.3f} s"
    assert [a.id for a in await journal.in_flight()] == [attempt.id]
    await journal.close()


async def test_every_call_runs_on_one_journal_thread(tmp_path):
    journal = await AsyncJournal.open(tmp_path / "journal.sqlite3")
    seen: set[str] = set()
    original = journal.journal.get

    def get(attempt_id):
        seen.add(threading.current_thread().name)
        return original(attempt_id)

    journal.journal.get = get
    attempt = await journal.begin_attempt(operation=Operation.SALE, terminal_id="T1", gateway="S", amount=100,
                                          request={})
    await journal.mark_sent(attempt.id)
    await journal.finish(attempt.id, Outcome.APPROVED, {"payment_id": "p-1"})
    assert (await journal.get(attempt.id)).outcome is Outcome.APPROVED
    assert len(seen) == 1 and next(iter(seen)).startswith("journal") and journal.threaded
    await journal.close()


async def test_errors_come_back_to_the_caller(tmp_path):
    path = tmp_path / "journal.sqlite3"
    journal = await AsyncJournal.open(path, busy_timeout=0.05)
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")
    try:
        try:
            await journal.begin_attempt(operation=Operation.SALE, terminal_id="T1", gateway="S", amount=100,
                                        request={})
        except JournalLocked as error:
            assert "locked" in str(error)
        else:
            raise AssertionError("a locked journal must refuse")
    finally:
        locker.close()
        await journal.close()


async def test_wrapping_an_open_journal_calls_inline(tmp_path):
    with Journal.open(tmp_path / "journal.sqlite3") as raw:
        journal = AsyncJournal(raw)
        attempt = await journal.begin_attempt(operation=Operation.SALE, terminal_id="T1", gateway="S", amount=100,
                                              request={})
        assert not journal.threaded and raw.get(attempt.id).id == attempt.id
