"""Recovery stays fast on a big journal: it reads the open-attempts index, never the history.

Every open attempt of the big journal is held by a distinct dead owner (a third of which
left a stale lock file), so ``resumable()`` makes its worst case of one probe per attempt.
"""

from __future__ import annotations

import json
import re
import statistics
import time

import pytest

from pos_app.journal import Journal, queries
from pos_app.journal.owners import lock_path
from tests.bench.bench_journal import build_big_journal
from tests.journal.helpers import raw

HOT_QUERIES = {
    "in_flight rows": queries.IN_FLIGHT_ROWS_SQL,
    "in_flight events": queries.IN_FLIGHT_EVENTS_SQL,
    "busy terminal": queries.BUSY_SQL,
    "terminal held by an unknown sale": queries.TERMINAL_HOLD_SQL,
    "reference with a pending follow-up": queries.REF_OPEN_SQL,
    "order unresolved": queries.ORDER_OPEN_SQL,
    "order paid": queries.ORDER_PAID_SQL,
    "charge voided": queries.VOID_OF_SQL,
    "charge of another attempt": queries.CHARGED_BY_SQL,
    "order attempts rows": queries.ORDER_ROWS_SQL,
    "order attempts events": queries.ORDER_EVENTS_SQL,
    "attempt state": queries.STATE_SQL,
}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "journal.db"
    build_big_journal(path, attempts=100_000, open_count=300)
    hand_to_dead_owners(path)
    return path


def hand_to_dead_owners(path):
    conn = raw(path)
    try:
        ids = [row[0] for row in conn.execute("SELECT attempt_id FROM open_attempts")]
        owners = {attempt_id: f"o-dead{index:012d}" for index, attempt_id in enumerate(ids)}
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO events (attempt_id, kind, at, data) "
            "VALUES (?, 'claimed', '2026-03-07T12:00:00.000000+00:00', ?)",
            [(attempt_id, json.dumps({"owner": owner, "from": None})) for attempt_id, owner in owners.items()],
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    for owner in list(owners.values())[::3]:
        lock_path(path, owner).parent.mkdir(exist_ok=True)
        lock_path(path, owner).touch()  # what a killed owner leaves: a file nobody locks


@pytest.mark.slow
def test_open_and_in_flight_at_100k_attempts_within_200ms(big):
    samples, found = [], []
    for _ in range(3):
        started = time.perf_counter()
        with Journal.open(big) as journal:
            found = journal.in_flight()
        samples.append(time.perf_counter() - started)
    assert len(found) == 300
    assert statistics.median(samples) <= 0.200, samples


@pytest.mark.slow
def test_open_and_resumable_with_300_dead_holders_within_200ms(big):
    samples, found = [], []
    for _ in range(3):
        started = time.perf_counter()
        with Journal.open(big) as journal:
            found = journal.resumable()
        samples.append(time.perf_counter() - started)
    assert len(found) == 300 and len({a.owner for a in found}) == 300
    assert not list(lock_path(big, "o-x").parent.glob("o-dead*"))  # stale files were deleted
    assert statistics.median(samples) <= 0.200, samples


def test_attempt_state_reads_outcomes_and_claims_through_their_own_indexes(big):
    conn = raw(big)
    try:
        plan = " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + queries.STATE_SQL, ("x",)))
    finally:
        conn.close()
    assert "USING INDEX outcome_events" in plan and "USING INDEX claimed_events" in plan, plan


@pytest.mark.parametrize("name", list(HOT_QUERIES))
def test_hot_queries_never_scan_the_history_tables(big, name):
    sql = HOT_QUERIES[name]
    conn = raw(big)
    try:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, ("x",) * sql.count("?"))]
    finally:
        conn.close()
    full_scans = [step for step in plan if re.match(r"SCAN (a|e|attempts|events)\b", step)]
    assert not full_scans, plan
