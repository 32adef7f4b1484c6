"""The customer's itemized receipt of a paid cart: what was bought, the taxes (named, adding
up to the tax charged), the card surcharge the service added, the card and the
authorization, in the station's local time, TRAINING when so."""

from __future__ import annotations

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import PaymentsError
from pos_app.config import StoreConfig
from pos_app.journal import Operation
from pos_app.receipts import ReceiptData, ReceiptLine, TaxLine
from pos_app.station.order import PaidCart


async def receipt_of(paid: PaidCart, config: StoreConfig, client: PaymentsClient, *, training: bool) -> ReceiptData:
    """The receipt data; the surcharge is read from the payment (0 when it cannot be read:
    the receipt then says the card total as the terminal charged it is on the card slip)."""
    result = paid.result
    surcharge = 0
    if result.payment_id:
        try:
            surcharge = (await client.get_payment(result.payment_id)).surcharge
        except PaymentsError:
            surcharge = 0
    totals = paid.totals
    taxes = [TaxLine(name, cents) for name, cents in totals.breakdown.items() if cents]
    return ReceiptData(
        store_name=config.store_name or config.store_id, store_id=config.store_id, station=config.station_id,
        cashier=paid.cashier,
        lines=[ReceiptLine(line.name, line.quantity, line.unit_cents, line.unit_cents * line.quantity)
               for line in paid.lines],
        subtotal_cents=totals.subtotal, taxes=taxes, surcharge_cents=surcharge,
        total_cents=totals.total + surcharge, card_brand=result.card_brand or "Card",
        card_last4=result.card_last4 or "", auth_ref=result.transaction_id or "",
        payment_id=result.payment_id or "", when=paid.when.astimezone(),  # the store's clock, not UTC
        currency=config.currency, locale=config.locale, training=training,
        transaction_type="PRE-AUTH" if result.operation is Operation.PREAUTH else "SALE",
    )
