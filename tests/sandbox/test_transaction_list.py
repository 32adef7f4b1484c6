"""GET /public/transactions: one entry per gateway transaction, paging over them, and the
knobs that change what the list shows (lag, order, boolean fields, foreign user-agent,
clock offset)."""

from __future__ import annotations

import re
import time
from datetime import datetime

import pytest

from pos_app.sandbox.faults import FOREIGN_USER_AGENT
from tests.sandbox.helpers import (
    B_TERMINAL,
    B_TERMINAL_2,
    S_TERMINAL,
    S_TERMINAL_2,
    USER_AGENT,
    body,
    call,
    pay,
    pay_b_approved,
    pay_s_completed,
    poll_until,
)
from tests.waiting import wait_until

OBJECT_ID = re.compile(r"[0-9a-f]{24}")


def listing(client, **params: str) -> dict:
    response = call(client, "transactions.list", params=params or None)
    assert response.status_code == 200, response.text
    return body(response)


def entries(client) -> list[dict]:
    return listing(client, limit="100")["data"]


def follow_up(client, route: str, terminal: str, payment: dict, amount: int | None = None) -> dict:
    payload = {"terminalId": terminal, "pnRefNum": payment["transactionId"]}
    if amount is not None:
        payload["amount"] = amount
    response = call(client, route, json=payload)
    assert response.status_code == 201, response.text
    return body(response)


def send_as(client, agent: str) -> None:
    """Send the client's next requests with user-agent ``agent``."""
    client.headers["user-agent"] = agent


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


@pytest.fixture(params=["S", "B"])
def merchant(request, s_client, b_client):
    """(client, first terminal, second terminal, make_payment) for each merchant."""
    client = s_client if request.param == "S" else b_client
    maker = pay_s_completed if request.param == "S" else pay_b_approved

    def make(amount: int, route: str = "terminal.pay") -> dict:
        return maker(client, amount, route=route)

    if request.param == "S":
        return client, S_TERMINAL, S_TERMINAL_2, make
    return client, B_TERMINAL, B_TERMINAL_2, make


def test_every_gateway_transaction_has_its_own_entry(merchant):
    client, lane, other_lane, make = merchant
    send_as(client, "ua-auth")
    auth = make(5000, "terminal.auth")
    send_as(client, "ua-capture")
    capture = follow_up(client, "terminal.capture", other_lane, auth, 4000)
    send_as(client, "ua-sale-voided")
    voided = make(3000)
    send_as(client, "ua-void")
    void = follow_up(client, "terminal.void", other_lane, voided)
    send_as(client, "ua-sale-refunded")
    refunded = make(2000)
    send_as(client, "ua-close")
    assert call(client, "terminal.close_batch", json={"terminalId": lane}).status_code == 201
    send_as(client, "ua-refund")
    refund = follow_up(client, "terminal.refund", other_lane, refunded, 500)

    data = entries(client)
    assert [(e["type"], e["userAgent"]) for e in data] == [
        ("refund", "ua-refund"),
        ("sale", "ua-sale-refunded"),
        ("void", "ua-void"),
        ("sale", "ua-sale-voided"),
        ("capture", "ua-capture"),
        ("auth", "ua-auth"),
    ]
    by_type = {e["type"]: e for e in data}
    captured = body(call(client, "payment.get", id=auth["id"]))["data"]
    assert by_type["capture"]["transactionId"] == auth["transactionId"] == capture["transactionId"]
    assert by_type["capture"]["baseAmount"] == 4000 and by_type["capture"]["surcharge"] == captured["surcharge"]
    assert by_type["capture"]["amount"] == 4000 + captured["surcharge"]
    assert by_type["void"]["transactionId"] == void["transactionId"] != voided["transactionId"]
    assert by_type["void"]["baseAmount"] == by_type["void"]["amount"] == 3000
    assert by_type["refund"]["transactionId"] == refund["transactionId"] != refunded["transactionId"]
    assert by_type["refund"]["baseAmount"] == by_type["refund"]["amount"] == 500
    assert by_type["void"]["surcharge"] == by_type["refund"]["surcharge"] == 0
    paid = {"capture": auth, "void": voided, "refund": refunded}
    for kind, payment in paid.items():
        entry = by_type[kind]
        assert entry["paymentId"] == payment["id"] and entry["error"] is None
        assert entry["device"]["terminalId"] == other_lane and entry["device"]["name"]
        assert entry["card"]["last4"] == payment["card"]["last4"]
        assert entry["card"]["type"] == payment["card"]["type"]
    assert by_type["refund"]["settled"] is True and by_type["void"]["settled"] is False
    assert by_type["sale"]["device"]["terminalId"] == lane
    assert set(by_type["refund"]) == set(by_type["sale"])
    ids = [e["id"] for e in data]
    assert all(OBJECT_ID.fullmatch(i) for i in ids) and len(set(ids)) == len(ids)
    assert all(e["_id"] == e["id"] for e in data)
    assert [e["id"] for e in entries(client)] == ids  # stable across list calls
    created = [epoch(e["createdAt"]) for e in data]
    assert created == sorted(created, reverse=True)
    assert all(e["transactionAt"] == e["createdAt"] for e in data)


def test_payment_keeps_its_transactions_shape(b_client):
    sale = pay_b_approved(b_client, 2500)
    send_as(b_client, "ua-void")
    void = follow_up(b_client, "terminal.void", B_TERMINAL_2, sale)
    [record] = body(call(b_client, "payment.get", id=sale["id"]))["data"]["transactions"]
    assert set(record) == {"type", "transactionId", "amount", "userAgent", "at"}
    assert (record["type"], record["transactionId"], record["amount"], record["userAgent"]) == (
        "void", void["transactionId"], 2500, "ua-void"
    )


def test_paging_runs_over_all_entries(b_client):
    for amount in (1000, 2000, 3000):
        sale = pay_b_approved(b_client, amount)
        follow_up(b_client, "terminal.void", B_TERMINAL, sale)
    everything = entries(b_client)
    assert len(everything) == 6
    first = listing(b_client, page="1", limit="4")
    second = listing(b_client, page="2", limit="4")
    assert first["meta"] == {"count": 6, "totalPages": 2, "page": "1", "limit": "4"}
    assert second["meta"] == {"count": 6, "totalPages": 2, "page": "2", "limit": "4"}
    assert [e["id"] for e in first["data"] + second["data"]] == [e["id"] for e in everything]
    assert listing(b_client)["meta"] == {"count": 6, "totalPages": 1, "page": 1, "limit": 10}


def test_list_lag_hides_new_entries_for_a_while(b_client, sandbox):
    sandbox.set_faults(list_lag_s=0.5)
    before_sale = time.monotonic()
    sale = pay_b_approved(b_client, 1500)  # payment.get inside: not lagged
    [entry] = wait_until(lambda: entries(b_client), what="the sale to be listed")
    assert time.monotonic() - before_sale >= 0.5
    assert entry["paymentId"] == sale["id"] and listing(b_client)["meta"]["count"] == 1

    before_void = time.monotonic()
    follow_up(b_client, "terminal.void", B_TERMINAL, sale)

    def void_listed() -> list[dict] | None:
        data = entries(b_client)
        assert [e["type"] for e in data][-1:] == ["sale"]  # the sale stays listed meanwhile
        return data if len(data) == 2 else None

    assert [e["type"] for e in wait_until(void_listed, what="the void to be listed")] == ["void", "sale"]
    assert time.monotonic() - before_void >= 0.5
    sandbox.set_faults(list_lag_s=0)
    assert len(entries(b_client)) == 2


def test_list_oldest_first(b_client, sandbox):
    first = pay_b_approved(b_client, 1000)
    pay_b_approved(b_client, 2000)
    pay_b_approved(b_client, 3000)
    follow_up(b_client, "terminal.void", B_TERMINAL, first)
    newest_first = [(e["type"], e["baseAmount"]) for e in entries(b_client)]
    assert newest_first == [("void", 1000), ("sale", 3000), ("sale", 2000), ("sale", 1000)]
    sandbox.set_faults(list_oldest_first=1)
    assert [(e["type"], e["baseAmount"]) for e in entries(b_client)] == newest_first[::-1]
    assert [e["baseAmount"] for e in listing(b_client, page="2", limit="3")["data"]] == [1000]
    assert listing(b_client, page="2", limit="3")["data"][0]["type"] == "void"


def test_list_bool_fields(b_client, sandbox):
    sale = pay_b_approved(b_client, 1000)
    pay(b_client, B_TERMINAL, 50)  # declined
    pay_b_approved(b_client, 2000, route="terminal.auth")
    follow_up(b_client, "terminal.void", B_TERMINAL, sale)
    sandbox.set_faults(list_bool_fields=1)
    shown = [(e["type"], e["error"], e["captured"]) for e in entries(b_client)]
    assert shown == [("void", False, True), ("auth", False, False), ("sale", "DECLINED", False), ("sale", False, True)]
    sandbox.set_faults(list_bool_fields=0)
    shown = [(e["type"], e["error"], e["captured"]) for e in entries(b_client)]
    assert shown == [("void", None, "true"), ("auth", None, "false"), ("sale", "DECLINED", "false"),
                     ("sale", None, "true")]


def test_foreign_user_agent_is_decided_when_the_transaction_is_made(b_client, sandbox):
    before = pay_b_approved(b_client, 1000)
    sandbox.set_faults(foreign_user_agent=1)
    foreign = pay_b_approved(b_client, 2000)
    follow_up(b_client, "terminal.void", B_TERMINAL, before)
    sandbox.set_faults(foreign_user_agent=0)
    follow_up(b_client, "terminal.void", B_TERMINAL, foreign)
    agents = [(e["type"], e["baseAmount"], e["userAgent"]) for e in entries(b_client)]
    assert agents == [
        ("void", 2000, USER_AGENT),
        ("void", 1000, FOREIGN_USER_AGENT),
        ("sale", 2000, FOREIGN_USER_AGENT),
        ("sale", 1000, USER_AGENT),
    ]
    assert [p["userAgent"] for p in sandbox.stats()["payments"]] == [USER_AGENT, FOREIGN_USER_AGENT]


def test_foreign_user_agent_of_a_type_s_sale_is_fixed_at_the_pay_request(s_client, sandbox):
    sandbox.set_faults(foreign_user_agent=1)
    response = pay(s_client, S_TERMINAL, 1250)
    sandbox.set_faults(foreign_user_agent=0)  # before the message completes
    poll_until(s_client, body(response)["msgIdentifier"], {"complete"})
    assert [e["userAgent"] for e in entries(s_client)] == [FOREIGN_USER_AGENT]


def test_negative_clock_offset_shifts_every_timestamp_written(b_client, sandbox):
    early = pay_b_approved(b_client, 1000)
    sandbox.set_faults(clock_offset_s=-3600)
    sale = pay_b_approved(b_client, 2000)
    follow_up(b_client, "terminal.void", B_TERMINAL, sale)
    now = time.time()

    def shifted(iso: str) -> bool:
        return abs(epoch(iso) - (now - 3600)) < 30

    # By createdAt the entries written an hour "earlier" list after the one written before.
    early_entry, void_entry, sale_entry = entries(b_client)
    assert (early_entry["paymentId"], void_entry["type"], sale_entry["paymentId"]) == (early["id"], "void", sale["id"])
    for entry in (void_entry, sale_entry):
        assert shifted(entry["createdAt"]) and shifted(entry["transactionAt"]) and shifted(entry["updatedAt"])
    payment = body(call(b_client, "payment.get", id=sale["id"]))["data"]
    assert shifted(payment["createdAt"]) and shifted(payment["updatedAt"]) and shifted(payment["transactionAt"])
    assert shifted(payment["transactions"][0]["at"])
    missing = call(b_client, "payment.get", id="0" * 24)
    assert missing.status_code == 404 and shifted(body(missing)["timestamp"])
    # Recorded before the clock went off: its times stay as they were written.
    assert abs(epoch(early_entry["createdAt"]) - now) < 30
