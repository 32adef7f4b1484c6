"""No money-moving request is ever retried; reads are, on resets, 5xx and 429."""

from __future__ import annotations

import logging
import re

import pytest

from pos_app.api import errors as e
from pos_app.api.client import PaymentsClient, RetryPolicy
from pos_app.api.requests import PayRequest, RefundRequest
from tests.ports import refused_port


def count(sandbox, merchant, route):
    return sandbox.stats()["requests"].get(merchant, {}).get(route, 0)


async def terminal_id(client):
    return next(t.id for t in (await client.list_terminals()).data if t.is_active is not False)


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_pay_is_not_retried_after_a_connection_reset(clients, sandbox, merchant):
    client = clients[merchant]
    tid = await terminal_id(client)
    sandbox.set_faults(reset_next=3)
    with pytest.raises(e.ConnectionFailed) as failed:
        await client.pay(PayRequest(terminalId=tid, amount=1000), attempt_id="a-reset")
    assert failed.value.request_sent is True
    assert count(sandbox, merchant, "terminal.pay") == 1


@pytest.mark.parametrize("route,call", [
    ("terminal.pay", lambda c, t: c.pay(PayRequest(terminalId=t, amount=1000), attempt_id="a-5xx")),
    ("terminal.refund", lambda c, t: c.refund(RefundRequest(terminalId=t, pnRefNum="x", amount=5), attempt_id="a-5xx")),
])
async def test_money_requests_are_not_retried_after_5xx(clients, sandbox, route, call):
    client = clients["B"]
    tid = await terminal_id(client)
    sandbox.set_faults(error_5xx_next=3)
    with pytest.raises(e.ServerError):
        await call(client, tid)
    assert count(sandbox, "B", route) == 1


async def test_dropped_answer_after_charge_is_not_retried(clients, sandbox):
    client = clients["B"]
    tid = await terminal_id(client)
    sandbox.set_faults(drop_next=1)
    with pytest.raises(e.ConnectionFailed):
        await client.pay(PayRequest(terminalId=tid, amount=1000), attempt_id="a-drop")
    assert count(sandbox, "B", "terminal.pay") == 1
    assert len([p for p in sandbox.stats()["payments"] if p["merchant"] == "B"]) == 1


async def test_gets_are_retried_on_5xx_and_resets(clients, sandbox):
    client = clients["B"]
    sandbox.set_faults(error_5xx_next=2)
    assert (await client.taxes())
    assert count(sandbox, "B", "tax.list") == 3


async def test_gets_honour_retry_after_on_429(clients, sandbox):
    import httpx

    injection = {"route": "tax.list", "status": 429, "count": 1}
    httpx.post(f"{sandbox.base_url}/_sandbox/inject", json=injection).raise_for_status()
    assert await clients["B"].taxes()
    assert count(sandbox, "B", "tax.list") == 2


async def test_polls_are_left_to_the_scheduler(clients, sandbox):
    sandbox.set_faults(error_5xx_next=1)
    with pytest.raises(e.ServerError):
        await clients["S"].poll_message("m-unknown")
    assert count(sandbox, "S", "terminal.poll_message") == 1


async def test_connection_refused_means_not_sent():
    with refused_port() as port:
        async with PaymentsClient(f"http://127.0.0.1:{port}", "k", retry=RetryPolicy(attempts=1)) as client:
            with pytest.raises(e.ConnectionFailed) as failed:
                await client.pay(PayRequest(terminalId="t", amount=100), attempt_id="a-x")
    assert failed.value.request_sent is False


def test_plain_http_is_only_for_loopback():
    with pytest.raises(e.InvalidInput):
        PaymentsClient("http://payments.example.com", "k")
    with pytest.raises(e.InvalidInput):
        PaymentsClient("https://payments.example.com", "")
    assert PaymentsClient("https://payments.example.com", "k").base_url == "https://payments.example.com"


def test_repr_never_shows_the_key():
    client = PaymentsClient("http://127.0.0.1:1", "super-secret-key")
    assert "super-secret-key" not in repr(client)


def client_log(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "pos_app.api.client"]


async def test_get_retries_are_logged_with_route_try_delay_and_status(clients, sandbox, caplog):
    caplog.set_level(logging.INFO, logger="pos_app.api.client")
    sandbox.set_faults(error_5xx_next=2)
    assert await clients["B"].taxes()
    logged = client_log(caplog)
    assert len(logged) == 2
    for number, line in enumerate(logged, start=1):
        assert re.fullmatch(rf"retrying tax\.list: try {number} of 3 answered status 503; next in \d+\.\d\ds", line)
    assert not any(sandbox.keys["B"] in line or "key-hash" in line for line in logged)


async def test_refusing_to_retry_a_payment_is_logged(clients, sandbox, caplog):
    caplog.set_level(logging.INFO, logger="pos_app.api.client")
    client = clients["B"]
    tid = await terminal_id(client)
    caplog.clear()
    sandbox.set_faults(reset_next=1)
    with pytest.raises(e.ConnectionFailed):
        await client.pay(PayRequest(terminalId=tid, amount=1000), attempt_id="a-log")
    sandbox.set_faults(error_5xx_next=1)
    with pytest.raises(e.ServerError):
        await client.pay(PayRequest(terminalId=tid, amount=1000), attempt_id="a-log2")
    logged = client_log(caplog)
    first, second = logged
    assert re.fullmatch(r"not retrying terminal\.pay after \w+: it may move money; the caller looks the outcome up",
                        first)
    assert second == "not retrying terminal.pay after status 503: it may move money"
    assert not any(sandbox.keys["B"] in line or "user-agent" in line for line in logged)


async def test_transport_retries_of_a_get_name_the_exception(caplog):
    caplog.set_level(logging.INFO, logger="pos_app.api.client")
    policy = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02)
    with refused_port() as port:
        async with PaymentsClient(f"http://127.0.0.1:{port}", "secret-k", retry=policy) as client:
            with pytest.raises(e.ConnectionFailed):
                await client.taxes()
    retried, gave_up = client_log(caplog)
    assert re.fullmatch(r"retrying tax\.list: try 1 of 2 failed with ConnectError; next in \d+\.\d\ds", retried)
    assert gave_up == "giving up on tax.list after 2 tries (last: ConnectError)"
    assert "secret-k" not in caplog.text
