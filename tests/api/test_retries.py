"""No money-moving request is ever retried; reads are, on resets, 5xx and 429."""

from __future__ import annotations

import socket

import pytest

from pos_app.api import errors as e
from pos_app.api.client import PaymentsClient, RetryPolicy
from pos_app.api.models import PayRequest, RefundRequest



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

    httpx.post(f"{sandbox.base_url}/_sandbox/inject", json={"route": "tax.list", "status": 429, "count": 1}).raise_for_status()
    assert await clients["B"].taxes()
    assert count(sandbox, "B", "tax.list") == 2


async def test_polls_are_left_to_the_scheduler(clients, sandbox):
    sandbox.set_faults(error_5xx_next=1)
    with pytest.raises(e.ServerError):
        await clients["S"].poll_message("m-unknown")
    assert count(sandbox, "S", "terminal.poll_message") == 1


async def test_connection_refused_means_not_sent():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
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
