"""``pos-app terminal close-batch`` unattended (a child process, as cron or a timer runs it):
the close's JSON as before plus ``report``, the end-of-shift report PDF under
``<data dir>/reports/`` listing the shift's approved sales and the totals; a close that
fails still writes the report, and says so."""

from __future__ import annotations

from pathlib import Path

from tests.receipts.conftest import pdf_text
from tests.terminal.cli_runner import cli_env, run_cli


def test_unattended_close_writes_the_report_of_the_shift(sandbox, tmp_path):
    data = tmp_path / "data-b"
    env = cli_env(sandbox, "B", data, POS_CASHIER="Dana")
    sales = [run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", cents) for cents in ("1250", "2000")]
    declined = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "99")
    assert [s.code for s in sales] == [0, 0] and declined.code == 2

    close = run_cli(env, "terminal", "close-batch", "--terminal", "tb-2001")

    assert close.code == 0, close.payload
    assert close.payload["outcome"] == "approved" and close.payload["operation"] == "close_batch"
    report = Path(close.payload["report"])
    assert report.parent == data / "reports" and report.name.startswith("shift-tb-2001-") and report.suffix == ".pdf"
    text = pdf_text(report)
    assert "BATCH CLOSED" in text and "No differences." in text
    for sale in sales:
        assert sale.payload["attempt_id"] in text
    approved = [line for line in text.splitlines() if any(s.payload["attempt_id"] in line for s in sales)]
    assert "$12.50" in approved[0] and "$20.00" in approved[1] and "Dana" in approved[0]
    [sales_row] = [line for line in text.splitlines() if line.startswith("Sales approved")]
    assert sales_row.split()[2:4] == ["2", "$32.50"]
    [declined_row] = [line for line in text.splitlines() if line.startswith("Declined")]
    assert declined_row.split()[1:3] == ["1", "$0.99"]
    [net_row] = [line for line in text.splitlines() if line.startswith("Net (gross - voids - refunds)")]
    assert net_row.split()[6:8] == ["2", "$32.50"]
    assert "2 of 2 sales and captures were paid without a cart" in text  # the command line has no cart: no tax


def test_a_failed_unattended_close_still_writes_the_report_saying_so(sandbox, tmp_path):
    env = cli_env(sandbox, "S", tmp_path / "data-s")
    sale = run_cli(env, "terminal", "sale", "--terminal", "ts-1001", "--amount", "1500")
    assert sale.code == 0, sale.payload
    sandbox.set_faults(close_batch_decline_next=1)

    close = run_cli(env, "terminal", "close-batch", "--terminal", "ts-1001")

    assert close.code == 2 and close.payload["outcome"] == "declined" and close.payload["error"]
    text = pdf_text(Path(close.payload["report"]))
    assert "BATCH NOT CLOSED (the close failed)" in text and sale.payload["attempt_id"] in text
