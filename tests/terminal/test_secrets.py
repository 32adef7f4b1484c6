"""Issue 16, rows 9 and 10: the key-hash is never stored or printed, even when the service
echoes it; a key-hash that cannot be sent, or a request that cannot be built, sends
nothing, leaves no ``unknown`` attempt and does not hold the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from pos_app.journal import Journal, Outcome
from pos_app.terminal.outcomes import Refusal
from tests.terminal.cli_runner import cli_env, run_cli
from tests.terminal.conftest import pay_requests


def files_holding(folder: Path, secret: str) -> list[str]:
    """Every file under ``folder`` (journal, its WAL, logs, poll budget...) whose bytes hold ``secret``."""
    return [str(p) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_row9_a_service_error_echoing_the_key_is_neither_journaled_nor_printed_nor_logged(sandbox, tmp_path):
    data = tmp_path / "data"
    env = cli_env(sandbox, "B", data)
    key = env["POS_KEY_HASH"]
    sandbox.inject("terminal.pay", 400, code=101, text=f"invalid key-hash {key}")
    refused = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1250")
    assert refused.code == 4 and refused.payload["outcome"] == "failed"
    assert refused.payload["error"] == "HTTP 400: code 101: invalid key-hash [redacted]"
    sandbox.inject("terminal.pay", 401, body={"statusCode": 401, "message": f"invalid key-hash '{key}'",
                                              "path": f"/v1/terminal/pay?key-hash={key}",
                                              "response": {"statusCode": 401, "message": f"key {key} unknown"}})
    unauthorized = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1300", "--verbose")
    assert unauthorized.payload["outcome"] in ("failed", "invalid")
    for run in (refused, unauthorized):
        assert key not in run.stdout + run.stderr and "Traceback" not in run.stderr
    assert (data / "logs" / "cli.log").exists()
    assert files_holding(data, key) == []
    with Journal.open(data / "journal.sqlite3") as journal:
        attempts = [journal.get(a.id) for a in journal.attempts()]
    assert [a.outcome for a in attempts] == [Outcome.FAILED, Outcome.FAILED]
    assert "[redacted]" in attempts[0].result["message"]


@pytest.mark.parametrize(("bad", "where"), [
    ("{key}\n", "a line break (LF) at the end"),
    ("{key} ", "a space at the end"),
    ("{key}\r", "a carriage return (CR) at the end"),
    ("sandbox-key-typé-b", "a character that is not plain ASCII (letters, digits, symbols) at position 16 of 18"),
])
def test_row10_a_key_hash_that_cannot_be_sent_is_refused_with_a_sentence_and_holds_nothing(sandbox, tmp_path, bad,
                                                                                          where):
    data = tmp_path / "data"
    env = cli_env(sandbox, "B", data)
    key = env["POS_KEY_HASH"]
    env["POS_KEY_HASH"] = bad.format(key=key)
    refused = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1250")
    assert refused.code == 1 and refused.payload == {
        "outcome": "invalid",
        "error": f"the key-hash in POS_KEY_HASH has {where}: a key-hash is letters, digits and symbols only, "
                 "with no spaces or line breaks; set it again without it"}
    assert "Traceback" not in refused.stderr and key not in refused.stdout + refused.stderr
    assert pay_requests(sandbox, "B") == 0 and sandbox.stats()["requests"]["B"] == {}
    if (data / "journal.sqlite3").exists():
        with Journal.open(data / "journal.sqlite3") as journal:
            assert journal.in_flight() == []
    env["POS_KEY_HASH"] = key  # set again without it: the terminal was never held
    sale = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1250")
    assert sale.code == 0 and sale.payload["outcome"] == "approved"
    assert pay_requests(sandbox, "B") == 1


async def test_row10_a_request_that_cannot_be_built_is_failed_not_unknown_and_frees_the_terminal(lane_factory,
                                                                                                 sandbox):
    """A header h11 refuses to write (set behind the client's back: its own checks refuse
    such a key-hash): nothing leaves, so the attempt is ``failed``, never ``unknown``."""
    async with lane_factory("B") as lane:
        terminal = lane.active[0]
        lane.client._http.headers["x-lane-note"] = "front\r\ndesk"
        unsent = await lane.service.sale(terminal, 1250, order_number="o-unsent")
        assert unsent.outcome is Outcome.FAILED and unsent.refusal is Refusal.INVALID_INPUT
        assert "nothing was sent" in unsent.message and "LocalProtocolError" in unsent.message
        assert pay_requests(sandbox, "B") == 0
        attempt = lane.journal.get(unsent.attempt_id)
        assert attempt.outcome is Outcome.FAILED and lane.journal.in_flight() == []
        assert [e.kind for e in attempt.events] == ["sent", "outcome"]
        del lane.client._http.headers["x-lane-note"]
        again = await lane.service.sale(terminal, 1250, order_number="o-unsent")
        assert again.outcome is Outcome.APPROVED and again.recovered == ()
        assert pay_requests(sandbox, "B") == 1
