"""Shift end at scale: reconciling 10,000 journal attempts with the transaction list, and the
end-of-shift report PDF of a 2,000-sale shift.

Run with ``.venv/bin/python -m tests.bench.bench_shift [--attempts N] [--sales N]``;
``main()`` prints and returns the figures.

Targets (issue): the reconciliation of 10,000 journal attempts ≤ 2 s plus the service's
paging time; the report PDF of a 2,000-sale shift ≤ 1 s.

What is measured, honestly:
- The sandbox runs in its own process. 10,000 real type B sales are made on it over
  loopback (the pay route, each with a user-agent naming its attempt as the app's do);
  the journal gets the same 10,000 attempts, approved with the ids the service answered,
  written by bulk insert into a real journal file (the app's schema). ``check_shift``
  (the journal read, every page of the list, reconcile, the report lines) is timed
  against a same-run ``read_window`` of the same list: the service's paging time; and
  again with that list already read (``own_work_s``: the station's own work, the figure
  the 2 s target is about). A plain pass over the entries (an attempt-id dict lookup
  each) is the same-run baseline of that work.
- The PDF: a ``ShiftReport`` of 2,000 approved sales (4 cashiers, the 4 card brands)
  rendered and laid out (``shift_document`` + ``render_tables``), against a bare fpdf2
  document writing the same number of text lines in the same font.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest.mock import AsyncMock, patch

import httpx

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity, attempt_in
from pos_app.journal import Journal, Operation, Outcome
from pos_app.journal.codec import time_text
from pos_app.journal.threaded import AsyncJournal
from pos_app.receipts.render import _Pdf
from pos_app.receipts.tables import TABLE_FONT_PT, TABLE_MARGIN_MM, render_tables
from pos_app.sandbox.config import SandboxConfig
from pos_app.station.figures import Category, MoneyLine
from pos_app.station.shift import ShiftCheck, ShiftClose, ShiftReport, check_shift, close_of
from pos_app.station.shift_document import shift_document
from pos_app.terminal.lookup import CLOCK_SLACK, read_window
from pos_app.terminal.outcomes import OperationResult
from tests.bench.sandbox_process import sandbox_process

ATTEMPTS = 10_000
SALES = 2_000
TERMINAL = "tb-2001"
STATION = Identity("bench", "lane-1", "bench")
CASHIERS = ("Ann Lee", "Bo Chen", "Cy Diaz", "Di Evans")
BRANDS = ("Visa", "Mastercard", "American Express", "Discover")
CONCURRENCY = 32
KEY_B = SandboxConfig().key_b


def amounts(count: int, seed: int = 11) -> list[int]:
    """Approved amounts in cents, avoiding the sandbox's test amounts (below 100, 9901-9908)."""
    rng = random.Random(seed)
    found: list[int] = []
    while len(found) < count:
        amount = rng.randint(100, 50_000)
        if not 9900 <= amount <= 9909:
            found.append(amount)
    return found


async def make_sales(base_url: str, count: int) -> list[tuple[str, int, dict]]:
    """``count`` real sales on the sandbox: (attempt id, amount, answer)."""
    made: list[tuple[str, int, dict]] = []
    queue = list(enumerate(amounts(count)))
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        async def worker() -> None:
            while queue:
                index, amount = queue.pop()
                attempt_id = f"a-bench{index:014d}"
                answer = await client.post("/public/terminal/pay", json={
                    "terminalId": TERMINAL, "amount": amount, "receipt": False},
                    headers={"key-hash": KEY_B, "user-agent": STATION.user_agent(attempt_id)})
                answer.raise_for_status()
                made.append((attempt_id, amount, answer.json()))

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return sorted(made)


def build_journal(path: Path, sales: list[tuple[str, int, dict]], begun: datetime) -> None:
    """The sales as approved journal attempts (the app's schema, bulk-inserted)."""
    Journal.open(path).close()
    attempts, events = [], []
    for index, (attempt_id, amount, answer) in enumerate(sales):
        at = time_text(begun + timedelta(milliseconds=index))
        request = json.dumps({"terminalId": TERMINAL, "amount": amount, "receipt": False})
        attempts.append((attempt_id, "sale", TERMINAL, "B", amount, None, None, at, request, None,
                         CASHIERS[index % len(CASHIERS)]))
        result = {"payment_id": answer["paymentId"], "transaction_id": answer["transactionId"], "amount": amount}
        events.append((attempt_id, "sent", at, None, "{}"))
        events.append((attempt_id, "outcome", at, "approved", json.dumps({"outcome": "approved", "result": result})))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO attempts (id, operation, terminal_id, gateway, amount, order_key, ref, "
                         "created_at, request, owner, cashier) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", attempts)
        conn.executemany("INSERT INTO events (attempt_id, kind, at, outcome, data) VALUES (?, ?, ?, ?, ?)", events)
        conn.execute("COMMIT")
    finally:
        conn.close()


async def bench_reconcile(base_url: str, folder: Path, count: int, runs: int = 3) -> dict:
    begun = datetime.now(UTC) - timedelta(seconds=1)
    started = time.perf_counter()
    sales = await make_sales(base_url, count)
    making_s = time.perf_counter() - started
    build_journal(folder / "journal.sqlite3", sales, begun)
    journal = AsyncJournal(Journal.open(folder / "journal.sqlite3"))
    client = PaymentsClient(base_url, KEY_B, identity=STATION)
    checks, pagings, passes, owns = [], [], [], []
    check: ShiftCheck | None = None
    try:
        for _ in range(runs):
            started = time.perf_counter()
            window = await read_window(client, begun - CLOCK_SLACK)
            pagings.append(time.perf_counter() - started)
            started = time.perf_counter()
            named = {attempt_in(entry.user_agent): entry for entry in window.entries}
            found = sum(1 for attempt_id, _, _ in sales if attempt_id in named)
            passes.append(time.perf_counter() - started)
            started = time.perf_counter()
            check = await check_shift(client, journal, TERMINAL, STATION, now=datetime.now(UTC), start=(begun, False))
            checks.append(time.perf_counter() - started)
            with patch("pos_app.station.shift.read_window", AsyncMock(return_value=window)):
                started = time.perf_counter()
                await check_shift(client, journal, TERMINAL, STATION, now=datetime.now(UTC), start=(begun, False))
                owns.append(time.perf_counter() - started)
    finally:
        await client.aclose()
        await journal.close()
    assert check is not None and found == count
    paging, total, plain = statistics.median(pagings), statistics.median(checks), statistics.median(passes)
    own = statistics.median(owns)
    return {
        "attempts": count, "entries_listed": len(window.entries), "list_complete": check.list_complete,
        "lines": len(check.lines), "differences": len(check.differences), "making_sales_s": round(making_s, 1),
        "check_shift_s": round(total, 3), "paging_s": round(paging, 3),
        "check_minus_paging_s": round(total - paging, 3), "own_work_s": round(own, 3),
        "plain_pass_s": round(plain, 4), "own_work_vs_plain_pass_ratio": round(own / plain, 1) if plain else None,
        "target_own_work_le_2s": own <= 2.0,
    }


def sample_report(count: int) -> ShiftReport:
    now = datetime.now(UTC)
    lines = tuple(MoneyLine(f"a-report{index:014d}", Operation.SALE, Outcome.APPROVED, Category.SALE,
                            now - timedelta(seconds=count - index), CASHIERS[index % 4], BRANDS[index % 4],
                            f"{index % 10_000:04d}", amount, amount * 3 // 100, amount * 8 // 100, listed=True)
                  for index, amount in enumerate(amounts(count)))
    check = ShiftCheck(TERMINAL, now - timedelta(hours=8), True, now, lines, (), (), True)
    close = close_of(OperationResult(Outcome.APPROVED, Operation.CLOSE_BATCH, TERMINAL, "a-close",
                                     gateway_text="Batch closed"))
    assert isinstance(close, ShiftClose)
    return ShiftReport("Harbor Books", "s1", "lane-1", "USD", False, check, close, "Mia Manager", now)


def bare_pdf(lines: int) -> bytes:
    """The baseline: the same number of monospace text lines, one cell each, in a bare FPDF."""
    doc = _Pdf("Letter", None)
    pdf = doc.pdf
    pdf.set_margins(TABLE_MARGIN_MM, TABLE_MARGIN_MM, TABLE_MARGIN_MM)
    pdf.set_auto_page_break(True, TABLE_MARGIN_MM)
    pdf.add_page()
    pdf.set_font(doc.family, "", TABLE_FONT_PT)
    for index in range(lines):
        pdf.cell(0, 3.5, f"{index:08d}  a-report{index:014d}  Ann Lee  Visa 4242  $123.45  $3.70  $127.15",
                 new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def bench_pdf(count: int, runs: int = 5) -> dict:
    report = sample_report(count)
    render_tables(shift_document(report))  # fpdf2 and the font loaded once, as in a running app
    reports, bares, size, pages = [], [], 0, 0
    for _ in range(runs):
        started = time.perf_counter()
        pdf = render_tables(shift_document(report))
        reports.append(time.perf_counter() - started)
        started = time.perf_counter()
        bare_pdf(count + 60)  # the report's other lines: headings, totals, per cashier and brand
        bares.append(time.perf_counter() - started)
        size, pages = len(pdf), pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    report_s, bare_s = statistics.median(reports), statistics.median(bares)
    return {"sales": count, "pages": pages, "bytes": size, "report_pdf_s": round(report_s, 3),
            "bare_fpdf2_s": round(bare_s, 3), "report_vs_bare_ratio": round(report_s / bare_s, 2),
            "target_le_1s": report_s <= 1.0}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=ATTEMPTS)
    parser.add_argument("--sales", type=int, default=SALES)
    args = parser.parse_args(argv)
    results = {"report_pdf": bench_pdf(args.sales)}
    with sandbox_process() as base_url, tempfile.TemporaryDirectory(prefix="bench-shift-") as tmp:
        results["reconcile"] = asyncio.run(bench_reconcile(base_url, Path(tmp), args.attempts))
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
