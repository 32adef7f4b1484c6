"""``pos-app link create|status|list|delete|send`` as a child process against the sandbox:
one JSON object, amounts in cents whatever unit the service speaks, exit 0 done, 1
refused or invalid (nothing sent when the input is bad), 4 failed."""

from __future__ import annotations

import pytest

from pos_app.sandbox.link_store import Channel, sent_links
from tests.links import CITY_TAX_B, STATE_TAX_B, link_requests, paid
from tests.terminal.cli_runner import cli_env, run_cli


@pytest.fixture
def env(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data")


def test_create_sends_and_status_reads_cents_until_paid(sandbox, env):
    made = run_cli(env, "link", "create", "--amount", "1250", "--email", "ana@example.com")
    assert made.code == 0, made.payload
    link = made.payload
    assert set(link) == {"id", "url", "total"} and link["total"] == 1250 and link["url"]
    assert [(s.link_id, s.channel, s.to) for s in sent_links(sandbox.sandbox, "B")] == [
        (link["id"], Channel.EMAIL, "ana@example.com")]

    unpaid = run_cli(env, "link", "status", link["id"])  # the view answers 12.5 dollars
    assert unpaid.code == 0 and unpaid.payload == {"paid": False, "paid_amount": 0, "total": 1250, "payment_id": None}
    payment_id = paid(sandbox, link["id"])["payment"]["id"]
    done = run_cli(env, "link", "status", link["id"])
    assert done.code == 0 and done.payload == {"paid": True, "paid_amount": 1250, "total": 1250,
                                               "payment_id": payment_id}


def test_create_with_taxes_by_sms(sandbox, env):
    made = run_cli(env, "link", "create", "--amount", "1000", "--tax", STATE_TAX_B, "--tax", CITY_TAX_B,
                   "--phone", "(555) 123-4567")
    assert made.code == 0, made.payload
    assert made.payload["total"] == 1083
    assert [(s.channel, s.to) for s in sent_links(sandbox.sandbox, "B")] == [(Channel.SMS, "(555) 123-4567")]


def test_list_send_and_delete(sandbox, env):
    first = run_cli(env, "link", "create", "--amount", "500", "--email", "a@example.com").payload
    second = run_cli(env, "link", "create", "--amount", "700", "--email", "b@example.com").payload
    listed = run_cli(env, "link", "list")
    assert listed.code == 0 and listed.payload["count"] == 2
    assert [(link["id"], link["total"], link["paid"]) for link in listed.payload["links"]] == [
        (second["id"], 700, False), (first["id"], 500, False)]

    again = run_cli(env, "link", "send", first["id"], "--phone", "5551234567")
    assert again.code == 0 and again.payload["id"] == first["id"] and again.payload["sent_to"] == "5551234567"
    assert sent_links(sandbox.sandbox, "B")[-1].channel is Channel.SMS

    deleted = run_cli(env, "link", "delete", first["id"])
    assert deleted.code == 0 and deleted.payload["id"] == first["id"] and deleted.payload["active"] is False
    assert deleted.payload["deleted_at"]
    assert [link["id"] for link in run_cli(env, "link", "list").payload["links"]] == [second["id"]]
    twice = run_cli(env, "link", "delete", first["id"])
    assert twice.code == 1 and twice.payload["outcome"] == "refused" and "already deleted" in twice.payload["error"]


@pytest.mark.parametrize("args, why", [
    (["create", "--amount", "12.50", "--email", "a@example.com"], "whole number of cents"),
    (["create", "--amount", "0", "--email", "a@example.com"], "more than 0"),
    (["create", "--amount", "1250"], "one of the arguments --email --phone is required"),
    (["create", "--amount", "1250", "--email", "a@example.com", "--phone", "5551234567"], "not allowed with"),
    (["create", "--amount", "1250", "--phone", "555-123-4567"], "not a US number"),
    (["create", "--amount", "1250", "--email", "nobody"], "email address"),
    (["create", "--amount", "1250", "--tax", "state", "--email", "a@example.com"], "24-character"),
    (["status", "12345"], "24-character"),
    (["send", "0123456789abcdef01234567", "--phone", "555-123-4567"], "not a US number"),
    (["delete", "../customer"], "24-character"),
])
def test_bad_input_is_refused_with_a_sentence_and_nothing_sent(sandbox, env, args, why):
    run = run_cli(env, "link", *args)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and why in run.payload["error"], run.payload
    assert "Traceback" not in run.stderr
    assert link_requests(sandbox) == 0


def test_a_refusal_and_a_failure_of_the_service(sandbox, env):
    unknown = run_cli(env, "link", "status", "0123456789abcdef01234567")
    assert unknown.code == 1 and unknown.payload["outcome"] == "refused" and "not found" in unknown.payload["error"]
    sandbox.inject("link.create", 503, count=3)
    down = run_cli(env, "link", "create", "--amount", "1250", "--email", "a@example.com")
    assert down.code == 4 and down.payload["outcome"] == "failed"
    assert sent_links(sandbox.sandbox, "B") == []


def test_a_link_created_but_not_sent_is_still_named(sandbox, env):
    sandbox.inject("link.send_email", 400, text="mail service down")
    run = run_cli(env, "link", "create", "--amount", "1250", "--email", "a@example.com")
    assert run.code == 1 and run.payload["outcome"] == "refused"
    assert "created but not sent" in run.payload["error"] and "mail service down" in run.payload["error"]
    assert run.payload["total"] == 1250 and run.payload["id"]
    assert run_cli(env, "link", "status", run.payload["id"]).payload["total"] == 1250
