"""A process killed (SIGKILL) mid-poll or mid-request: ``resume`` finishes it, one pay request."""

from __future__ import annotations

import signal
import subprocess

import pytest

from pos_app.journal import Journal
from tests.terminal.cli_runner import cli_command, cli_env, run_cli
from tests.terminal.conftest import pay_requests
from tests.waiting import wait_until


@pytest.fixture
def sandbox_config():
    from pos_app.sandbox.server import SandboxConfig

    return SandboxConfig(s_delay=(2.5, 3.0), seed=3)


def first_active(env):
    listing = run_cli(env, "terminal", "list").payload["terminals"]
    return next(t["id"] for t in listing if t.get("isActive", True))


def journal_in_flight(path):
    if not path.exists():
        return []
    with Journal.open(path) as journal:
        return journal.in_flight()


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL


def test_killed_mid_poll_is_resumed_from_its_message(sandbox, tmp_path):
    env = cli_env(sandbox, "S", tmp_path / "data")
    terminal = first_active(env)
    process = subprocess.Popen(cli_command("terminal", "sale", "--terminal", terminal, "--amount", "4321"),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    journal_path = tmp_path / "data" / "journal.sqlite3"
    try:
        wait_until(lambda: any(a.msg_identifier for a in journal_in_flight(journal_path)),
                   what="message id journaled", timeout=15)
    finally:
        kill(process)
    [pending] = journal_in_flight(journal_path)
    assert pending.outcome is None and pending.msg_identifier
    resumed = run_cli(env, "terminal", "resume")
    assert resumed.code == 0, resumed.payload
    [attempt] = resumed.payload["attempts"]
    assert attempt["outcome"] == "approved" and attempt["attempt_id"] == pending.id
    assert pay_requests(sandbox, "S") == 1


def kill_type_b_sale_mid_request(sandbox, env, terminal: str, amount: int) -> None:
    """Start a type B sale, SIGKILL it while the service holds its answer back, wait for the charge."""
    sandbox.set_faults(latency_ms=3000)
    process = subprocess.Popen(cli_command("terminal", "sale", "--terminal", terminal, "--amount", str(amount)),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: pay_requests(sandbox, "B") == 1, what="pay request reached the service", timeout=15)
    finally:
        kill(process)
    sandbox.set_faults(latency_ms=0)
    wait_until(lambda: any(p["merchant"] == "B" for p in sandbox.stats()["payments"]), what="the charge", timeout=15)


def test_killed_mid_request_is_found_by_its_attempt_id(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path / "data")
    kill_type_b_sale_mid_request(sandbox, env, first_active(env), 5432)
    [pending] = journal_in_flight(tmp_path / "data" / "journal.sqlite3")
    assert pending.sent and pending.outcome is None
    resumed = run_cli(env, "terminal", "resume")
    assert resumed.code == 0, resumed.payload
    assert resumed.payload["attempts"][0]["outcome"] == "approved"
    assert pay_requests(sandbox, "B") == 1


def test_resume_leaves_a_sale_in_progress_in_another_process_alone(sandbox, tmp_path):
    env = cli_env(sandbox, "S", tmp_path / "data")
    terminal = first_active(env)
    process = subprocess.Popen(cli_command("terminal", "sale", "--terminal", terminal, "--amount", "2345"),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal_path = tmp_path / "data" / "journal.sqlite3"
    try:
        wait_until(lambda: any(a.msg_identifier for a in journal_in_flight(journal_path)),
                   what="message id journaled", timeout=15)
        resumed = run_cli(env, "terminal", "resume", "--wait", "0")
        assert resumed.code == 3
        [left] = resumed.payload["attempts"]
        assert left["outcome"] == "unknown" and "another process" in left["error"]
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            kill(process)
    assert process.returncode == 0 and '"outcome": "approved"' in out
    with Journal.open(journal_path) as journal:
        [attempt] = journal.attempts()
        assert attempt.outcome.value == "approved"
        assert "claimed" not in [e.kind for e in journal.get(attempt.id).events]
    assert pay_requests(sandbox, "S") == 1


def test_the_next_command_after_a_kill_recovers_the_terminal_first(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path / "data")
    terminal = first_active(env)
    kill_type_b_sale_mid_request(sandbox, env, terminal, 6100)
    [orphan] = journal_in_flight(tmp_path / "data" / "journal.sqlite3")
    sale = run_cli(env, "terminal", "sale", "--terminal", terminal, "--amount", "700")
    [recovered] = sale.payload["recovered"]
    assert recovered["attempt_id"] == orphan.id and recovered["outcome"] == "approved"
    # the killed sale went through: this one is not sent on its own (it may be its retry)
    assert sale.code == 4 and sale.payload["refusal"] == "earlier_attempt_approved", sale.payload
    assert pay_requests(sandbox, "B") == 1  # the killed sale was found, not resent
    sale = run_cli(env, "terminal", "sale", "--terminal", terminal, "--amount", "700")  # really another one
    assert sale.code == 0 and sale.payload["outcome"] == "approved" and "recovered" not in sale.payload
    assert pay_requests(sandbox, "B") == 2
