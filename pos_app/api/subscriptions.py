"""Subscriptions (reference 4.5): ``PaymentsClient.subscriptions``. Models, request bodies
and parsers are in ``pos_app.api.subscription_models``.

Every id, body and filter is checked before a request leaves (``InvalidInput``, nothing
sent). The list's ``amount`` filter is the one trap of the family: the service reads it
in dollars (reference 2.1), so cents are converted through ``pos_app.api.units``.

A refused transition (pause, resume, cancel, update of a subscription whose state does
not allow it) is 400 with the service's sentence: it arrives as ``TransitionRefused``,
which keeps that sentence as ``text``.

``retry`` charges a schedule entry with a GET. It moves money (``Route.moves_money``), so
the client's transport sends it once, never again on its own, whatever the answer (the
refusal to retry is logged); it needs an attempt id, which rides in the user-agent. Its
result is typed: approved, declined or unknown (``RetryResult``). Journaling it (the
attempt row before the send, the lookup of a lost answer) is the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from pos_app.api.caller import Caller
from pos_app.api.customer_models import require_vault_id
from pos_app.api.errors import (
    ApiError,
    GatewayDeclined,
    InvalidInput,
    NotFound,
    ServerError,
    ServiceError,
    StatusError,
    TransportError,
    ValidationFailed,
)
from pos_app.api.models import Page
from pos_app.api.money import require_cents
from pos_app.api.parsing import instance, page_of
from pos_app.api.subscription_models import (
    RetryOutcome,
    RetryResult,
    Subscription,
    SubscriptionChanges,
    SubscriptionDraft,
    SubscriptionStatus,
)
from pos_app.api.units import request_unit, to_wire
from pos_app.i18n import N_, _


class TransitionRefused(ApiError):
    """The service refused to move the subscription (pause of a paused one, cancel of a
    completed one...): 400, ``text`` is the service's sentence."""


SUBSCRIPTION = instance(Subscription)
RETRY = instance(RetryResult)


class Subscriptions:
    """The subscription operations of one ``PaymentsClient``."""

    def __init__(self, client: Caller) -> None:
        self._client = client

    async def list(
        self,
        *,
        statuses: tuple[SubscriptionStatus, ...] = (),
        customer_id: str | None = None,
        plan_id: str | None = None,
        amount: int | None = None,
        page: int | None = None,
        limit: int | None = None,
        sort: str | None = None,
    ) -> Page[Subscription]:
        """One page (entries without their schedule). ``statuses`` empty: the service hides
        inactive subscriptions; name ``INACTIVE`` to see them. ``amount`` in cents matches
        the subscription amount exactly (sent in dollars, as the service reads it)."""
        for name, value in (("page", page), ("limit", limit)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInput(_("{name} must be a whole number from 1, got {value!r}").format(
                    name=name, value=value))
        if not all(isinstance(s, SubscriptionStatus) for s in statuses):
            raise InvalidInput(_("statuses must be of {known}, got {statuses!r}").format(
                known=", ".join(SubscriptionStatus), statuses=statuses))
        query: dict[str, Any] = {
            "status": ",".join(statuses) or None,
            "customerId": None if customer_id is None else require_vault_id(customer_id, field="customerId"),
            "planId": plan_id,
            "amount": None if amount is None else to_wire(require_cents(amount), request_unit("subscription.list")),
            "page": page,
            "limit": limit,
            "sort": sort,
        }
        return await self._client.call("subscription.list", page_of(Subscription), query=query)

    async def create(self, draft: SubscriptionDraft) -> Subscription:
        return await self._client.call("subscription.create", SUBSCRIPTION, body=draft.wire())

    async def get(self, subscription_id: str) -> Subscription:
        """The subscription with its schedule and counters."""
        return await self._client.call("subscription.get", SUBSCRIPTION, path_params={"id": _id(subscription_id)})

    async def update(self, subscription_id: str, changes: SubscriptionChanges) -> Subscription:
        body = changes.wire()
        if not body:
            raise InvalidInput(_("nothing to update: give at least one field"))
        return await _moved(self._client.call("subscription.update", SUBSCRIPTION,
                                              path_params={"id": _id(subscription_id)}, body=body))

    async def cancel(self, subscription_id: str) -> Subscription:
        """Delete: the subscription becomes inactive (future entries removed, past kept; it
        stays readable). Refused for a completed or incomplete one."""
        return await _moved(self._client.call("subscription.delete", SUBSCRIPTION,
                                              path_params={"id": _id(subscription_id)}))

    async def pause(self, subscription_id: str) -> Subscription:
        """Only a running subscription with no future entry already paid: future entries
        are removed, ``next_payment`` becomes None."""
        return await _moved(self._client.call("subscription.pause", SUBSCRIPTION,
                                              path_params={"subscriptionId": _id(subscription_id)}))

    async def resume(self, subscription_id: str) -> Subscription:
        """A paused subscription runs again; the schedule restarts from the resume date
        (payments inside the pause are skipped, not caught up)."""
        return await _moved(self._client.call("subscription.resume", SUBSCRIPTION,
                                              path_params={"subscriptionId": _id(subscription_id)}))

    async def retry(self, schedule_id: str, *, attempt_id: str) -> RetryResult:
        """Charge one unpaid schedule entry now (the customer's default method). Sent once.

        Approved or declined when the answer proves it; unknown when the request may have
        been processed and no answer says how (a lost answer, a 5xx): look it up, never
        send it again on your own. A 4xx refusal (an entry already paid, an unknown id)
        raises its ``ApiError``: nothing was charged. So does a transport failure before
        the request left (``request_sent`` False).
        """
        path = {"scheduleId": _id(schedule_id, what=N_("schedule id"))}
        try:
            result = await self._client.call("subscription.retry", RETRY, path_params=path, attempt_id=attempt_id)
        except GatewayDeclined as error:
            return RetryResult(RetryOutcome.DECLINED, schedule_id, reason=error.text or str(error))
        except ServerError as error:
            return RetryResult(RetryOutcome.UNKNOWN, schedule_id, reason=_("the service failed: {error}").format(
                error=error))
        except TransportError as error:
            if not error.request_sent:
                raise
            return RetryResult(RetryOutcome.UNKNOWN, schedule_id, reason=str(error), answered=False)
        return RetryResult(result.outcome, schedule_id, entry=result.entry, subscription_id=result.subscription_id,
                           reason=result.reason)


async def _moved(sent: Awaitable[Subscription]) -> Subscription:
    """The subscription a state-changing call answered; a 400 that is no field validation
    is the service refusing the transition: ``TransitionRefused`` with its sentence."""
    try:
        subscription = await sent
    except (ValidationFailed, NotFound):
        raise
    except (ServiceError, StatusError) as error:
        if error.status_code != 400:
            raise
        raise TransitionRefused(error.status_code, code=error.code, text=error.text, messages=error.messages,
                                path=error.path, body=error.body) from error
    return subscription


def _id(value: object, *, what: str = N_("subscription id")) -> str:
    """A subscription or schedule entry id: non-empty text (the service's own ids)."""
    if not isinstance(value, str) or not value.strip() or "/" in value:
        raise InvalidInput(_("{what} must be a non-empty id, got {value!r}").format(what=_(what), value=value))
    return value
