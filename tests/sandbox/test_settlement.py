"""Settlement beyond close batch: the admin route, SandboxServer.settle and the daily run
of the ``settle_hour`` knob."""

from __future__ import annotations

import time
from datetime import datetime

from pos_app.sandbox.settlement import latest_run
from tests.sandbox.helpers import (
    B_TERMINAL,
    B_TERMINAL_2,
    S_TERMINAL_2,
    body,
    call,
    pay,
    pay_b_approved,
    pay_s_completed,
)


def settled(client, payment: dict) -> bool:
    return body(call(client, "payment.get", id=payment["id"]))["data"]["settled"]


def test_admin_settle_settles_every_captured_payment_of_both_merchants(admin, s_client, b_client):
    b_sale = pay_b_approved(b_client, 1000)
    s_sale = pay_s_completed(s_client, 1100)
    other_lane = {"id": body(pay(b_client, B_TERMINAL_2, 1200))["paymentId"]}
    auth = pay_b_approved(b_client, 1300, route="terminal.auth")
    pay(b_client, B_TERMINAL, 50)  # declined: nothing to settle
    assert body(admin.post("/settle")) == {"settled": 3}
    assert settled(b_client, b_sale) and settled(s_client, s_sale) and settled(b_client, other_lane)
    assert not settled(b_client, auth)
    assert body(admin.post("/settle")) == {"settled": 0}
    refund = {"terminalId": B_TERMINAL, "pnRefNum": b_sale["transactionId"], "amount": 100}
    assert call(b_client, "terminal.refund", json=refund).status_code == 201  # settled: refundable


def test_server_settle_returns_the_count(sandbox, s_client, b_client):
    sale = pay_s_completed(s_client, 1500)
    pay_b_approved(b_client, 1600, route="terminal.auth")
    assert sandbox.settle() == 1
    assert settled(s_client, sale)
    assert sandbox.settle() == 0
    void = call(s_client, "terminal.void", json={"terminalId": S_TERMINAL_2, "pnRefNum": sale["transactionId"]})
    assert body(void)["response"]["text"] == "payment already settled"


def test_settle_hour_settles_what_was_made_before_the_latest_run(b_client, sandbox):
    hour = datetime.now().hour  # the latest run is at most an hour ago
    sandbox.set_faults(settle_hour=hour, clock_offset_s=-7200)
    old_sale = pay_b_approved(b_client, 1000)  # recorded two hours back: before today's run
    old_auth = pay_b_approved(b_client, 1100, route="terminal.auth")
    assert not settled(b_client, old_sale)  # by the service's clock the run has not come yet
    sandbox.set_faults(clock_offset_s=0)
    new_sale = pay_b_approved(b_client, 1200)
    assert settled(b_client, old_sale)
    assert not settled(b_client, old_auth) and not settled(b_client, new_sale)
    entry = next(e for e in body(call(b_client, "transactions.list"))["data"] if e["paymentId"] == old_sale["id"])
    assert entry["settled"] is True and entry["voidable"] is False
    sandbox.set_faults(settle_hour=-1)
    assert sandbox.settle() == 1  # only new_sale was left


def test_latest_run_is_the_last_local_hour_at_or_before_now():
    now = time.time()
    for hour in range(24):
        run = latest_run(hour, now)
        assert now - 86400 < run <= now
        assert datetime.fromtimestamp(run).hour == hour
        assert datetime.fromtimestamp(run).minute == 0
