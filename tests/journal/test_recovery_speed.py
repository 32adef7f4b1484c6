"""Recovery stays fast on a big journal: it reads the open-attempts index, never the history."""

from __future__ import annotations

import re
import statistics
import time

import pytest

from pos_app.journal import Journal, queries

from tests.bench.bench_journal import build_big_journal
from tests.journal.helpers import raw

HOT_QUERIES = {
    "in_flight rows": queries.IN_FLIGHT_ROWS_SQL,
    "in_flight events": queries.IN_FLIGHT_EVENTS_SQL,
    "busy terminal": queries.BUSY_SQL,
    "order unresolved": queries.ORDER_OPEN_SQL,
    "order paid": queries.ORDER_PAID_SQL,
    "attempt state": queries.STATE_SQL,
}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "journal.db"
    build_big_journal(path, attempts=100_000, open_count=300)
    return path


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
