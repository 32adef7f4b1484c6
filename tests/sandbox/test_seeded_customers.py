"""The customers every sandbox merchant starts with (training mode and a first run have
someone to attach and a card on file to charge): Jane Roe with a Visa •••• 4242, a customer
with two cards, one without a card; the same again after ``/_sandbox/reset``; chargeable."""

from __future__ import annotations

from tests.sandbox.helpers import SEEDED, body, call


def listed(client) -> dict[str, dict]:
    return {c["email"]: c for c in body(call(client, "customer.list", params={"limit": "0"}))["data"]}


def test_jane_roe_and_the_others_are_there_on_each_merchant(s_client, b_client):
    on_s, on_b = listed(s_client), listed(b_client)
    assert len(on_s) == len(on_b) == SEEDED == 3
    for customers in (on_s, on_b):
        jane = customers["jane@example.com"]
        assert (jane["firstName"], jane["lastName"], jane["phoneNumber"]) == ("Jane", "Roe", "(555) 123-4567")
        card = jane["paymentMethod"]
        assert (card["brand"], card["type"], card["last4"], card["number"]) == (
            "Visa", "credit", "4242", "424242******4242")
        assert [m["default"] for m in jane["paymentMethods"]] == [True]
        sam = customers["sam.rivera@example.com"]
        assert [(m["brand"], m["type"], m["last4"], m["default"]) for m in sam["paymentMethods"]] == [
            ("American Express", "credit", "0005", True), ("Visa", "debit", "5556", False)]
        pat = customers["pat.quinn@example.com"]
        assert pat["paymentMethod"] is None and pat["paymentMethods"] == []
    assert {c["id"] for c in on_s.values()}.isdisjoint(c["id"] for c in on_b.values())  # each merchant's own


def test_reset_gives_the_same_customers_and_ids_again(b_client, admin):
    before = listed(b_client)
    extra = call(b_client, "customer.create", json={"firstName": "Ada", "lastName": "Byron", "email": "a@x.org"})
    assert extra.status_code == 201
    call(b_client, "customer.delete", id=before["jane@example.com"]["id"])
    assert admin.post("/reset").status_code == 200
    after = listed(b_client)
    assert {e: (c["id"], [m["customerVaultId"] for m in c["paymentMethods"]]) for e, c in after.items()} == {
        e: (c["id"], [m["customerVaultId"] for m in c["paymentMethods"]]) for e, c in before.items()}


def test_jane_roe_is_charged_on_her_card_with_its_surcharge(b_client):
    jane = listed(b_client)["jane@example.com"]
    answer = call(b_client, "card.charge", json={"amount": 1000, "customerId": jane["id"]})
    assert answer.status_code == 201, answer.text
    payment = body(answer)["data"]
    assert payment["paid"] is True and payment["card"]["last4"] == "4242"
    assert payment["netAmount"] == 1025  # merchant B's credit rate, 2.50 %
