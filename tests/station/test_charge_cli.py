"""``pos-app customer charge``, ``pos-app ach …`` and ``pos-app bulk-charge`` as child processes
against the sandbox: one JSON object, the exit codes of ``terminal sale``, the same order
never charged twice, a lost answer found again by ``terminal resume``, bad input refused
with nothing sent."""

from __future__ import annotations

from datetime import date

import httpx
import pytest

from tests.terminal.cli_runner import cli_env, run_cli

EXP = f"12{date.today().year + 1 - 2000:02d}"


def money_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items()
               if route.startswith(("card.", "ach.charge", "ach.refund", "ach.void")))


def customer(sandbox, *numbers: str) -> dict:
    cards = [{"number": number, "exp": EXP} for number in numbers]
    answer = httpx.post(f"{sandbox.base_url}/public/customer", headers={"key-hash": sandbox.keys["B"]},
                        json={"firstName": "Ada", "lastName": "Byron", "email": "ada@example.com", "cards": cards})
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]


@pytest.fixture
def env(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data")


def test_a_card_on_file_charge_is_approved_once_per_order(sandbox, env):
    ada = customer(sandbox, "424242******4242", "555555******4444")
    run = run_cli(env, "customer", "charge", ada["id"], "--amount", "1250", "--order-number", "o-100")
    assert run.code == 0, run.payload
    assert run.payload["outcome"] == "approved" and run.payload["amount"] == 1250
    assert run.payload["card_last4"] == "4242" and run.payload["payment_id"]
    payment = sandbox.stats()["payments"][0]
    assert payment["userAgent"].endswith(f"attempt {run.payload['attempt_id']})")
    again = run_cli(env, "customer", "charge", ada["id"], "--amount", "1250", "--order-number", "o-100")
    assert again.code == 4 and again.payload["refusal"] == "order_paid"
    assert len(sandbox.stats()["payments"]) == 1
    other = ada["paymentMethods"][1]["customerVaultId"]
    picked = run_cli(env, "customer", "charge", ada["id"], "--amount", "500", "--method", other)
    assert picked.code == 0 and picked.payload["card_last4"] == "4444"


def test_a_decline_exits_2(sandbox, env):
    ada = customer(sandbox, "424242******4242")
    run = run_cli(env, "customer", "charge", ada["id"], "--amount", "99")
    assert run.code == 2 and run.payload["outcome"] == "declined" and run.payload["gateway_text"] == "DECLINED"
    unknown = run_cli(env, "customer", "charge", "0123456789abcdef01234567", "--amount", "1000")
    assert unknown.code == 2 and unknown.payload["gateway_text"] == "customer not found"


def test_a_lost_answer_holds_the_order_until_resume_finds_the_charge(sandbox, env):
    ada = customer(sandbox, "424242******4242")
    sandbox.set_faults(drop_next=1)
    lost = run_cli(env, "customer", "charge", ada["id"], "--amount", "1500", "--order-number", "o-7")
    assert lost.code in (0, 3), lost.payload  # found at once by its attempt id, or left unknown
    sent = money_requests(sandbox)
    again = run_cli(env, "customer", "charge", ada["id"], "--amount", "1500", "--order-number", "o-7")
    assert again.code == 4 and again.payload["refusal"] in ("order_paid", "earlier_attempt_approved")
    assert money_requests(sandbox) == sent and len(sandbox.stats()["payments"]) == 1
    resumed = run_cli(env, "terminal", "resume", "--wait", "0")
    assert resumed.code == 0, resumed.payload


def test_a_5xx_after_the_charge_is_unknown_then_resolved_by_resume(sandbox, env):
    ada = customer(sandbox, "424242******4242")
    sandbox.set_faults(error_5xx_after_next=1, list_lag_s=30)  # the list does not show it yet
    run = run_cli(env, "customer", "charge", ada["id"], "--amount", "1500", "--order-number", "o-8")
    assert run.code == 3 and run.payload["outcome"] == "unknown"
    held = run_cli(env, "customer", "charge", ada["id"], "--amount", "1500", "--order-number", "o-8")
    assert held.code in (3, 4) and len(sandbox.stats()["payments"]) == 1
    sandbox.set_faults(list_lag_s=0)
    resumed = run_cli(env, "terminal", "resume", "--wait", "0")
    assert resumed.code == 0, resumed.payload
    assert [a["outcome"] for a in resumed.payload["attempts"]] == ["approved"]


@pytest.mark.parametrize("args, why", [
    (["not-an-id", "--amount", "100"], "24-character"),
    (["0123456789abcdef01234567", "--amount", "12.50"], "whole number of cents"),
    (["0123456789abcdef01234567", "--amount", "0"], "more than 0"),
    (["0123456789abcdef01234567"], "--amount"),
])
def test_bad_input_is_refused_and_nothing_sent(sandbox, env, args, why):
    run = run_cli(env, "customer", "charge", *args)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and why in run.payload["error"]
    assert money_requests(sandbox) == 0


def test_ach_charge_list_void(sandbox, env):
    made = run_cli(env, "ach", "charge", "--routing", "021000021", "--account", "123456789",
                   "--account-type", "personalChecking", "--amount", "2500", "--order-number", "o-ach")
    assert made.code == 0, made.payload
    listed = run_cli(env, "ach", "list")
    assert listed.code == 0 and [p["id"] for p in listed.payload["payments"]] == [made.payload["payment_id"]]
    assert listed.payload["payments"][0]["last4"] == "6789"
    voided = run_cli(env, "ach", "void", made.payload["payment_id"])
    assert voided.code == 0 and voided.payload["operation"] == "ach_void", voided.payload
    sent = money_requests(sandbox)
    refund = run_cli(env, "ach", "refund", made.payload["payment_id"], "--amount", "100", "--reason", "x")
    # the void gave the whole charge back: the journal refuses a refund of it before sending
    assert refund.code == 4 and refund.payload["refusal"] == "given_back_already", refund.payload
    assert money_requests(sandbox) == sent
    missing = run_cli(env, "ach", "charge", "--amount", "100")
    assert missing.code == 1 and "--customer" in missing.payload["error"]


def test_bulk_charge_checks_the_whole_file_then_charges_each_row_once(sandbox, env, tmp_path):
    one, two = customer(sandbox, "424242******4242"), customer(sandbox, "555555******4444")
    bad = tmp_path / "bad.csv"
    bad.write_text(f"customer,cents\n{one['id']},1000\n{two['id']},12.50\nnope,100\n{one['id']},5\n")
    refused = run_cli(env, "bulk-charge", str(bad))
    assert refused.code == 1 and money_requests(sandbox) == 0
    for said in ("line 3", "line 4", f"customer {one['id']} is charged 2 times"):
        assert said in refused.payload["error"], said
    good = tmp_path / "good.csv"
    good.write_text(f"{one['id']},1000\n{two['id']},99\n")
    run = run_cli(env, "bulk-charge", str(good))
    assert run.code == 2, run.payload  # one declined (the sandbox declines under 100)
    assert [(r["line"], r["outcome"]) for r in run.payload["rows"]] == [(1, "approved"), (2, "declined")]
    again = run_cli(env, "bulk-charge", str(good))  # the same file: the approved row is never charged twice
    assert [r.get("refusal") for r in again.payload["rows"]] == ["order_paid", None]
    assert len(sandbox.stats()["payments"]) == 3
