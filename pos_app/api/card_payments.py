"""Card payments (reference 4.3): ``PaymentsClient.cards``. Models, request bodies and
parsers are in ``pos_app.api.charge_models``.

Every one of these calls may move money: each needs the attempt id the journal gave it
(it rides in the user-agent), and none is ever retried by the client. A decline inside a
2xx answer (``error`` set, ``paid`` not true) raises ``GatewayDeclined`` with the answer,
as a 501 does; a 901-906 arrives as ``ChargeRequestError``. Whatever else comes back is
returned as it came: the terminal layer decides what it proves
(``pos_app.terminal.charges``), never this module.
"""

from __future__ import annotations

from typing import Any

from pos_app.api.caller import Caller
from pos_app.api.charge_models import (
    BulkCharge,
    BulkQueued,
    CardCapture,
    CardCharge,
    ChargeAnswer,
    PaymentRefund,
    PaymentVoid,
)
from pos_app.api.errors import GatewayDeclined
from pos_app.api.parsing import instance

ANSWER = instance(ChargeAnswer)




async def send_payment(client: Caller, route_name: str, body: dict[str, Any], attempt_id: str) -> ChargeAnswer:
    """One money-moving request whose answer is a payment; a stated decline raises."""
    answer = await client.call(route_name, ANSWER, body=body, attempt_id=attempt_id)
    if answer.declined:
        raise GatewayDeclined(200, text=answer.decline_text, transaction_id=answer.transaction_id, result=answer)
    return answer


class CardPayments:
    """The card payment operations of one ``PaymentsClient``."""

    def __init__(self, client: Caller) -> None:
        self._client = client

    async def charge(self, request: CardCharge, *, attempt_id: str) -> ChargeAnswer:
        """A charge (``capture`` False: a pre-auth), of a card or a customer's card on file."""
        return await send_payment(self._client, "card.charge", request.wire(), attempt_id)

    async def capture(self, request: CardCapture, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "card.capture", request.wire(), attempt_id)

    async def void(self, request: PaymentVoid, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "card.void", request.wire(), attempt_id)

    async def refund(self, request: PaymentRefund, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "card.refund", request.wire(), attempt_id)

    async def bulk_charge(self, request: BulkCharge, *, attempt_id: str) -> BulkQueued:
        """Queue one charge per entry; the answer only says it was queued. Each charge is
        found later by its order's ``externalId`` in the transaction list."""
        return await self._client.call("card.bulk_charge", instance(BulkQueued), body=request.wire(),
                                       attempt_id=attempt_id)
