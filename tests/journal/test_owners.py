"""Owners and claims: who holds an attempt, whether that process lives, and handing it over.

Liveness is checked against real processes: a child holding the journal open is alive,
the same child after SIGKILL is dead. Claims race between real processes too.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pos_app.journal import InvalidResolution, InvalidTransition, Journal, JournalTooNew, Outcome
from pos_app.journal.owners import is_alive, lock_path
from tests.journal.helpers import raw, sale
from tests.journal.owner_worker import race

ROOT = Path(__file__).resolve().parents[2]
RACE_ROUNDS = 10


class Holder:
    """A child process (``owner_worker``) holding the journal open with ``count`` attempts."""

    def __init__(self, path: Path, count: int = 0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.journal.owner_worker", str(path), str(count)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.owner, *self.attempt_ids = self.process.stdout.readline().split() or ["(no output)"]

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.end()

    def end(self) -> None:
        """Close its stdin: the child closes its journal and exits (unless already killed)."""
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self.process.stdout.close()


@pytest.fixture
def holders():
    started: list[Holder] = []

    def start(path: Path, count: int = 0) -> Holder:
        started.append(Holder(path, count))
        assert re.fullmatch(r"o-[A-Za-z0-9_-]{16}", started[-1].owner), started[-1].owner
        return started[-1]

    yield start
    for holder in started:
        if not holder.process.stdin.closed:
            holder.kill()


def claimed_events(journal: Journal, attempt_id: str) -> list[dict]:
    return [e.data for e in journal.get(attempt_id).events if e.kind == "claimed"]


# -- the owner lock ----------------------------------------------------------------------


def test_each_open_journal_is_an_owner_with_a_lock_file_removed_on_close(path):
    one, two = Journal.open(path), Journal.open(path)
    assert re.fullmatch(r"o-[A-Za-z0-9_-]{16}", one.owner) and one.owner != two.owner
    assert lock_path(path, one.owner) == path.parent / "journal.db.owners" / f"{one.owner}.lock"
    assert lock_path(path, one.owner).is_file()
    assert is_alive(path, one.owner) and is_alive(path, two.owner)  # even inside one process
    one.close()
    assert not lock_path(path, one.owner).exists()
    assert not is_alive(path, one.owner) and is_alive(path, two.owner)
    two.close()
    assert os.listdir(path.parent / "journal.db.owners") == []


def test_owner_in_another_process_is_alive_until_killed(path, holders):
    child = holders(path)
    assert is_alive(path, child.owner)
    assert is_alive(path, child.owner)  # a check takes nothing away from a live owner
    child.kill()
    assert lock_path(path, child.owner).is_file()  # SIGKILL: nobody removed it...
    assert not is_alive(path, child.owner)  # ...but nobody holds its lock any more
    assert not lock_path(path, child.owner).exists()  # the check deleted the stale file
    assert not is_alive(path, child.owner)


def test_owner_that_closes_cleanly_removes_its_lock_file(path, holders):
    child = holders(path)
    assert lock_path(path, child.owner).is_file()
    child.end()
    assert child.process.returncode == 0
    assert not lock_path(path, child.owner).exists()
    assert not is_alive(path, child.owner)


def test_unknown_or_malformed_owners_are_not_alive(path, journal):
    assert not is_alive(path, "o-" + "x" * 16)  # no lock file
    for bogus in ("../journal.db", "o-short", "", journal.owner + "/"):
        assert not is_alive(path, bogus)
    assert is_alive(path, journal.owner)


def test_a_refused_journal_gets_no_owner(path):
    with Journal.open(path):
        pass
    conn = raw(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(JournalTooNew):
        Journal.open(path)
    assert os.listdir(path.parent / "journal.db.owners") == []


# -- claiming ----------------------------------------------------------------------------


def test_attempt_of_a_live_process_is_left_to_it_until_the_process_dies(path, holders):
    child = holders(path, count=1)
    [held] = child.attempt_ids
    with Journal.open(path) as journal:
        mine = sale(journal, "T-mine", "o-mine")
        assert [a.id for a in journal.in_flight()] == [held, mine.id]
        assert journal.get(held).owner == child.owner and mine.owner == journal.owner
        assert [a.id for a in journal.resumable()] == [mine.id]
        assert journal.claim(held) is None
        assert claimed_events(journal, held) == []

        child.kill()
        assert [a.id for a in journal.resumable()] == [held, mine.id]
        taken = journal.claim(held)
        assert taken is not None and taken.owner == journal.owner and not taken.sent
        assert claimed_events(journal, held) == [{"owner": journal.owner, "from": child.owner}]
        assert journal.claim(held) == journal.get(held)  # already ours: no second event
        assert len(claimed_events(journal, held)) == 1
        assert journal.claim(mine.id).owner == journal.owner and claimed_events(journal, mine.id) == []
        assert journal.finish(held, Outcome.FAILED).outcome is Outcome.FAILED
        assert journal.claim(held) is None  # final: nothing left to hand over


def test_exactly_one_of_two_racing_processes_claims_a_dead_process_attempt(path, holders):
    child = holders(path, count=RACE_ROUNDS)
    child.kill()
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    racers = [
        context.Process(target=race, args=(str(path), who, child.attempt_ids, barrier, results))
        for who in ("left", "right")
    ]
    for racer in racers:
        racer.start()
    try:
        reports = {who: (owner, won) for who, owner, won in (results.get(timeout=60) for _ in racers)}
    finally:
        for racer in racers:
            racer.join(timeout=30)
    assert all(racer.exitcode == 0 for racer in racers)
    (left_owner, left_won), (right_owner, right_won) = reports["left"], reports["right"]
    assert isinstance(left_won, list) and isinstance(right_won, list), reports
    assert [a + b for a, b in zip(left_won, right_won, strict=True)] == [1] * RACE_ROUNDS

    with Journal.open(path) as journal:
        for attempt_id, left_first in zip(child.attempt_ids, left_won, strict=True):
            winner = left_owner if left_first else right_owner
            assert journal.get(attempt_id).owner == winner
            assert claimed_events(journal, attempt_id) == [{"owner": winner, "from": child.owner}]
        # Both racers have closed their journals since: every attempt is free again.
        assert [a.id for a in journal.resumable()] == child.attempt_ids


def test_claim_between_two_journals_of_one_process(path):
    one, two = Journal.open(path), Journal.open(path)
    try:
        first = sale(one, "T1", "o-1")
        unknown = sale(one, "T2", "o-2")
        one.finish(unknown.id, Outcome.UNKNOWN)
        assert two.claim(first.id) is None and two.claim(unknown.id) is None
        assert two.resumable() == []
        one_owner = one.owner
        one.close()
        assert [a.id for a in two.resumable()] == [first.id, unknown.id]
        assert two.claim(unknown.id).outcome is Outcome.UNKNOWN  # unknown still needs resolution
        assert claimed_events(two, unknown.id) == [{"owner": two.owner, "from": one_owner}]
        with Journal.open(path) as three:  # now two holds them, and two is alive
            assert three.claim(unknown.id) is None
            assert [a.id for a in three.resumable()] == [first.id]
    finally:
        one.close()
        two.close()


def test_only_the_holder_may_send_so_a_claimed_attempt_is_never_sent_by_its_old_holder(path):
    with Journal.open(path) as one, Journal.open(path) as two:
        attempt = sale(one, "T1", "o-1")
        lock_path(path, one.owner).unlink()  # the lock file lost while `one` still runs
        assert two.claim(attempt.id) is not None  # a missing lock file means a dead owner
        with pytest.raises(InvalidTransition, match=f"held by {two.owner}"):
            one.mark_sent(attempt.id)
        two.finish(attempt.id, Outcome.FAILED, {"message": "the request never left"})
        assert not two.get(attempt.id).sent


def test_anyone_may_finish_or_resolve_regardless_of_the_holder(path):
    with Journal.open(path) as one, Journal.open(path) as two:
        live = sale(one, "T1", "o-1")
        assert two.resolve_by_manager(live.id, paid=False, reason="slip shows no charge", by="Ann").is_final
        dead = sale(one, "T2", "o-2")
        one.mark_sent(dead.id)
    with Journal.open(path) as three:  # one is dead now; three finishes without claiming
        done = three.finish(dead.id, Outcome.APPROVED, {"transactionId": "t-2"})
        assert done.outcome is Outcome.APPROVED and done.owner == one.owner
        events = len(done.events)
        assert len(three.finish(dead.id, Outcome.APPROVED).events) == events  # same outcome: no-op
        with pytest.raises(InvalidResolution):
            three.finish(dead.id, Outcome.DECLINED)
