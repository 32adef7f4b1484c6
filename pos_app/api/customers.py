"""Customer vaults (reference 4.4): ``PaymentsClient.customers``. Models, request bodies
and parsers are in ``pos_app.api.customer_models``.

Every id and body is checked before a request leaves (``InvalidInput``, nothing sent).
The service answers 400 for every failure of the card operations (an unknown customer or
method too) and for an update of an unknown id; they arrive as ``ApiError`` with the
service's text. None of these calls moves money: charging a vault's card is a
money-moving call that goes through the journal (a later slice).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pos_app.api.customer_models import (
    Customer,
    CustomerChanges,
    CustomerDraft,
    PaymentMethod,
    VaultCard,
    require_method_id,
    require_vault_id,
)
from pos_app.api.errors import InvalidInput
from pos_app.api.models import Page
from pos_app.api.parsing import Expect, instance, page_of


class Caller(Protocol):
    """What a family's methods need of ``PaymentsClient``: its ``call`` (no import of the
    client here, so no import circle)."""

    async def call[R](
        self,
        route_name: str,
        expect: Expect[R],
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> R: ...

CUSTOMER = instance(Customer)
METHOD = instance(PaymentMethod)


class CustomerVaults:
    """The customer vault operations of one ``PaymentsClient``."""

    def __init__(self, client: Caller) -> None:
        self._client = client

    async def list(
        self,
        *,
        keyword: str | None = None,
        page: int | None = None,
        limit: int | None = None,
        sort: str | None = None,
        start_day: str | None = None,
        end_day: str | None = None,
    ) -> Page[Customer]:
        """One page of vaults; ``keyword`` matches name, email, phone, company, external id
        and card last four; ``limit=0`` answers every vault."""
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
            raise InvalidInput(f"page must be a whole number from 1, got {page!r}")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidInput(f"limit must be a whole number from 0 (0: every vault), got {limit!r}")
        query: dict[str, Any] = {"keyword": keyword or None, "page": page, "limit": limit, "sort": sort,
                                 "startDay": start_day, "endDay": end_day}
        return await self._client.call("customer.list", page_of(Customer), query=query)

    async def create(self, draft: CustomerDraft) -> Customer:
        return await self._client.call("customer.create", CUSTOMER, body=draft.wire())

    async def get(self, customer_id: str) -> Customer:
        """The vault with all its payment methods (also a soft-deleted one: ``deleted_at``)."""
        return await self._client.call("customer.get", CUSTOMER, path_params=_vault(customer_id))

    async def update(self, customer_id: str, changes: CustomerChanges) -> Customer:
        body = changes.wire()
        if not body:
            raise InvalidInput("nothing to update: give at least one field")
        return await self._client.call("customer.update", CUSTOMER, path_params=_vault(customer_id), body=body)

    async def delete(self, customer_id: str) -> Customer:
        """Soft delete: the answer has ``deleted_at``; the service cancels the customer's
        subscriptions asynchronously."""
        return await self._client.call("customer.delete", CUSTOMER, path_params=_vault(customer_id))

    async def add_card(self, customer_id: str, card: VaultCard) -> PaymentMethod:
        """The stored method; the first method of an empty vault becomes its default."""
        return await self._client.call("customer.card_add", METHOD, path_params=_vault(customer_id),
                                       body=card.wire())

    async def update_card(self, customer_id: str, method_id: str, card: VaultCard) -> PaymentMethod:
        """Replace a card. The answer's ``customer_vault_id`` may differ from ``method_id``
        (the card is re-vaulted): use the answer's from now on."""
        return await self._client.call("customer.card_update", METHOD,
                                       path_params=_method(customer_id, method_id), body=card.wire())

    async def delete_card(self, customer_id: str, method_id: str) -> Customer:
        """Hard delete; the vault after it (a deleted default promotes the first remaining
        method). A card a subscription uses is refused (400, the blocking ids in the error)."""
        return await self._client.call("customer.card_delete", CUSTOMER, path_params=_method(customer_id, method_id))

    async def set_default(self, customer_id: str, method_id: str) -> Customer:
        """Make any stored method (card or ACH account: one default slot) the default."""
        return await self._client.call("customer.card_default", CUSTOMER,
                                       path_params=_method(customer_id, method_id))


def _vault(customer_id: str) -> dict[str, str]:
    return {"id": require_vault_id(customer_id)}


def _method(customer_id: str, method_id: str) -> dict[str, str]:
    return {"id": require_vault_id(customer_id), "customerVaultId": require_method_id(method_id)}
