"""Two processes racing for one terminal (or one order): exactly one wins, every time."""

from __future__ import annotations

import multiprocessing

from pos_app.journal import CURRENT_VERSION, Journal
from tests.journal.race_worker import open_fresh, race

ROUNDS = 20
ORDER_ROUNDS = 10


def test_two_processes_racing_one_terminal_or_order(path):
    Journal.open(path).close()  # created and migrated once, before the race
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(target=race, args=(str(path), who, barrier, results, ROUNDS, ORDER_ROUNDS))
        for who in ("left", "right")
    ]
    for worker in workers:
        worker.start()
    try:
        reports = dict(results.get(timeout=60) for _ in workers)
    finally:
        for worker in workers:
            worker.join(timeout=30)
    assert all(worker.exitcode == 0 for worker in workers)

    left, right = reports["left"], reports["right"]
    assert len(left) == len(right) == ROUNDS + ORDER_ROUNDS
    winners = []
    for (index, a_kind, a_id), (_, b_kind, b_id) in zip(left, right, strict=True):
        kinds = sorted([a_kind, b_kind])
        loser = "TerminalBusy" if index < ROUNDS else "OrderHasUnknownAttempt"
        assert kinds == sorted(["won", loser]), (index, kinds)
        won_id, blocked_by = (a_id, b_id) if a_kind == "won" else (b_id, a_id)
        assert blocked_by == won_id  # the loser is told which attempt holds the terminal/order
        winners.append(won_id)

    with Journal.open(path) as journal:
        stored = journal.attempts()
        assert sorted(a.id for a in stored) == sorted(winners)
        assert len({a.terminal_id for a in stored[:ROUNDS]}) == ROUNDS


def test_processes_creating_the_same_new_journal_at_once(path):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(3)
    results = context.Queue()
    workers = [
        context.Process(target=open_fresh, args=(str(path), who, barrier, results)) for who in ("a", "b", "c")
    ]
    for worker in workers:
        worker.start()
    try:
        reports = dict(results.get(timeout=60) for _ in workers)
    finally:
        for worker in workers:
            worker.join(timeout=30)
    assert all(value.startswith("a-") for value in reports.values()), reports
    with Journal.open(path) as journal:
        assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        assert sorted(a.id for a in journal.in_flight()) == sorted(reports.values())
