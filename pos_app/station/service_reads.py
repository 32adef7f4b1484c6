"""What the service says of one card payment, read where giving money back depends on it:
whether it is settled (then only a refund gives it back, never a void) and the surcharge it
added (what a void gives back beyond the order's part). A read that fails is said, never
guessed: a give-back is not sent on a guess."""

from __future__ import annotations

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import PaymentsError
from pos_app.i18n import _
from pos_app.terminal.outcomes import OperationResult


async def settled(client: PaymentsClient, card: OperationResult) -> bool | str:
    """Whether the service shows ``card``'s payment settled; a sentence when it cannot tell."""
    if not card.payment_id:
        return _("the payment has no id to look it up: refund it from the back office (F9)")
    try:
        payment = await client.get_payment(card.payment_id)
    except PaymentsError as error:
        return _("whether it is settled could not be read ({error})").format(error=error)
    if payment.settled is None:
        return _("the service does not say whether it is settled: refund it from the back office (F9) once it is")
    return bool(payment.settled)


async def surcharge_of(client: PaymentsClient, card: OperationResult) -> int:
    """Cents of surcharge the service added to ``card``'s payment; 0 when it cannot be read."""
    if not card.payment_id:
        return 0
    try:
        return (await client.get_payment(card.payment_id)).surcharge
    except PaymentsError:
        return 0
