"""Payment reads and the merchant's money facts: single payment, receipt PDF,
surcharge quote, surcharge acknowledgment and the tax list (the transaction list is in
``transactions``).

These routes only read what the terminal routes recorded; the JSON shapes follow the
reference's field lists (section 2) and the POS contract.
"""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pos_app.api.money import percent_of
from pos_app.money import money_format
from pos_app.sandbox.merchants import brand_for_bin, card_for_bin
from pos_app.sandbox.protocol import Call, Reply, invalid, iso_time, not_found
from pos_app.sandbox.receipts import Receipt, render_receipt
from pos_app.sandbox.records import Payment
from pos_app.sandbox.validation import Fields

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

CURRENCY = "USD"
"""The sandbox's merchants are US stores: their payments are in dollars, their receipts in en_US."""
_QUOTE_AMOUNT = re.compile(r"^[0-9]{1,8}$")
_BIN = re.compile(r"^[0-9]{6,8}$")
_RECEIPT_STATUS = {
    "auth": "APPROVED (PRE-AUTH)",
    "captured": "APPROVED",
    "declined": "DECLINED",
    "voided": "VOIDED",
    "refunded": "REFUNDED",
    "partially_refunded": "PARTIALLY REFUNDED",
}


def _find(book: Book, payment_id: str) -> Payment:
    payment = book.payments.get(payment_id)
    if payment is None:
        raise not_found(f"payment {payment_id} not found")
    return payment


def payment_json(payment: Payment) -> dict:
    merchant = payment.merchant
    return {
        "id": payment.id,
        "transactionId": payment.transaction_id,
        "amount": payment.amount,
        "netAmount": payment.net_amount,
        "surcharge": payment.surcharge,
        "refundedAmount": payment.refunded,
        "currency": CURRENCY,
        "paid": payment.paid,
        "status": payment.status,
        "settled": payment.settled,
        "error": payment.error,
        "card": None if payment.sale.ach else {
            "last4": payment.card.last4,
            "network": payment.card.network,
            "brand": payment.card.brand,
            "type": payment.card.type,
        },
        **({"ach": payment.sale.ach} if payment.sale.ach else {}),
        **({"order": {"externalId": payment.sale.external_id}} if payment.sale.external_id else {}),
        "terminalId": payment.sale.terminal.id,
        "orderNumber": payment.sale.order_number,
        "contact": {"email": payment.sale.email, "phone": payment.sale.phone},
        "sendReceipt": payment.sale.receipt,
        "receiptSentTo": _receipt_targets(payment),
        "taxes": list(payment.sale.taxes),
        "customValues": list(payment.sale.custom_values),
        "clientId": merchant.client_id,
        "clientName": merchant.name,
        "owner": merchant.client_id,
        "import": False,
        "importAt": None,
        "transactions": [
            {
                "type": step.kind,
                "transactionId": step.transaction_id,
                "amount": step.amount,
                "userAgent": step.user_agent,
                "at": iso_time(step.at),
            }
            for step in payment.follow_ups
        ],
        "createdAt": iso_time(payment.created_at),
        "transactionAt": iso_time(payment.created_at),
        "updatedAt": iso_time(payment.updated_at),
    }


def _receipt_targets(payment: Payment) -> list[str]:
    """Where the receipt went: type S uses email over phone, type B sends to both."""
    sale = payment.sale
    if not sale.receipt:
        return []
    targets = [sale.email or sale.phone] if payment.merchant.is_async else [sale.email, sale.phone]
    return [target for target in targets if target]


def _get_payment(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return Reply(200, {"data": payment_json(_find(book, call.params["id"]))})


def _receipt(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    f = Fields(call.json_object())
    payment_id = f.text("paymentId")
    for_merchant = f.boolean("isForMerchant", required=False)
    f.check()
    assert payment_id is not None
    payment = _find(book, payment_id)
    money = money_format(CURRENCY, "en_US")
    lines = [("Subtotal", money(payment.amount)), ("Surcharge", money(payment.surcharge))]
    if payment.refunded:
        lines.append(("Refunded", money(-payment.refunded)))
    lines.append(("Total", money(payment.net_amount - payment.refunded)))
    card = payment.card
    receipt = Receipt(
        store=book.merchant.name,
        copy_label="CUSTOMER COPY" if for_merchant is False else "MERCHANT COPY",
        date=datetime.fromtimestamp(payment.created_at, UTC).strftime("%Y-%m-%d %H:%M UTC"),
        terminal=payment.sale.terminal.name,
        order_number=payment.sale.order_number,
        lines=tuple(lines),
        card=f"{card.brand} {card.type} **** {card.last4}",
        status=_RECEIPT_STATUS[payment.status],
        auth_ref=payment.transaction_id,
    )
    pdf = base64.b64encode(render_receipt(receipt)).decode("ascii")
    return Reply(201, {"data": {"pdfData": pdf, "encodeType": "base64"}})


def _surcharge_rate(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    merchant, query = book.merchant, call.query
    messages = []
    amount_text = query.get("amount", "")
    if not _QUOTE_AMOUNT.fullmatch(amount_text) or int(amount_text) == 0:
        messages.append("amount must be a positive integer of cents with at most 8 digits")
    bin_digits = query.get("binCard") or None
    if bin_digits is None and merchant.is_async:
        messages.append("binCard should not be empty")
    elif bin_digits is not None and not _BIN.fullmatch(bin_digits):
        messages.append("binCard must be the first 6 (or 8) digits of the card")
    if merchant.is_async and not query.get("tokenId"):
        messages.append("tokenId should not be empty")
    if messages:
        raise invalid(messages)
    card = card_for_bin(bin_digits) if bin_digits else None
    card_type = card.type if card else "credit"
    brand = card.brand if card else (brand_for_bin(bin_digits) if bin_digits else "Unknown")
    rate = merchant.credit_rate if card_type == "credit" else Decimal("0.00")
    surcharge = percent_of(int(amount_text), rate)
    return Reply(200, {"surcharge": surcharge, "rate": rate, "type": card_type, "cardBrand": brand})


def _acknowledgment(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    kind = call.query.get("type", "json")
    paragraphs = book.merchant.acknowledgment()
    if kind == "json":
        return Reply(200, paragraphs)
    if kind == "text":
        return Reply(200, {"text": "\n\n".join(paragraphs.values())})
    raise invalid(["type must be one of json, text"])


def _taxes(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return Reply(200, book.taxes)


HANDLERS = {
    "payment.get": _get_payment,
    "receipt.pdf": _receipt,
    "surcharge.rate": _surcharge_rate,
    "surcharge.acknowledgment": _acknowledgment,
    "tax.list": _taxes,
}
