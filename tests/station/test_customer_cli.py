"""``pos-app customer list|add`` as a child process against the sandbox: one JSON object,
exit 0 done, 1 refused or invalid (nothing sent when the input is bad)."""

from __future__ import annotations

import httpx
import pytest

from pos_app.sandbox.seeded_customers import SEEDED_CUSTOMERS
from tests.terminal.cli_runner import cli_env, run_cli


def customer_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("customer."))


@pytest.fixture
def env(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data")


def test_add_then_list_with_and_without_keyword(sandbox, env):
    seeded = run_cli(env, "customer", "list").payload  # every merchant starts with a few customers
    assert seeded["count"] == len(SEEDED_CUSTOMERS) == len(seeded["customers"])
    added = run_cli(env, "customer", "add", "--first-name", "Ada", "--last-name", "Lovelace",
                    "--email", "ada@example.com", "--phone", "(555) 123-4567")
    assert added.code == 0, added.payload
    ada = added.payload["customer"]
    assert ada == {"id": ada["id"], "name": "Ada Lovelace", "email": "ada@example.com", "phone": "(555) 123-4567",
                   "default_card": None}
    assert run_cli(env, "customer", "add", "--first-name", "Alan", "--last-name", "Turing",
                   "--email", "alan@example.com").code == 0

    # a card on Ada's vault, added as the tokenization form would
    headers = {"key-hash": sandbox.keys["B"]}
    card = httpx.post(f"{sandbox.base_url}/public/customer/{ada['id']}/card", headers=headers,
                      json={"number": "424242******4242", "paymentToken": "tok-cli"})
    assert card.status_code == 201, card.text
    method_id = card.json()["data"]["customerVaultId"]

    everyone = run_cli(env, "customer", "list")
    assert everyone.code == 0 and everyone.payload["count"] == len(SEEDED_CUSTOMERS) + 2
    found = run_cli(env, "customer", "list", "--keyword", "lovelace")
    assert found.code == 0 and found.payload == {"count": 1, "customers": [
        {**ada, "default_card": {"id": method_id, "brand": "Visa", "last4": "4242"}}]}


@pytest.mark.parametrize("args, why", [
    (["--first-name", "Ada", "--last-name", "L", "--email", "ada@example.com", "--phone", "555-123-4567"], "phone"),
    (["--first-name", "Ada", "--last-name", "L", "--email", "not-mail"], "email"),
    (["--first-name", " ", "--last-name", "L", "--email", "ada@example.com"], "firstName"),
    (["--first-name", "Ada", "--email", "ada@example.com"], "--last-name"),
])
def test_bad_input_is_refused_with_a_sentence_and_nothing_sent(sandbox, env, args, why):
    run = run_cli(env, "customer", "add", *args)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and why in run.payload["error"]
    assert customer_requests(sandbox) == 0


def test_a_refusal_of_the_service_is_exit_1_with_its_reason(sandbox, env):
    sandbox.inject("customer.create", 400, text="Customer email already exists")
    run = run_cli(env, "customer", "add", "--first-name", "Ada", "--last-name", "L", "--email", "ada@example.com")
    assert run.code == 1 and run.payload["outcome"] == "refused"
    assert "Customer email already exists" in run.payload["error"]


def test_no_service_is_exit_4_failed(env):
    env = {**env, "POS_BASE_URL": "http://127.0.0.1:9"}
    run = run_cli(env, "customer", "list")
    assert run.code == 4 and run.payload["outcome"] == "failed"
