"""The sandbox's subscriptions over raw HTTP: schedules from both frequency modes and
plans, the transitions of reference 3.2 and their refusals, the list's dollar filter,
retry with its test amounts, and the vault's card held in use."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from pos_app.sandbox.subscriptions import (
    DELETE_FINISHED,
    ENTRY_PAID,
    NO_METHOD,
    PAUSE_NOT_RUNNING,
    PAUSE_PAUSED,
    RESUME_NOT_PAUSED,
)
from tests.sandbox.helpers import body, call

EXP = f"12{date.today().year + 1 - 2000:02d}"
WEEKLY_PLAN = "5e1a00000000000000000002"


def tomorrow() -> date:
    """The service's default start: the next day (UTC), read when a test needs it."""
    return datetime.now(UTC).date() + timedelta(days=1)

def vault(client, *, card: bool = True) -> dict:
    cards = [{"number": "424242******4242", "exp": EXP}] if card else []
    answer = call(client, "customer.create", json={"firstName": "Ada", "lastName": "Byron",
                                                    "email": "ada@example.com", "cards": cards})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def subscribe(client, vault_id: str, **schedule) -> dict:
    extra = {k: schedule.pop(k) for k in ("startDate", "planId", "firstAmount") if k in schedule}
    schedule = {"amount": 1250, "payments": 3, "dayFrequency": 7, **schedule}
    answer = call(client, "subscription.create", json={"customerVaultId": vault_id, "customSchedule": schedule,
                                                        **extra})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def day(iso: str) -> date:
    return datetime.fromisoformat(iso).date()


def refusal(answer: httpx.Response) -> str:
    assert answer.status_code == 400, answer.text
    return body(answer)["response"]["text"]


def test_every_n_days_from_tomorrow(b_client):
    made = subscribe(b_client, vault(b_client)["id"])
    assert made["status"] == "running" and made["amount"] == 1250 and made["planId"] is None
    assert made["customSchedule"] == {"amount": 1250, "payments": 3, "untilTerminated": False, "dayFrequency": 7}
    assert [day(e["date"]) for e in made["schedule"]] == [tomorrow() + timedelta(days=7 * k) for k in range(3)]
    assert {(e["status"], e["amount"]) for e in made["schedule"]} == {("pending", 1250)}
    assert day(made["nextPayment"]) == tomorrow()
    assert (made["paymentsPaid"], made["paymentsFailed"], made["paymentsPending"]) == (0, 0, 3)


def test_every_n_months_on_a_day_keeps_to_short_months(b_client):
    start = date(tomorrow().year + 1, 1, 15)
    made = subscribe(b_client, vault(b_client)["id"], dayFrequency=None, monthFrequency=1, dayOfMonth=31,
                     payments=3, startDate=start.isoformat(), firstAmount=500)
    feb_end = 29 if (start.year % 4 == 0 and start.year % 100) or start.year % 400 == 0 else 28
    assert [day(e["date"]) for e in made["schedule"]] == [
        date(start.year, 1, 31), date(start.year, 2, feb_end), date(start.year, 3, 31)]
    assert [e["amount"] for e in made["schedule"]] == [500, 1250, 1250]


def test_a_plan_wins_over_a_schedule_and_zero_payments_run_until_cancelled(b_client):
    answer = call(b_client, "subscription.create", json={
        "customerId": vault(b_client)["id"], "planId": WEEKLY_PLAN,
        "customSchedule": {"amount": 1, "payments": 1, "dayFrequency": 1}})
    assert answer.status_code == 201, answer.text
    made = body(answer)["data"]
    assert made["planId"] == WEEKLY_PLAN and made["customSchedule"] is None and made["amount"] == 1000
    assert made["plan"]["untilTerminated"] is True and len(made["schedule"]) == 12  # a rolling window


@pytest.mark.parametrize("schedule, start, why", [
    ({"amount": 1250, "dayFrequency": 7, "monthFrequency": 1, "dayOfMonth": 3}, None, "exactly one frequency mode"),
    ({"amount": 1250, "monthFrequency": 1}, None, "exactly one frequency mode"),
    ({"amount": 1250, "payments": 53, "dayFrequency": 7}, None, "payments must be an integer from 0 to 52"),
    ({"amount": 1250, "monthFrequency": 25, "dayOfMonth": 1}, None, "monthFrequency"),
    ({"amount": Decimal("12.50"), "dayFrequency": 7}, None, "customSchedule.amount"),
    ({"amount": 1250, "dayFrequency": 0}, None, "dayFrequency must be an integer greater than 0"),
    ({"amount": 1250, "dayFrequency": 7}, "2020-01-01", "startDate must be a future date"),
])
def test_create_validation(b_client, schedule, start, why):
    payload = {"customerVaultId": vault(b_client)["id"], "customSchedule": schedule}
    if start:
        payload["startDate"] = start
    answer = call(b_client, "subscription.create", json=payload)
    assert answer.status_code == 400 and body(answer)["response"]["code"] == 900
    assert any(why in message for message in body(answer)["response"]["message"]), body(answer)


def test_the_customer_must_exist_and_have_a_default_method(b_client):
    unknown = "0123456789abcdef01234567"
    answer = call(b_client, "subscription.create", json={"customerVaultId": unknown,
                                                          "customSchedule": {"amount": 100, "dayFrequency": 1}})
    assert refusal(answer) == f"Customer with id: {unknown} not found"
    bare = vault(b_client, card=False)
    answer = call(b_client, "subscription.create", json={"customerVaultId": bare["id"],
                                                          "customSchedule": {"amount": 100, "dayFrequency": 1}})
    assert refusal(answer) == NO_METHOD


def test_pause_resume_cancel_and_their_refusals(b_client):
    made = subscribe(b_client, vault(b_client)["id"])
    paused = body(call(b_client, "subscription.pause", subscriptionId=made["id"]))["data"]
    assert paused["status"] == "paused" and paused["nextPayment"] is None and paused["schedule"] == []
    assert refusal(call(b_client, "subscription.pause", subscriptionId=made["id"])) == PAUSE_PAUSED

    resumed = body(call(b_client, "subscription.resume", subscriptionId=made["id"]))["data"]
    assert resumed["status"] == "running" and len(resumed["schedule"]) == 3
    assert day(resumed["nextPayment"]) == tomorrow()  # regenerated from the resume date
    assert refusal(call(b_client, "subscription.resume", subscriptionId=made["id"])) == RESUME_NOT_PAUSED

    cancelled = body(call(b_client, "subscription.delete", id=made["id"]))["data"]
    assert cancelled["status"] == "inactive" and cancelled["deletedAt"] is None and cancelled["schedule"] == []
    assert body(call(b_client, "subscription.get", id=made["id"]))["data"]["status"] == "inactive"  # retrievable
    assert refusal(call(b_client, "subscription.pause", subscriptionId=made["id"])) == PAUSE_NOT_RUNNING
    assert refusal(call(b_client, "subscription.resume", subscriptionId=made["id"])) == RESUME_NOT_PAUSED
    assert call(b_client, "subscription.get", id="0123456789abcdef01234567").status_code == 404


def test_completed_and_incomplete_cannot_be_cancelled(b_client, admin):
    customer = vault(b_client)["id"]
    done = subscribe(b_client, customer, payments=1)
    charged = body(call(b_client, "subscription.retry", scheduleId=done["schedule"][0]["id"]))["data"]
    assert charged["status"] == "completed" and charged["schedule"]["status"] == "paid"
    assert refusal(call(b_client, "subscription.delete", id=done["id"])) == DELETE_FINISHED

    short = subscribe(b_client, customer, payments=1)
    failed = admin.post("/subscription-fail", json={"scheduleId": short["schedule"][0]["id"]})
    assert failed.status_code == 200 and body(failed)["data"]["status"] == "incomplete"
    assert refusal(call(b_client, "subscription.delete", id=short["id"])) == DELETE_FINISHED
    assert refusal(call(b_client, "subscription.pause", subscriptionId=short["id"])) == PAUSE_NOT_RUNNING


def test_a_future_paid_entry_blocks_pause(b_client):
    made = subscribe(b_client, vault(b_client)["id"])
    assert call(b_client, "subscription.retry", scheduleId=made["schedule"][1]["id"]).status_code == 200
    assert "already paid" in refusal(call(b_client, "subscription.pause", subscriptionId=made["id"]))


def test_retry_charges_a_failed_entry_once_and_answers_the_single_entry(sandbox, b_client, admin):
    made = subscribe(b_client, vault(b_client)["id"])
    entry_id = made["schedule"][0]["id"]
    assert body(admin.post("/subscription-fail", json={"scheduleId": entry_id}))["data"]["schedule"][0][
        "status"] == "failed"
    answer = call(b_client, "subscription.retry", scheduleId=entry_id)
    assert answer.status_code == 200, answer.text
    data = body(answer)["data"]
    assert isinstance(data["schedule"], dict) and data["schedule"]["id"] == entry_id
    assert data["schedule"]["status"] == "paid" and data["schedule"]["attempts"] == 2
    assert data["schedule"]["paymentId"] and "error" not in data
    assert refusal(call(b_client, "subscription.retry", scheduleId=entry_id)) == ENTRY_PAID
    assert call(b_client, "subscription.retry", scheduleId="no-such-entry").status_code == 404
    charges = sandbox.sandbox.books["B"].subscriptions.charges
    assert [(c.schedule_id, c.approved) for c in charges] == [(entry_id, True)]
    assert charges[0].user_agent.endswith("attempt a-123)")


def test_retry_test_amounts_decline_inside_200_drop_and_fail(b_client):
    customer = vault(b_client)["id"]
    declined = subscribe(b_client, customer, amount=99)
    answer = call(b_client, "subscription.retry", scheduleId=declined["schedule"][0]["id"])
    assert answer.status_code == 200
    assert body(answer)["data"]["error"] == "DECLINED" and body(answer)["data"]["schedule"]["status"] == "failed"

    dropped = subscribe(b_client, customer, amount=9906)
    with pytest.raises(httpx.RemoteProtocolError):
        call(b_client, "subscription.retry", scheduleId=dropped["schedule"][0]["id"])
    after = body(call(b_client, "subscription.get", id=dropped["id"]))["data"]
    assert after["schedule"][0]["status"] == "paid"  # charged, only the answer was lost

    unavailable = subscribe(b_client, customer, amount=9908)
    assert call(b_client, "subscription.retry", scheduleId=unavailable["schedule"][0]["id"]).status_code == 503
    after = body(call(b_client, "subscription.get", id=unavailable["id"]))["data"]
    assert after["schedule"][0]["status"] == "pending" and after["schedule"][0]["attempts"] == 0


def test_list_hides_inactive_and_filters_amount_in_dollars(b_client):
    customer = vault(b_client)["id"]
    twelve_fifty = subscribe(b_client, customer)
    other = subscribe(b_client, customer, amount=1250_00)
    gone = subscribe(b_client, customer)
    call(b_client, "subscription.delete", id=gone["id"])

    listed = body(call(b_client, "subscription.list"))
    assert listed["meta"]["count"] == 2 and "schedule" not in listed["data"][0]
    assert "paymentsPaid" not in listed["data"][0]
    inactive = body(call(b_client, "subscription.list", params={"status": "inactive"}))
    assert [s["id"] for s in inactive["data"]] == [gone["id"]]
    both = body(call(b_client, "subscription.list", params={"status": "running,inactive"}))
    assert both["meta"]["count"] == 3

    in_dollars = body(call(b_client, "subscription.list", params={"amount": "12.50"}))
    assert [s["id"] for s in in_dollars["data"]] == [twelve_fifty["id"]]
    as_if_cents = body(call(b_client, "subscription.list", params={"amount": "1250"}))  # 1250 dollars
    assert [s["id"] for s in as_if_cents["data"]] == [other["id"]]
    bad = call(b_client, "subscription.list", params={"amount": "12.505"})
    assert bad.status_code == 400 and "amount" in bad.text


def test_update_amount_schedule_and_their_rules(b_client):
    customer = vault(b_client)["id"]
    made = subscribe(b_client, customer)
    updated = body(call(b_client, "subscription.update", id=made["id"], json={"amount": 1500, "autoRenew": True}))
    assert updated["data"]["amount"] == 1500 and updated["data"]["autoRenew"] is True
    assert {e["amount"] for e in updated["data"]["schedule"]} == {1500}
    start = (tomorrow() + timedelta(days=10)).isoformat()
    replaced = body(call(b_client, "subscription.update", id=made["id"], json={
        "customSchedule": {"amount": 900, "payments": 2, "dayFrequency": 1}, "startDate": start}))["data"]
    assert [day(e["date"]) for e in replaced["schedule"]] == [date.fromisoformat(start),
                                                                date.fromisoformat(start) + timedelta(days=1)]
    lone_start = call(b_client, "subscription.update", id=made["id"], json={"startDate": start})
    assert lone_start.status_code == 400 and "only allowed together with customSchedule" in lone_start.text
    mismatch = call(b_client, "subscription.update", id=made["id"], json={
        "amount": 1, "customSchedule": {"amount": 2, "dayFrequency": 1}})
    assert mismatch.status_code == 400 and "must match" in mismatch.text

    on_plan = body(call(b_client, "subscription.create", json={"customerVaultId": customer, "planId": WEEKLY_PLAN}))
    assert "custom plan" in refusal(call(b_client, "subscription.update", id=on_plan["data"]["id"],
                                         json={"amount": 1500}))


def test_the_card_a_subscription_charges_cannot_be_deleted_until_it_is_cancelled(b_client):
    customer = vault(b_client)
    card_id = customer["paymentMethod"]["customerVaultId"]
    made = subscribe(b_client, customer["id"])
    blocked = call(b_client, "customer.card_delete", id=customer["id"], customerVaultId=card_id)
    assert refusal(blocked) == "You cannot delete a Payment Method that is in use"
    assert body(blocked)["response"]["error"]["entities"] == [made["id"]]
    call(b_client, "subscription.pause", subscriptionId=made["id"])
    assert call(b_client, "customer.card_delete", id=customer["id"], customerVaultId=card_id).status_code == 400
    call(b_client, "subscription.delete", id=made["id"])
    freed = call(b_client, "customer.card_delete", id=customer["id"], customerVaultId=card_id)
    assert freed.status_code == 200 and body(freed)["data"]["paymentMethod"] is None
