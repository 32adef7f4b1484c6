"""The slip of an approved capture, void or refund (a terminal's, or one by payment id on the
service's card-on-file and ACH routes): the operation's result and the payment
it acted on (``ActedOn``: a row of the day's payments, or an open pre-auth) as ``SlipData``,
in the station's local time, TRAINING when so. No Qt.

What each slip says it moved:

- a capture: the amount captured, and the card surcharge the service added to it (read from
  the payment; "not known" on the slip when it cannot be read, or the payment does not show
  that amount);
- a void: the service's amount voided and the payment's surcharge, given back with it;
- a refund: the amount given back (the sale's amount: the terminal refund returns no
  surcharge).

``SlipData`` refuses amounts that do not add up with the payment (``ValueError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import PaymentsError
from pos_app.config import StoreConfig
from pos_app.i18n import _
from pos_app.journal import Operation, Outcome
from pos_app.journal.words import operation_name, outcome_name
from pos_app.receipts import SlipData, SlipKind
from pos_app.station.payments import PaymentRow
from pos_app.terminal.outcomes import OperationResult

KINDS = {Operation.CAPTURE: SlipKind.CAPTURE, Operation.VOID: SlipKind.VOID, Operation.REFUND: SlipKind.REFUND}


@dataclass(frozen=True)
class ActedOn:
    """The payment a capture, void or refund acted on, as its slip names it."""

    total: int
    """What it charged (its surcharge included), or what a pre-auth held, in cents."""
    surcharge: int = 0
    refunded: int = 0
    """The sale's amount refunded before, in cents."""
    card_brand: str = ""
    card_last4: str = ""
    transaction_id: str = ""
    payment_id: str = ""
    preauth: bool = False

    @classmethod
    def of_row(cls, row: PaymentRow) -> ActedOn:
        """A payment of the back office's list (a sale, or a pre-auth voided)."""
        return cls(row.total, row.surcharge, row.refunded, row.card_brand or "", row.card_last4 or "",
                   row.transaction_id or "", row.payment_id or "", row.operation is Operation.PREAUTH)

    @classmethod
    def of_preauth(cls, preauth: OperationResult) -> ActedOn:
        """An open pre-auth (Ctrl+T): what it held, on which card."""
        return cls(preauth.charged or 0, card_brand=preauth.card_brand or "", card_last4=preauth.card_last4 or "",
                   transaction_id=preauth.transaction_id or "", payment_id=preauth.payment_id or "", preauth=True)


async def slip_of(result: OperationResult, acted_on: ActedOn, config: StoreConfig, client: PaymentsClient, *,
                  cashier: str, manager: str = "", training: bool, when: datetime | None = None) -> SlipData:
    """The slip of ``result``, an approved capture, void or refund of ``acted_on``;
    ``ValueError`` for any other result, or amounts that do not add up."""
    kind = KINDS.get(result.operation.acts_as)  # a card on file's or an ACH payment's as a terminal's
    if kind is None or result.outcome is not Outcome.APPROVED or result.refusal is not None:
        raise ValueError(_("only an approved capture, void or refund has a slip, not a {outcome} {operation}").format(
            outcome=outcome_name(result.outcome), operation=operation_name(result.operation)))
    surcharge: int | None = 0
    if kind is SlipKind.VOID:
        surcharge = acted_on.surcharge
    elif kind is SlipKind.CAPTURE:
        surcharge = await _capture_surcharge(client, result.payment_id or acted_on.payment_id, result.charged)
    amount = result.charged
    if amount is None:  # a void answered without its amount: the payment's
        amount = acted_on.total - acted_on.surcharge if kind is SlipKind.VOID else 0
    return SlipData(
        kind=kind, store_name=config.store_name or config.store_id, store_id=config.store_id,
        station=config.station_id, cashier=cashier, manager=manager,
        when=(when or datetime.now()).astimezone(),  # the store's clock
        card_brand=result.card_brand or acted_on.card_brand, card_last4=result.card_last4 or acted_on.card_last4,
        original_cents=acted_on.total, original_surcharge_cents=acted_on.surcharge, amount_cents=amount,
        surcharge_cents=surcharge, refunded_before_cents=acted_on.refunded if kind is SlipKind.REFUND else 0,
        of_preauth=acted_on.preauth, auth_ref=result.transaction_id or "",
        original_ref=result.ref or acted_on.transaction_id, payment_id=result.payment_id or acted_on.payment_id,
        currency=config.currency, locale=config.locale, training=training,
    )


async def _capture_surcharge(client: PaymentsClient, payment_id: str, captured: int | None) -> int | None:
    """The surcharge the service put on the captured payment; None when it cannot be read, or
    the payment does not show the amount captured (then its surcharge may be another's)."""
    if not payment_id or captured is None:
        return None
    try:
        payment = await client.get_payment(payment_id)
    except PaymentsError:
        return None
    if payment.amount != captured or payment.net_amount is None:
        return None
    return payment.surcharge
