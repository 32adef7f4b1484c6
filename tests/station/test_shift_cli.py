"""``pos-app shift report|close|z`` as a child process against the sandbox, on the journal
the app writes: the X report's JSON, a Z refused (exit 1, nothing closed or written) when
the count is too far off without a reason, then written with one (its PDF, its audit
rows), a reprint of it, and no Z while a payment on the terminal is unknown (exit 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pos_app.journal import CashKind, Journal
from pos_app.staff import Staff
from tests.receipts.conftest import pdf_text
from tests.terminal.cli_runner import cli_env, run_cli

TERMINAL = "tb-2001"


def close_requests(sandbox) -> int:
    return sandbox.stats()["requests"].get("B", {}).get("terminal.close_batch", 0)


def cash_movements(data: Path) -> None:
    """As the app journals them: a cash sale with change, cash in and out, a return, a no sale."""
    with Journal.open(data / "journal.sqlite3") as journal:
        journal.record_order("o-cash", subtotal=1553, tax=0, taxes={})
        journal.record_cash_sale("o-cash", 2000, station_id="lane-1", cashier="Ann")
        journal.record_cash(CashKind.CASH_IN, 500, reason="coins")
        journal.record_cash(CashKind.CASH_OUT, 300, reason="to the safe")
        journal.record_cash(CashKind.RETURN, 553, reason="returned", order_key="o-cash")
        journal.record_cash(CashKind.NO_SALE, 0, reason="change for a note")


@pytest.fixture
def shift_env(sandbox, tmp_path):
    data = tmp_path / "data"
    return data, cli_env(sandbox, "B", data, POS_TERMINAL_ID=TERMINAL, POS_OPENING_FLOAT="10000",
                         POS_CASH_DIFFERENCE_LIMIT="500", POS_CASHIER="Dana")


def test_x_then_a_refused_z_then_a_z_with_a_reason_and_its_reprint(sandbox, shift_env):
    data, env = shift_env
    card = run_cli(env, "terminal", "sale", "--terminal", TERMINAL, "--amount", "1250")
    assert card.code == 0, card.payload
    cash_movements(data)

    x = run_cli(env, "shift", "report", "--json")
    assert x.code == 0, x.payload
    assert {key: x.payload[key] for key in ("opening_float", "cash_taken", "change_given", "cash_in", "cash_out",
                                            "cash_refunds", "expected_cash", "card_taken", "z_next")} == {
        "opening_float": 10000, "cash_taken": 2000, "change_given": 447, "cash_in": 500, "cash_out": 300,
        "cash_refunds": 553, "expected_cash": 11200, "card_taken": 1250, "z_next": 1}

    refused = run_cli(env, "shift", "close", "--counted", "10000", "--by", "Mo")
    assert refused.code == 1 and refused.payload["outcome"] == "invalid"
    assert "$12.00 short" in refused.payload["error"] and "--reason" in refused.payload["error"]
    assert (refused.payload["expected_cash"], refused.payload["over_short"]) == (11200, -1200)
    assert close_requests(sandbox) == 0 and not (data / "reports").exists()
    assert run_cli(env, "shift", "z").payload["z_reports"] == []

    z = run_cli(env, "shift", "close", "--counted", "10000", "--by", "Mo", "--left", "7500",
                "--reason", "a twenty paid out for milk, slip in the drawer")
    assert z.code == 0, z.payload
    got = z.payload
    assert (got["outcome"], got["z_number"], got["z_label"]) == ("approved", 1, "Z-0001")
    assert (got["expected_cash"], got["counted_cash"], got["over_short"], got["left_in_drawer"]) == (
        11200, 10000, -1200, 7500)
    assert got["batch"]["state"] == "closed" and got["batch"]["outcome"] == "approved"
    assert got["card"]["taken"] == 1250 and close_requests(sandbox) == 1
    report = Path(got["report"])
    assert report == data / "reports" / "Z-0001.pdf" and Path(got["shift_report"]).exists()
    text = pdf_text(report)
    for said in ("Expected cash: $112.00", "Counted cash: $100.00", "Over/short: -$12.00 (short)",
                 "Reason: a twenty paid out for milk", "BATCH CLOSED"):
        assert said in text, said
    with Staff.open(data / "staff.sqlite3") as staff:
        audit = {entry.action: entry for entry in staff.audit()}
    assert audit["z_report"].actor == "Mo" and audit["z_report"].reason.startswith("a twenty paid out")
    assert "Z-0001" in audit["z_report"].detail and "os:" in audit["z_report"].detail
    assert audit["close_batch"].actor == "Mo"

    x = run_cli(env, "shift", "report")
    assert (x.payload["opening_float"], x.payload["expected_cash"], x.payload["z_next"], x.payload["float_from"]) == (
        7500, 7500, 2, "Z-0001")

    reprint = run_cli(env, "shift", "z", "--number", "1")
    assert reprint.code == 0 and reprint.payload["report"] == str(data / "reports" / "Z-0001-reprint.pdf")
    assert "Over/short: -$12.00 (short)" in pdf_text(Path(reprint.payload["report"]))
    [listed] = run_cli(env, "shift", "z").payload["z_reports"]
    assert (listed["z_label"], listed["counted_cash"], listed["reason"]) == (
        "Z-0001", 10000, "a twenty paid out for milk, slip in the drawer")
    missing = run_cli(env, "shift", "z", "--number", "2")
    assert missing.code == 1 and "no Z report number 2" in missing.payload["error"]


def test_no_z_while_a_payment_on_the_terminal_is_unknown(sandbox, shift_env):
    data, env = shift_env
    unknown = run_cli(env, "terminal", "sale", "--terminal", TERMINAL, "--amount", "9908")
    assert unknown.code == 3, unknown.payload

    close = run_cli(env, "shift", "close", "--counted", "10000", "--by", "Mo")

    assert close.code == 4 and close.payload["outcome"] == "failed"
    assert close.payload["batch"]["refusal"] == "terminal_has_unknown"
    assert close.payload["batch"]["blocked_by"] == unknown.payload["attempt_id"]
    assert close.payload["z_number"] is None and "No Z was written" in close.payload["error"]
    assert close_requests(sandbox) == 0 and run_cli(env, "shift", "z").payload["z_reports"] == []
    assert not (data / "reports" / "Z-0001.pdf").exists()


@pytest.mark.parametrize("args,said", [
    (["--counted", "12.50", "--by", "Mo"], "whole number of cents"),
    (["--counted", "-5", "--by", "Mo"], "whole number of cents"),
    (["--counted", "1000"], "--by"),
    (["--counted", "1000", "--by", "Mo", "--left", "2000"], "cannot be left in the drawer"),
])
def test_a_close_with_bad_input_is_refused_with_a_sentence(sandbox, shift_env, args, said):
    data, env = shift_env
    refused = run_cli(env, "shift", "close", *args)
    assert refused.code == 1 and refused.payload["outcome"] == "invalid" and said in refused.payload["error"]
    assert close_requests(sandbox) == 0


def test_a_close_needs_a_terminal(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path / "data")
    refused = run_cli(env, "shift", "close", "--counted", "0", "--by", "Mo")
    assert refused.code == 1 and "--terminal" in refused.payload["error"]
    x = run_cli(env, "shift", "report", "--json")  # the X report without a terminal: the cash only
    assert x.code == 0 and x.payload["card"] is None and x.payload["expected_cash"] == 0
