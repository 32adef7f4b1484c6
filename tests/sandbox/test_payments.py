"""Payment reads, transaction list, receipt PDF, surcharge quote and text, taxes."""

from __future__ import annotations

import base64
import re
from decimal import Decimal

import pytest

from pos_app.api.money import percent_of
from tests.sandbox.helpers import B_TERMINAL, body, call, pay, pay_b_approved, pay_s_completed

TRANSACTION_FIELDS = {
    "settled", "import", "importAt", "voidable", "_id", "id", "object", "type", "amount", "baseAmount",
    "surcharge", "captured", "transactionId", "error", "createdAt", "transactionAt", "userAgent", "device",
    "paymentId", "createdBy", "updatedBy", "owner", "ownerGroup", "updatedAt", "card",
}


def test_unknown_payment_is_404(b_client):
    response = call(b_client, "payment.get", id="0" * 24)
    assert response.status_code == 404 and body(response)["response"]["error"] == "Not Found"


def test_payments_are_per_merchant(s_client, b_client):
    payment = pay_b_approved(b_client, 1000)
    assert call(s_client, "payment.get", id=payment["id"]).status_code == 404


def test_transaction_list_entries_and_meta(b_client):
    for amount in (1000, 2000, 50):
        pay(b_client, B_TERMINAL, amount)
    answer = body(call(b_client, "transactions.list"))
    assert answer["meta"] == {"count": 3, "totalPages": 1, "page": 1, "limit": 10}
    newest, middle, oldest = answer["data"]
    assert [oldest["baseAmount"], middle["baseAmount"], newest["baseAmount"]] == [1000, 2000, 50]
    assert set(newest) >= TRANSACTION_FIELDS
    assert newest["error"] and newest["captured"] == "false"
    assert oldest["captured"] == "true" and oldest["error"] is None and oldest["voidable"] is True
    assert oldest["amount"] == oldest["baseAmount"] + oldest["surcharge"]
    assert re.fullmatch(r"[0-9]{6}\*+[0-9]{4}", oldest["card"]["number"])
    assert set(oldest["card"]) >= {"name", "number", "type", "last4", "network"}


def test_transaction_meta_echoes_query_values_as_strings(b_client):
    for amount in (1000, 2000, 3000):
        pay(b_client, B_TERMINAL, amount)
    answer = body(call(b_client, "transactions.list", params={"page": "2", "limit": "2"}))
    assert answer["meta"] == {"count": 3, "totalPages": 2, "page": "2", "limit": "2"}
    assert [e["baseAmount"] for e in answer["data"]] == [1000]
    answer = body(call(b_client, "transactions.list", params={"limit": "1"}))
    assert answer["meta"]["page"] == 1 and answer["meta"]["limit"] == "1"
    assert call(b_client, "transactions.list", params={"page": "x"}).status_code == 400


def test_surcharge_is_the_credit_rate_on_credit_cards_only(b_client):
    seen = set()
    for _ in range(6):  # one full turn of the test card cycle
        payment = pay_b_approved(b_client, 1250)
        rate = Decimal("2.50") if payment["card"]["type"] == "credit" else Decimal(0)
        assert payment["surcharge"] == percent_of(1250, rate)
        seen.add((payment["card"]["brand"], payment["card"]["type"], payment["card"]["last4"]))
    assert len(seen) == 6 and {t for _, t, _ in seen} == {"credit", "debit"}


def pdf_of(client, payment_id: str, **extra) -> bytes:
    response = call(client, "receipt.pdf", json={"paymentId": payment_id, **extra})
    assert response.status_code == 201, response.text
    data = body(response)["data"]
    assert data["encodeType"] == "base64"
    return base64.b64decode(data["pdfData"])


def check_xref(pdf: bytes) -> None:
    """Every xref offset points at its object header."""
    start = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert pdf[start:].startswith(b"xref\n")
    lines = pdf[start:].split(b"\n")
    count = int(lines[1].split()[1])
    for number in range(1, count):
        offset = int(lines[2 + number].split()[0])
        assert pdf[offset:].startswith(b"%d 0 obj" % number)


def test_receipt_pdf(s_client):
    payment = pay_s_completed(s_client, 1250, orderNumber="A-17")
    merchant_copy = pdf_of(s_client, payment["id"])
    assert merchant_copy.startswith(b"%PDF-1.4") and merchant_copy.rstrip().endswith(b"%%EOF")
    for text in (b"Corner Market", b"MERCHANT COPY", b"A-17", payment["card"]["last4"].encode(),
                 payment["transactionId"].encode(), b"$12.50"):
        assert text in merchant_copy
    check_xref(merchant_copy)
    assert b"CUSTOMER COPY" in pdf_of(s_client, payment["id"], isForMerchant=False)
    assert call(s_client, "receipt.pdf", json={"paymentId": "0" * 24}).status_code == 404
    assert call(s_client, "receipt.pdf", json={"paymentId": payment["id"], "isForMerchant": "no"}).status_code == 400


def test_surcharge_rate_quote(s_client, b_client):
    params = {"amount": "1250", "binCard": "424242", "tokenId": "tok"}
    answer = body(call(s_client, "surcharge.rate", params=params))
    assert answer == {"surcharge": 38, "rate": Decimal("3.00"), "type": "credit", "cardBrand": "Visa"}
    answer = body(call(s_client, "surcharge.rate", params={**params, "binCard": "400005"}))
    assert answer["surcharge"] == 0 and answer["type"] == "debit"
    answer = body(call(b_client, "surcharge.rate", params={"amount": "1000"}))
    assert answer["surcharge"] == 25 and answer["rate"] == Decimal("2.50")


@pytest.mark.parametrize(
    "params",
    [
        {"amount": "1250", "binCard": "424242"},  # S needs tokenId
        {"amount": "1250", "tokenId": "tok"},  # and binCard
        {"amount": "123456789", "binCard": "424242", "tokenId": "tok"},  # more than 8 digits
        {"amount": "12.5", "binCard": "424242", "tokenId": "tok"},
        {"amount": "1250", "binCard": "42", "tokenId": "tok"},
    ],
)
def test_surcharge_rate_refuses_bad_queries(s_client, params):
    response = call(s_client, "surcharge.rate", params=params)
    assert response.status_code == 400 and body(response)["response"]["code"] == 900


def test_acknowledgment(s_client, b_client):
    paragraphs = body(call(s_client, "surcharge.acknowledgment"))
    assert "data" not in paragraphs and len(paragraphs) >= 3
    assert "3.00%" in "".join(paragraphs.values())
    text = body(call(b_client, "surcharge.acknowledgment", params={"type": "text"}))["text"]
    assert "2.50%" in text and "\n\n" in text
    assert call(b_client, "surcharge.acknowledgment", params={"type": "xml"}).status_code == 400


def test_taxes_are_a_bare_array_of_percentages(s_client, b_client):
    taxes = body(call(s_client, "tax.list"))
    assert isinstance(taxes, list) and len(taxes) == 3
    assert {Decimal("6.25"), Decimal("2.00")} <= {t["rate"] for t in taxes}
    assert all(set(t) == {"id", "name", "rate"} for t in taxes)
    assert not {t["id"] for t in taxes} & {t["id"] for t in body(call(b_client, "tax.list"))}
