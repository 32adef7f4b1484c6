"""The customer's itemized receipt of a paid cart: what was bought, the taxes (named, adding
up to the tax charged), the card surcharge the service added, every tender (each card with
its authorization, the cash handed over, a payment link with its payment) and the change, in the station's local time,
TRAINING when so."""

from __future__ import annotations

from pos_app.api.client import PaymentsClient
from pos_app.config import StoreConfig
from pos_app.journal import Operation
from pos_app.receipts import ReceiptData, ReceiptLine, ReceiptTender, TaxLine, TenderKind
from pos_app.station.order import PaidCart, Tender
from pos_app.station.service_reads import surcharge_of


async def receipt_of(paid: PaidCart, config: StoreConfig, client: PaymentsClient, *, training: bool) -> ReceiptData:
    """The receipt data; each card's surcharge is read from its payment (0 when it cannot
    be read: the card total as the terminal charged it is then on the card slip)."""
    tenders: list[ReceiptTender] = []
    surcharges = 0
    for line in paid.payments:
        card = line.card
        if line.tender is Tender.CASH:
            tenders.append(ReceiptTender(TenderKind.CASH, line.tendered if line.tendered is not None else line.counted))
            continue
        if line.tender is Tender.LINK and line.link is not None:
            surcharges += line.link.surcharge
            tenders.append(ReceiptTender(TenderKind.LINK, line.counted + line.link.surcharge,
                                         payment_id=line.link.payment_id or ""))
            continue
        assert card is not None
        surcharge = await surcharge_of(client, card)
        surcharges += surcharge
        tenders.append(ReceiptTender(TenderKind.CARD, line.counted + surcharge, card_brand=card.card_brand or "",
                                     card_last4=card.card_last4 or "", auth_ref=card.transaction_id or "",
                                     payment_id=card.payment_id or "", on_file=line.on_file))
    totals = paid.totals
    taxes = [TaxLine(name, cents) for name, cents in totals.breakdown.items() if cents]
    preauth = paid.result is not None and paid.result.operation is Operation.PREAUTH
    return ReceiptData(
        store_name=config.store_name or config.store_id, store_id=config.store_id, station=config.station_id,
        cashier=paid.cashier,
        lines=[ReceiptLine(line.name, line.quantity, line.unit_cents, line.unit_cents * line.quantity)
               for line in paid.lines],
        subtotal_cents=totals.subtotal, taxes=taxes, surcharge_cents=surcharges,
        total_cents=totals.total + surcharges, tenders=tenders, change_cents=paid.change,
        owed_cents=paid.overcharged, when=paid.when.astimezone(),  # the store's clock, not UTC
        customer=paid.customer.name if paid.customer is not None else "",
        currency=config.currency, locale=config.locale, training=training,
        transaction_type="PRE-AUTH" if preauth else "SALE",
    )
