"""Admin routes (/_sandbox/...), fault knobs and injections."""

from __future__ import annotations

import time
from decimal import Decimal

import httpx
import pytest

from pos_app.api.routes import ROUTES
from pos_app.sandbox.faults import KNOBS, parse_knob_text
from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.sandbox.helpers import B_TERMINAL, S_TERMINAL, body, call, pay, pay_b_approved

DROPPED = (httpx.RemoteProtocolError, httpx.ReadError)


def test_stats_counts_requests_per_merchant_and_route(s_client, b_client, admin):
    call(s_client, "tax.list")
    call(s_client, "tax.list")
    pay(b_client, B_TERMINAL, 1000)
    stats = body(admin.get("/stats"))
    assert stats["requests"] == {"S": {"tax.list": 2}, "B": {"terminal.pay": 1}}
    [payment] = stats["payments"]
    assert set(payment) == {"merchant", "id", "terminalId", "amount", "status", "paid", "userAgent", "createdAt"}
    assert payment["merchant"] == "B" and payment["terminalId"] == B_TERMINAL
    pay(s_client, S_TERMINAL, 1000)
    [message] = body(admin.get("/stats"))["messages"]
    assert set(message) == {"merchant", "msgIdentifier", "amount", "status", "completedAt"}


def test_stats_name_every_terminal_with_its_state(sandbox):
    terminals = sandbox.stats()["terminals"]
    assert [(t["merchant"], t["isActive"]) for t in terminals].count(("B", False)) == 1
    assert [(t["merchant"], t["isActive"]) for t in terminals].count(("S", False)) == 1


def test_faults_read_and_set(admin, sandbox):
    knobs = body(admin.get("/faults"))
    assert set(knobs) == set(KNOBS) and knobs["rate_limit_per_minute"] == 120
    assert knobs["s_delay_min"] == Decimal("0.2")  # from the fast fixture config
    answer = body(admin.post("/faults", json={"drop_next": 2, "timeout_hold_s": 1.5}))
    assert answer["drop_next"] == 2 and answer["timeout_hold_s"] == Decimal("1.5")
    assert sandbox.set_faults(drop_next=0)["drop_next"] == 0
    for bad in ({"nope": 1}, {"drop_next": -1}, {"drop_next": 1.5}, {"latency_ms": "5"}, {"s_delay_min": 9}):
        response = admin.post("/faults", json=bad)
        assert response.status_code == 400, bad
        assert body(response)["response"]["code"] == 900
    with pytest.raises(ValueError, match="unknown fault knob"):
        sandbox.set_faults(bogus=1)


def test_knob_bounds_allow_a_negative_clock_offset(admin):
    answer = body(admin.post("/faults", json={"clock_offset_s": -90.5, "settle_hour": 23, "list_oldest_first": 1}))
    assert answer["clock_offset_s"] == Decimal("-90.5") and answer["settle_hour"] == 23
    assert body(admin.post("/faults", json={"settle_hour": -1}))["settle_hour"] == -1
    bad_values = ({"settle_hour": 24}, {"settle_hour": -2}, {"list_oldest_first": 2}, {"foreign_user_agent": -1},
                  {"list_bool_fields": 2}, {"list_lag_s": -0.5})
    for bad in bad_values:
        response = admin.post("/faults", json=bad)
        assert response.status_code == 400, bad
    assert "at most 23" in body(admin.post("/faults", json={"settle_hour": 24}))["response"]["message"][0]
    assert parse_knob_text("clock_offset_s=-60") == ("clock_offset_s", -60)
    assert SandboxServer(SandboxConfig(faults={"clock_offset_s": -60})).sandbox.knobs["clock_offset_s"] == -60


def test_config_faults_are_checked_at_construction():
    with pytest.raises(ValueError, match="unknown fault knob"):
        SandboxServer(SandboxConfig(faults={"bogus": 1}))
    assert SandboxServer(SandboxConfig(faults={"drop_next": 1})).sandbox.knobs["drop_next"] == 1


def test_inject_904_answers_the_service_body_once(admin, b_client, sandbox):
    assert admin.post("/inject", json={"route": "terminal.pay", "status": 904}).status_code == 200
    response = pay(b_client, B_TERMINAL, 1000)
    assert response.status_code == 904
    answer = body(response)
    assert answer["statusCode"] == 904 and answer["response"]["code"] == 904 and answer["response"]["text"]
    assert sandbox.stats()["payments"] == []
    assert sandbox.stats()["requests"]["B"]["terminal.pay"] == 1
    assert pay(b_client, B_TERMINAL, 1000).status_code == 201


@pytest.mark.parametrize(
    ("injection", "code"),
    [({"status": 400}, 900), ({"status": 400, "code": "300"}, "300"), ({"status": 901}, 901)],
)
def test_inject_service_bodies(admin, s_client, injection, code):
    admin.post("/inject", json={"route": "tax.list", **injection})
    response = call(s_client, "tax.list")
    assert response.status_code == injection["status"] and body(response)["response"]["code"] == code


@pytest.mark.parametrize("status", [401, 404, 429, 501, 502, 503])
def test_inject_status_bodies(admin, s_client, status):
    admin.post("/inject", json={"route": "terminal.list", "status": status, "count": 2})
    for _ in range(2):
        response = call(s_client, "terminal.list")
        assert response.status_code == status
        assert body(response)["response"]["statusCode"] == status
    if status == 429:
        assert response.headers["retry-after"] == "1"
    assert call(s_client, "terminal.list").status_code == 200


def test_inject_refuses_bad_requests(admin):
    assert admin.post("/inject", json={"route": "nope", "status": 500}).status_code == 400
    assert admin.post("/inject", json={"route": "tax.list", "status": 200}).status_code == 400
    assert admin.post("/inject", json={"route": "tax.list", "status": 500, "count": 0}).status_code == 400


def test_error_5xx_next(s_client, sandbox):
    sandbox.set_faults(error_5xx_next=1)
    assert call(s_client, "tax.list").status_code == 503
    assert call(s_client, "tax.list").status_code == 200


def test_reset_next_aborts_before_anything_is_charged(b_client, sandbox):
    sandbox.set_faults(reset_next=1)
    call(b_client, "tax.list")  # not money-moving: unaffected
    with pytest.raises(DROPPED):
        pay(b_client, B_TERMINAL, 1000)
    stats = sandbox.stats()
    assert stats["payments"] == [] and stats["requests"]["B"]["terminal.pay"] == 1
    assert pay(b_client, B_TERMINAL, 1000).status_code == 201


def test_drop_next_charges_then_drops(b_client, sandbox):
    sandbox.set_faults(drop_next=1)
    with pytest.raises(DROPPED):
        pay(b_client, B_TERMINAL, 1000)
    assert [p["amount"] for p in sandbox.stats()["payments"]] == [1000]
    assert pay(b_client, B_TERMINAL, 1000).status_code == 201


@pytest.mark.alone  # it bounds an answer's time
def test_latency_is_added_to_service_answers_only(b_client, admin, sandbox):
    sandbox.set_faults(latency_ms=150)
    started = time.monotonic()
    call(b_client, "tax.list")
    assert time.monotonic() - started >= 0.15
    started = time.monotonic()
    admin.get("/faults")
    assert time.monotonic() - started < 0.15


def test_reset_gives_a_fresh_state_with_the_same_seed(b_client, admin, sandbox):
    ids = body(call(b_client, "item.ids"))
    pay_b_approved(b_client, 1000)
    call(b_client, "item.delete", id=ids[0])
    sandbox.set_faults(drop_next=3)
    assert body(admin.post("/reset")) == {"reset": True}
    stats = sandbox.stats()
    assert stats["payments"] == [] and stats["requests"] == {"S": {}, "B": {}}
    assert body(call(b_client, "item.ids")) == ids
    assert sandbox.stats()["requests"]["B"] == {"item.ids": 1}
    assert body(admin.get("/faults"))["drop_next"] == 0


def test_unknown_paths_get_the_status_body(b_client):
    response = b_client.get("/public/nothing-here")
    assert response.status_code == 404
    assert body(response)["path"] == "/v1/public/nothing-here"
    response = b_client.delete(ROUTES["tax.list"].path)
    assert response.status_code == 405 and body(response)["response"]["error"] == "Method Not Allowed"
