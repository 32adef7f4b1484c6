"""``pos-app subscription create|list|get|pause|resume|cancel`` as a child process against
the sandbox: one JSON object, amounts in cents, exit 0 done, 1 refused or invalid
(nothing sent when the input is bad; a refused transition with the service's reason)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
import pytest

from pos_app.sandbox.subscriptions import PAUSE_PAUSED, RESUME_NOT_PAUSED
from tests.terminal.cli_runner import cli_env, run_cli

EXP = f"12{date.today().year + 1 - 2000:02d}"


def tomorrow() -> date:
    """The service's default start: the next day (UTC), read when a test needs it."""
    return datetime.now(UTC).date() + timedelta(days=1)

def subscription_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("subscri"))


@pytest.fixture
def env(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data")


@pytest.fixture
def customer_id(sandbox) -> str:
    """A vault with a default card, made as the back office would."""
    answer = httpx.post(f"{sandbox.base_url}/public/customer", headers={"key-hash": sandbox.keys["B"]},
                        json={"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
                              "cards": [{"number": "424242******4242", "exp": EXP}]})
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["id"]


def test_create_every_n_days_then_get_and_list(env, customer_id):
    made = run_cli(env, "subscription", "create", "--customer", customer_id, "--amount", "1250",
                   "--every-days", "14", "--payments", "2")
    assert made.code == 0, made.payload
    subscription = made.payload["subscription"]
    assert {k: subscription[k] for k in ("status", "customer", "amount", "every_days", "payments", "plan")} == {
        "status": "running", "customer": customer_id, "amount": 1250, "every_days": 14, "payments": 2, "plan": None}
    assert [(e["date"][:10], e["amount"], e["status"]) for e in subscription["schedule"]] == [
        (tomorrow().isoformat(), 1250, "pending"), ((tomorrow() + timedelta(days=14)).isoformat(), 1250, "pending")]

    got = run_cli(env, "subscription", "get", subscription["id"])
    assert got.code == 0 and got.payload == made.payload
    listed = run_cli(env, "subscription", "list")
    assert listed.code == 0 and listed.payload["count"] == 1
    assert listed.payload["subscriptions"][0]["id"] == subscription["id"] and "schedule" not in listed.payload[
        "subscriptions"][0]


def test_create_every_n_months_on_a_day_from_a_start_date(env, customer_id):
    start = date(tomorrow().year + 1, 1, 20)
    made = run_cli(env, "subscription", "create", "--customer", customer_id, "--amount", "4000",
                   "--every-months", "1", "--day", "5", "--start", start.isoformat())
    assert made.code == 0, made.payload
    subscription = made.payload["subscription"]
    assert (subscription["every_months"], subscription["day"], subscription["payments"]) == (1, 5, 0)
    assert subscription["next_payment"][:10] == f"{start.year}-02-05"  # the first 5th on or after the start


def test_pause_resume_cancel_and_refused_transitions(env, customer_id):
    made = run_cli(env, "subscription", "create", "--customer", customer_id, "--amount", "1250", "--every-days", "7")
    subscription_id = made.payload["subscription"]["id"]
    paused = run_cli(env, "subscription", "pause", subscription_id)
    assert paused.code == 0 and paused.payload["subscription"]["status"] == "paused"
    again = run_cli(env, "subscription", "pause", subscription_id)
    assert again.code == 1 and again.payload == {"outcome": "refused",
                                                 "error": f"the service refused it: {PAUSE_PAUSED}"}
    resumed = run_cli(env, "subscription", "resume", subscription_id)
    assert resumed.code == 0 and resumed.payload["subscription"]["status"] == "running"
    not_paused = run_cli(env, "subscription", "resume", subscription_id)
    assert not_paused.code == 1 and RESUME_NOT_PAUSED in not_paused.payload["error"]
    cancelled = run_cli(env, "subscription", "cancel", subscription_id)
    assert cancelled.code == 0 and cancelled.payload["subscription"]["status"] == "inactive"

    assert run_cli(env, "subscription", "list").payload == {"subscriptions": [], "count": 0}
    inactive = run_cli(env, "subscription", "list", "--status", "inactive,paused")
    assert [s["id"] for s in inactive.payload["subscriptions"]] == [subscription_id]


@pytest.mark.parametrize("args, why", [
    (["--amount", "1250", "--every-days", "7", "--every-months", "1", "--day", "1"], "not allowed with"),
    (["--amount", "1250", "--every-days", "7", "--day", "1"], "not both"),
    (["--amount", "1250"], "give a frequency"),
    (["--amount", "1250", "--every-months", "1"], "day of the month"),
    (["--amount", "1250", "--every-days", "7", "--payments", "53"], "0 to 52"),
    (["--amount", "12.50", "--every-days", "7"], "whole number of cents"),
    (["--amount", "1250", "--every-days", "7", "--start", "2020-01-01"], "future date"),
    (["--amount", "1250", "--every-days", "7", "--start", "next week"], "YYYY-MM-DD"),
])
def test_bad_input_is_refused_with_a_sentence_and_nothing_sent(sandbox, env, customer_id, args, why):
    run = run_cli(env, "subscription", "create", "--customer", customer_id, *args)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and why in run.payload["error"], run.payload
    assert subscription_requests(sandbox) == 0


def test_a_bad_customer_id_or_status_sends_nothing(sandbox, env):
    run = run_cli(env, "subscription", "create", "--customer", "abc", "--amount", "1250", "--every-days", "7")
    assert run.code == 1 and "24-character hexadecimal" in run.payload["error"]
    run = run_cli(env, "subscription", "list", "--status", "sleeping")
    assert run.code == 1 and "--status takes running" in run.payload["error"]
    assert subscription_requests(sandbox) == 0


def test_a_server_error_is_exit_4_failed(sandbox, env):
    sandbox.inject("subscription.get", 503, count=5)
    run = run_cli(env, "subscription", "get", "0123456789abcdef01234567")
    assert run.code == 4 and run.payload["outcome"] == "failed"


def subscribed(sandbox, customer_id: str, amount: int) -> tuple[str, str]:
    """A weekly subscription of ``amount`` cents made over HTTP: (its id, its first entry's)."""
    answer = httpx.post(f"{sandbox.base_url}/public/subscription", headers={"key-hash": sandbox.keys["B"]},
                        json={"customerVaultId": customer_id,
                              "customSchedule": {"amount": amount, "payments": 2, "dayFrequency": 7}})
    assert answer.status_code == 201, answer.text
    data = answer.json()["data"]
    return data["id"], data["schedule"][0]["id"]


def retry_charges(sandbox) -> int:
    return len(sandbox.sandbox.books["B"].subscriptions.charges)


def test_retry_charges_an_entry_once_with_the_exit_codes_of_a_sale(sandbox, env, customer_id):
    subscription_id, entry_id = subscribed(sandbox, customer_id, 1250)
    approved = run_cli(env, "subscription", "retry", entry_id)
    assert approved.code == 0, approved.payload
    assert {k: approved.payload[k] for k in ("outcome", "operation", "amount", "order_key", "terminal_id")} == {
        "outcome": "approved", "operation": "subscription_retry", "amount": 1250, "order_key": f"schedule:{entry_id}",
        "terminal_id": f"subscription:{subscription_id}"}
    _, declined_entry = subscribed(sandbox, customer_id, 99)
    declined = run_cli(env, "subscription", "retry", declined_entry)
    assert declined.code == 2 and declined.payload["gateway_text"] == "DECLINED"
    assert retry_charges(sandbox) == 2


def test_a_lost_retry_is_unknown_until_resume_reads_its_entry_and_is_never_sent_twice(sandbox, env, customer_id):
    subscription_id, entry_id = subscribed(sandbox, customer_id, 9906)  # charged, then the answer is dropped
    lost = run_cli(env, "subscription", "retry", entry_id, "--subscription", subscription_id)
    assert lost.code == 3 and lost.payload["outcome"] == "unknown", lost.payload
    resumed = run_cli(env, "terminal", "resume", "--wait", "0")
    assert resumed.code == 0, resumed.payload
    assert [(a["attempt_id"], a["outcome"]) for a in resumed.payload["attempts"]] == [
        (lost.payload["attempt_id"], "approved")]
    again = run_cli(env, "subscription", "retry", entry_id, "--subscription", subscription_id)
    assert again.code == 4 and again.payload["refusal"] == "order_paid", again.payload
    assert retry_charges(sandbox) == 1
