"""ACH payments (reference 4.2): ``PaymentsClient.ach``. Charge, refund and void move
money and take the journal's attempt id (see ``pos_app.api.card_payments``); the list is a
plain read. Refunds need a settled payment (and 6 minutes after the charge), a void an
unsettled one: the service says which, the app does not guess.
"""

from __future__ import annotations

import re
from typing import Any

from pos_app.api.caller import Caller
from pos_app.api.card_payments import send_payment
from pos_app.api.charge_models import AchCharge, AchPayment, ChargeAnswer, PaymentRefund, PaymentVoid
from pos_app.api.errors import InvalidInput
from pos_app.api.models import Page
from pos_app.api.parsing import page_of
from pos_app.i18n import _

DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class AchPayments:
    """The ACH operations of one ``PaymentsClient``."""

    def __init__(self, client: Caller) -> None:
        self._client = client

    async def charge(self, request: AchCharge, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "ach.charge", request.wire(), attempt_id)

    async def refund(self, request: PaymentRefund, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "ach.refund", request.wire(), attempt_id)

    async def void(self, request: PaymentVoid, *, attempt_id: str) -> ChargeAnswer:
        return await send_payment(self._client, "ach.void", request.wire(), attempt_id)

    async def list(
        self, *, page: int | None = None, limit: int | None = None, last4: str | None = None,
        authorization_number: str | None = None, start_day: str | None = None, end_day: str | None = None,
    ) -> Page[AchPayment]:
        """One page of ACH payments (only ACH: card payments are not in it)."""
        for name, value in (("page", page), ("limit", limit)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInput(_("{name} must be a whole number from 1, got {value!r}").format(
                    name=name, value=value))
        if last4 is not None and not re.fullmatch(r"[0-9]{4}", last4):
            raise InvalidInput(_("achLast4 must be four digits, got {last4!r}").format(last4=last4))
        for name, day in (("startDay", start_day), ("endDay", end_day)):
            if day is not None and not DAY.fullmatch(day):
                raise InvalidInput(_("{name} must be a day as YYYY-MM-DD, got {day!r}").format(name=name, day=day))
        query: dict[str, Any] = {"page": page, "limit": limit, "achLast4": last4,
                                 "authorizationNumber": authorization_number, "startDay": start_day, "endDay": end_day}
        return await self._client.call("ach.list", page_of(AchPayment), query=query)
