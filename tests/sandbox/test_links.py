"""The sandbox's payment links and attachments over raw HTTP: the money units of
reference 2.1 on the wire, route by route, the validation texts, the delete document,
sends recorded, uploads with their limits, and the pay action."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from pos_app.api.routes import ROUTES
from pos_app.sandbox.link_store import Channel, sent_links, stored_files
from tests.links import CITY_TAX_B, PDF, PNG, STATE_TAX_B, pay_link
from tests.sandbox.helpers import body, call

MB = 1024 * 1024


def create(client, route="link.create", **fields) -> dict:
    answer = call(client, route, json={"amount": 1250, "taxes": [], **fields})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def test_units_on_the_wire_route_by_route(b_client):
    made = create(b_client, amount=1000, taxes=[STATE_TAX_B])
    assert (made["amount"], made["taxes"], made["totalAmount"], made["paidAmount"]) == (1000, 63, 1063, 0)
    assert "selectedTaxes" not in made
    view = body(call(b_client, "link.get", id=made["id"]))["data"]
    assert (view["amount"], view["taxes"], view["totalAmount"]) == (10, Decimal("0.63"), Decimal("10.63"))
    assert body(call(b_client, "link.list"))["data"][0]["totalAmount"] == 1063
    old_list = body(call(b_client, "old_link.list"))["data"][0]
    assert old_list["totalAmount"] == Decimal("10.63") and old_list["selectedTaxes"] == [STATE_TAX_B]
    assert body(call(b_client, "old_link.get", id=made["id"]))["data"]["totalAmount"] == Decimal("10.63")

    old = create(b_client, "old_link.create", amount=12, taxes=[CITY_TAX_B])  # whole dollars in
    assert (old["amount"], old["taxes"], old["totalAmount"]) == (12, Decimal("0.24"), Decimal("12.24"))
    assert old["selectedTaxes"] == [CITY_TAX_B]


def test_create_validates_every_field_at_once(b_client):
    answer = call(b_client, "link.create", json={"amount": Decimal("12.5"), "taxes": ["nope"], "showBilling": "yes",
                                                  "customValues": [{"key": "color", "label": "C", "value": "red"}],
                                                  "attachments": [{"path": "never/uploaded.png"}]})
    assert answer.status_code == 400
    error = body(answer)
    assert error["response"]["code"] == 900 and error["path"] == "/v1/public/202104/payment-link"
    text = " | ".join(error["response"]["message"])
    for part in ("amount must be a positive integer (cents)", "taxes has unknown tax ids: nope",
                 "showBilling must be a boolean", "customValues.0.key 'color' is not configured",
                 "attachments.0 must be a file object answered by the upload route"):
        assert part in text, (part, text)
    missing_taxes = call(b_client, "link.create", json={"amount": 100})
    assert missing_taxes.status_code == 400 and "taxes must be an array" in missing_taxes.text


def test_deprecated_create_takes_whole_dollars_only(b_client):
    for amount in (Decimal("12.5"), Decimal("12.00"), "12", 0):
        answer = call(b_client, "old_link.create", json={"amount": amount, "taxes": []})
        assert answer.status_code == 400 and "amount must be a positive integer (whole dollars)" in answer.text


def test_delete_answers_the_payment_request_document(b_client):
    made = create(b_client, amount=1250, taxes=[STATE_TAX_B])
    deleted = call(b_client, "link.delete", id=made["id"])
    assert deleted.status_code == 200, deleted.text
    document = body(deleted)["data"]
    assert document["_id"] == made["id"] and "id" not in document and "url" not in document
    assert (document["active"], document["amount"], document["tax"]) == (False, Decimal("12.5"), Decimal("0.78"))
    assert document["deletedAt"] and "order" in document
    view = body(call(b_client, "link.get", id=made["id"]))["data"]
    assert view["active"] is False and view["deletedAt"] == document["deletedAt"]
    assert body(call(b_client, "link.list"))["meta"]["count"] == 0
    again = call(b_client, "old_link.delete", id=made["id"])
    assert again.status_code == 400 and body(again)["response"]["text"] == (
        f"Payment link with id: {made['id']} is already deleted")


def test_ids_and_merchants(b_client, s_client):
    assert call(b_client, "link.get", id="nope").status_code == 400
    unknown = call(b_client, "link.get", id="0123456789abcdef01234567")
    assert unknown.status_code == 404 and "Payment link with id: 0123456789abcdef01234567 not found" in unknown.text
    made = create(b_client)
    assert call(s_client, "link.get", id=made["id"]).status_code == 404  # another merchant's link


def test_sends_are_recorded_and_checked(sandbox, b_client):
    made = create(b_client)
    assert call(b_client, "link.send_email", json={"email": "ana@example.com", "paymentLinkId": made["id"]}
                ).status_code == 201
    sms = call(b_client, "old_link.send_sms", json={"phoneNumber": "5551234567", "paymentLinkId": made["id"]})
    assert sms.status_code == 201 and body(sms)["success"] is True
    assert [(s.channel, s.to) for s in sent_links(sandbox.sandbox, "B")] == [
        (Channel.EMAIL, "ana@example.com"), (Channel.SMS, "5551234567")]
    bad = call(b_client, "link.send_sms", json={"phoneNumber": "555-123-4567"})
    assert bad.status_code == 400
    assert set(body(bad)["response"]["message"]) == {
        "phoneNumber must match ^[+]?[(]?[0-9]{3}[)]?[ ]?[0-9]{3}[-]?[0-9]{4}$ regular expression",
        "paymentLinkId should not be empty"}
    no_mail = call(b_client, "link.send_email", json={"paymentLinkId": made["id"]})
    assert no_mail.status_code == 400 and "email should not be empty" in no_mail.text
    call(b_client, "link.delete", id=made["id"])
    gone = call(b_client, "link.send_email", json={"email": "ana@example.com", "paymentLinkId": made["id"]})
    assert gone.status_code == 400 and "is not active" in gone.text
    assert len(sent_links(sandbox.sandbox, "B")) == 2


def test_pay_action_records_a_payment_and_pays_the_link(sandbox, b_client):
    made = create(b_client, amount=1000, taxes=[CITY_TAX_B])
    too_much = pay_link(sandbox, made["id"], 1021)
    assert too_much.status_code == 400 and "not be greater than 1020" in too_much.text
    first = body(pay_link(sandbox, made["id"], 20))
    assert first["data"]["paidAmount"] == 20 and first["data"]["paymentId"] == first["payment"]["id"]
    rest = body(pay_link(sandbox, made["id"]))
    assert rest["payment"]["amount"] == 1000 and rest["data"]["paidAmount"] == 1020
    view = body(call(b_client, "link.get", id=made["id"]))["data"]
    assert view["paidAmount"] == Decimal("10.2") and view["paymentId"] == rest["payment"]["id"]
    assert view["surcharge"] == Decimal(first["payment"]["surcharge"] + rest["payment"]["surcharge"]) / 100
    payment = body(call(b_client, "payment.get", id=rest["payment"]["id"]))["data"]
    assert payment["paid"] is True and payment["amount"] == 1000
    again = pay_link(sandbox, made["id"])
    assert again.status_code == 400 and "already paid" in again.text
    assert pay_link(sandbox, "0123456789abcdef01234567").status_code == 404
    gone = create(b_client)
    call(b_client, "link.delete", id=gone["id"])
    assert "is not active" in pay_link(sandbox, gone["id"]).text


def test_pay_action_without_a_body_pays_the_rest(sandbox, b_client):
    made = create(b_client, amount=700)
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/payment-link/{made['id']}/pay", timeout=5)
    assert answer.status_code == 200, answer.text
    assert body(answer)["data"]["paidAmount"] == 700 == body(answer)["payment"]["amount"]


@pytest.mark.parametrize("route", ["link.upload_attachments", "old_link.upload_attachments",
                                   "subscription.upload_attachments"])
def test_uploads_keep_names_and_sizes(sandbox, b_client, route):
    path = ROUTES[route].path
    answer = b_client.post(path, files=[("attachments", ("menu.png", PNG, "image/png")),
                                        ("attachments", ("terms.pdf", PDF, "application/pdf"))])
    assert answer.status_code == 201, answer.text
    result = body(answer)
    assert "data" not in result and result["message"]
    assert [(f["originalName"], f["sizeInMB"]) for f in result["files"]] == [
        ("menu.png", (Decimal(len(PNG)) / MB).quantize(Decimal("0.0001"))),
        ("terms.pdf", (Decimal(len(PDF)) / MB).quantize(Decimal("0.0001")))]
    assert all(f["fullPath"].endswith(f["path"]) for f in result["files"])
    assert [(s.original_name, s.size) for s in stored_files(sandbox.sandbox, "B")] == [
        ("menu.png", len(PNG)), ("terms.pdf", len(PDF))]


def test_uploads_over_the_limits_are_refused(sandbox, b_client):
    path = "/public/202104/payment-link/upload-attachments"
    eleven = b_client.post(path, files=[("attachments", (f"p{n}.png", PNG, "image/png")) for n in range(11)])
    assert eleven.status_code == 400 and "no more than 10 files" in eleven.text
    gif = b_client.post(path, files=[("attachments", ("a.gif", b"GIF89a", "image/gif"))])
    assert gif.status_code == 400 and "a.gif is not a JPG, PNG or PDF file" in gif.text
    halves = (b"%PDF" + b"0" * (13 * MB), b"%PDF" + b"0" * (12 * MB + 1000))  # over 25 MB, under the body limit
    too_big = b_client.post(path, files=[("attachments", (f"{n}.pdf", half, "application/pdf"))
                                         for n, half in enumerate(halves)])
    assert too_big.status_code == 400 and "must not exceed 25 MB in total" in too_big.text
    json_body = call(b_client, "link.upload_attachments", json={"attachments": []})
    assert json_body.status_code == 400 and "multipart/form-data" in json_body.text
    assert stored_files(sandbox.sandbox, "B") == []
