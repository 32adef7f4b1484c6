"""Customer vaults (reference 4.4): ``PaymentsClient.customers``. Models, request bodies
and parsers are in ``pos_app.api.customer_models`` (vaults and cards) and
``pos_app.api.vault_models`` (ACH accounts, bulk delete, links, CSV).

Every id and body is checked before a request leaves (``InvalidInput``, nothing sent).
The service answers 400 for every failure of the card operations (an unknown customer or
method too) and for an update of an unknown id; they arrive as ``ApiError`` with the
service's text. None of these calls moves money: charging a vault's card is a
money-moving call that goes through the journal (a later slice).

An update request or invitation answers ``LinkQueued``: the link is queued, not delivered.
A bulk delete is not atomic: its 400 is ``BulkDeleteFailed`` (what was deleted, what was
not and why). A CSV import is all-or-nothing: its 400 is ``ImportRejected`` with the
failing line numbers. Export and template answer the CSV's bytes as they came.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos_app.api.caller import Caller, RawAnswer
from pos_app.api.customer_models import (
    Customer,
    CustomerChanges,
    CustomerDraft,
    PaymentMethod,
    VaultCard,
    require_method_id,
    require_vault_id,
)
from pos_app.api.errors import ApiError, InvalidInput, ProtocolError
from pos_app.api.models import Page
from pos_app.api.multipart import FormFile, form_files
from pos_app.api.parsing import instance, page_of, parse_answer
from pos_app.api.vault_models import (
    AchAccount,
    BulkDeleted,
    LinkContact,
    LinkExpiry,
    LinkNotQueued,
    LinkQueued,
    bulk_delete_failure,
    check_csv_type,
    import_rejection,
    link_body,
    require_vault_ids,
)
from pos_app.i18n import _

CUSTOMER = instance(Customer)
METHOD = instance(PaymentMethod)
QUEUED = instance(LinkQueued)


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
            raise InvalidInput(_("page must be a whole number from 1, got {page!r}").format(page=page))
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidInput(_("limit must be a whole number from 0 (0: every vault), got {limit!r}").format(
                limit=limit))
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
            raise InvalidInput(_("nothing to update: give at least one field"))
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

    async def bulk_delete(self, customer_ids: Sequence[str]) -> BulkDeleted:
        """Soft-delete several vaults. Not atomic: a 400 is ``BulkDeleteFailed``, naming the
        ids not deleted (and those that were, when the service says)."""
        body = {"itemList": require_vault_ids(customer_ids)}
        try:
            done = await self._client.call("customer.bulk_delete", instance(BulkDeleted), body=body)
        except ApiError as error:
            if error.status_code == 400:
                raise bulk_delete_failure(error) from error
            raise
        if done.success is not True:
            raise ApiError(200, text=_("the service did not confirm the deletes (success false)"))
        return done

    async def add_ach(self, customer_id: str, account: AchAccount) -> PaymentMethod:
        """Store a bank account (``type`` ach; only its last 4 come back); the first method
        of an empty vault becomes its default."""
        return await self._client.call("customer.ach_add", METHOD, path_params=_vault(customer_id),
                                       body=account.wire())

    async def replace_ach(self, customer_id: str, method_id: str, account: AchAccount) -> PaymentMethod:
        """Replace a bank account with the complete payload. The answer's
        ``customer_vault_id`` may be new: use it from now on."""
        return await self._client.call("customer.ach_replace", METHOD, path_params=_method(customer_id, method_id),
                                       body=account.wire())

    async def set_default_ach(self, customer_id: str, method_id: str) -> Customer:
        """Make a bank account the default (the same route as ``set_default``: the type is unchecked)."""
        return await self._client.call("customer.ach_default", CUSTOMER, path_params=_method(customer_id, method_id))

    async def request_update(self, customer_id: str, contact: LinkContact, expiry: LinkExpiry) -> LinkQueued:
        """Queue a link for an existing customer to update their payment details, sent to
        ``contact`` only (never to the vault's stored email or phone)."""
        return _queued(await self._client.call("customer.update_request", QUEUED, path_params=_vault(customer_id),
                                               body=link_body(contact, expiry)))

    async def request_updates(self, customer_ids: Sequence[str], expiry: LinkExpiry) -> LinkQueued:
        """Queue update links for several vaults, each to its stored email and/or phone (the
        service skips vaults without either)."""
        body = {"itemList": require_vault_ids(customer_ids), **expiry.wire()}
        return _queued(await self._client.call("customer.bulk_update_request", QUEUED, body=body))

    async def invite(self, contact: LinkContact, expiry: LinkExpiry) -> LinkQueued:
        """Queue a link for a new customer to enter their payment details."""
        return _queued(await self._client.call("customer.invitation", QUEUED, body=link_body(contact, expiry)))

    async def export_csv(self, *, timezone: str | None = None) -> bytes:
        """Every vault as CSV, as the service wrote it (its ``Date`` column in ``timezone``)."""
        return _csv(await self._client.exchange("customer.export", query={"timezone": timezone}))

    async def template_csv(self) -> bytes:
        """The import template (with the live customers, one row each, when there are any)."""
        return _csv(await self._client.exchange("customer.template"))

    async def import_csv(self, content: bytes, *, file_name: str = "customers.csv") -> None:
        """Import a CSV (columns by position, first row skipped; a Unique ID updates that
        customer). All-or-nothing: a 400 is ``ImportRejected`` with the failing lines."""
        if not content.strip():
            raise InvalidInput(_("{file} is empty: nothing to import").format(file=file_name))
        try:
            upload = form_files("file", [FormFile(file_name, "text/csv", content)])
            answer = await self._client.exchange("customer.import", body=upload)
        except ApiError as error:
            if error.status_code == 400:
                raise import_rejection(error) from error
            raise
        if not parse_answer("customer.import", answer.content, instance(bool), status_code=answer.status_code):
            raise ApiError(answer.status_code, text=_("the service did not take the import (success false)"))


def _queued(answer: LinkQueued) -> LinkQueued:
    if answer.success is not True:
        raise LinkNotQueued(200, text=answer.message or _("the service queued no link (success false)"))
    return answer


def _csv(answer: RawAnswer) -> bytes:
    try:
        check_csv_type(answer.content_type)
    except ValueError as error:
        raise ProtocolError(str(error), raw=answer.content[:2000], status_code=answer.status_code) from error
    return answer.content


def _vault(customer_id: str) -> dict[str, str]:
    return {"id": require_vault_id(customer_id)}


def _method(customer_id: str, method_id: str) -> dict[str, str]:
    return {"id": require_vault_id(customer_id), "customerVaultId": require_method_id(method_id)}
