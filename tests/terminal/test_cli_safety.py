"""The command line under a careless hand: Ctrl-C, an unwritable data dir, a wrong key,
two processes on one key, and the day report (regression rows 11 and 12 of issue 6)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from datetime import date, timedelta

import pytest

from pos_app.api.identity import Identity
from pos_app.api.models import MessageStatus
from pos_app.journal import Journal, Outcome
from pos_app.station.report import day_report
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.slots import SharedPollBudget
from tests.terminal.cli_runner import cli_command, cli_env, run_cli
from tests.terminal.conftest import pay_requests
from tests.waiting import wait_until


def test_row12_ctrl_c_mid_poll_prints_one_json_and_leaves_the_attempt_resumable(sandbox, tmp_path):
    sandbox.set_faults(s_delay_min=4, s_delay_max=4)
    env = cli_env(sandbox, "S", tmp_path / "data")
    process = subprocess.Popen(cli_command("terminal", "sale", "--terminal", "ts-1001", "--amount", "2750"),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal_path = tmp_path / "data" / "journal.sqlite3"

    def polling() -> bool:
        if not journal_path.exists():
            return False
        with Journal.open(journal_path) as journal:
            return any(a.msg_identifier for a in journal.in_flight())

    try:
        wait_until(polling, timeout=15, what="the sale polling its message")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 3, (out, err)
    assert "Traceback" not in err
    [line] = [line for line in out.splitlines() if line.strip()]
    payload = json.loads(line)
    assert payload["outcome"] == "unknown" and payload["attempt_id"] and "resume" in payload["error"]
    with Journal.open(journal_path) as journal:
        [pending] = journal.in_flight()
        assert pending.id == payload["attempt_id"] and pending.outcome is Outcome.UNKNOWN
    resumed = run_cli(env, "terminal", "resume", "--wait", "10")
    assert resumed.code == 0 and resumed.payload["attempts"][0]["outcome"] == "approved"
    assert pay_requests(sandbox, "S") == 1


def test_row12_an_unwritable_data_dir_is_one_json_error_and_nothing_is_sent(sandbox, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data dir should be")
    env = cli_env(sandbox, "B", blocker / "data")
    run = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1000")
    assert run.code == 1 and run.payload["outcome"] == "invalid" and "nothing was sent" in run.payload["error"]
    assert "Traceback" not in run.stderr
    assert pay_requests(sandbox, "B") == 0


def test_a_wrong_key_is_a_configuration_error(sandbox, tmp_path):
    env = {**cli_env(sandbox, "B", tmp_path / "data"), "POS_KEY_HASH": "not-the-key"}
    sale = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1000")
    assert sale.code == 1 and sale.payload["outcome"] == "invalid" and sale.payload["refusal"] == "bad_credentials"
    assert "key" in sale.payload["error"]
    listing = run_cli(env, "terminal", "list")
    assert listing.code == 1 and listing.payload["outcome"] == "invalid"
    assert "not-the-key" not in sale.stdout + listing.stdout


def test_version():
    done = subprocess.run(cli_command("--version"), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == "pos-app 0.1.0"


def test_the_log_receives_the_services_decisions(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path / "data")
    run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "9906")  # the answer is dropped
    log = (tmp_path / "data" / "logs" / "cli.log").read_text()  # the terminal commands' own file
    assert "not retrying terminal.pay" in log  # the client's decision
    assert "answered ConnectionFailed: unknown" in log  # the service layer's classification
    assert env["POS_KEY_HASH"] not in log


async def test_row11_two_processes_on_one_key_share_one_poll_budget(tmp_path):
    sent: list[float] = []

    async def poll(message_id: str) -> MessageStatus:
        sent.append(time.monotonic())
        return MessageStatus.model_validate({"msgIdentifier": message_id, "status": "processing"})

    budget_dir = tmp_path / "poll-budget"
    # two schedulers, each with its own queue, as in two processes; one key, so one budget
    lanes = [PollScheduler(poll, per_minute=600, shared=SharedPollBudget(budget_dir, "key-1")) for _ in range(2)]
    await asyncio.gather(*(lane.poll(f"m-{i}") for lane in lanes for i in range(8)))
    times = sorted(sent)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    interval = lanes[0].interval
    # one budget: 16 slots one interval apart (two separate budgets would take half as long),
    # never two polls at once (a late wake-up may shorten one gap, never to nothing)
    assert len(sent) == 16 and times[-1] - times[0] >= 15 * interval * 0.95, gaps
    assert min(gaps) >= interval * 0.5, gaps
    other_key = PollScheduler(poll, per_minute=600, shared=SharedPollBudget(budget_dir, "key-2"))
    assert other_key._shared.path != lanes[0]._shared.path  # another key has its own budget
    assert "key-1" not in lanes[0]._shared.path.name  # the file never names the key


async def test_row11_a_429_pushes_every_process_back(tmp_path):
    budget = SharedPollBudget(tmp_path / "b", "key-1")
    await budget.push(time.time() + 1.0)
    wait = await SharedPollBudget(tmp_path / "b", "key-1").reserve(0.5)
    assert 0.8 <= wait <= 1.0


async def test_report_is_one_day_only_and_a_partial_capture_is_not_a_problem(lane_factory):
    async with lane_factory("B") as lane:
        auth = await lane.service.preauth(lane.active[0], 5000)
        captured = await lane.service.capture(lane.active[0], auth.transaction_id, 3000)
        assert captured.outcome is Outcome.APPROVED
        station = Identity(station="lane-1")
        today = await day_report(lane.client, lane.service.journal, date.today(), station)
        assert today["reconciliation"]["clean"], today["reconciliation"]
        assert today["reconciliation"]["matched"] == 2 and today["needs_action"] == []
        yesterday = await day_report(lane.client, lane.service.journal, date.today() - timedelta(days=1), station)
        assert yesterday["summary"] == [] and yesterday["reconciliation"]["service_only"] == []
        assert yesterday["reconciliation"]["matched"] == 0


@pytest.mark.parametrize("wait,limit", [(None, 10.0), ("0", 3.0)])
def test_resume_waits_briefly_by_default(sandbox, tmp_path, wait, limit):
    sandbox.set_faults(list_lag_s=600)  # the lost sale cannot be found: resume must give up, quickly
    env = cli_env(sandbox, "S", tmp_path / "data")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "store.toml").write_text("poll_wait_limit = 1.0\n")
    lost = run_cli(env, "terminal", "sale", "--terminal", "ts-1001", "--amount", "9903")  # timeout forever
    assert lost.code == 3
    started = time.monotonic()
    resumed = run_cli(env, "terminal", "resume", *(["--wait", wait] if wait else []))
    assert resumed.code == 3 and time.monotonic() - started < limit
    lines = resumed.stderr.splitlines()
    assert lines[0].endswith("checking (0.0 s)") and len(lines) == len(set(lines))  # one line per change
    if wait is None:  # it polled the message for a few seconds: its status was shown
        assert any(": timeout (" in line for line in lines)
