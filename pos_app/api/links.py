"""Payment links: ``PaymentsClient.links`` (the dated routes, version 202104, reference
4.6) and ``PaymentsClient.old_links`` (the deprecated routes, 4.9). Both answer the same
models in cents (``pos_app.api.link_models``); only the wire units differ, and the
deprecated create refuses an amount that is not whole dollars before sending it.

Every id, address and file is checked before a request leaves (``InvalidInput``, nothing
sent). None of these calls moves money: a link is paid by its customer, on the service's
page; ``PaymentLink.is_paid`` and ``payment_id`` say when and by which payment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos_app.api.attachments import LINK_LIMITS, AttachmentFile, UploadedFiles
from pos_app.api.caller import Caller
from pos_app.api.errors import InvalidInput
from pos_app.api.link_models import (
    DeletedLink,
    LinkDraft,
    LinkSent,
    PaymentLink,
    require_email,
    require_link_id,
    require_phone_number,
)
from pos_app.api.models import Page
from pos_app.api.parsing import instance, page_of
from pos_app.api.uploads import upload
from pos_app.i18n import _

LINK = instance(PaymentLink)
DELETED = instance(DeletedLink)
SENT = instance(LinkSent)


class PaymentLinks:
    """The payment link operations of one ``PaymentsClient``, on the routes of ``version``
    (``link``: dated 202104; ``old_link``: deprecated)."""

    def __init__(self, client: Caller, version: str = "link") -> None:
        if version not in ("link", "old_link"):
            raise ValueError(f"unknown payment link version {version!r}")  # not for people: a caller's bug
        self._client = client
        self._version = version

    def _route(self, operation: str) -> str:
        return f"{self._version}.{operation}"

    async def list(self, *, page: int | None = None, limit: int | None = None) -> Page[PaymentLink]:
        """One page of links (deleted ones are left out by the service)."""
        for name, value in (("page", page), ("limit", limit)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInput(_("{name} must be a whole number from 1, got {value!r}").format(
                    name=name, value=value))
        return await self._client.call(self._route("list"), page_of(PaymentLink), query={"page": page, "limit": limit})

    async def create(self, draft: LinkDraft) -> PaymentLink:
        route = self._route("create")
        return await self._client.call(route, LINK, body=draft.wire_for(route))

    async def get(self, link_id: str) -> PaymentLink:
        return await self._client.call(self._route("get"), LINK, path_params={"id": require_link_id(link_id)})

    async def delete(self, link_id: str) -> DeletedLink:
        """The raw payment-request document the service answers: ``active`` false, ``deleted_at`` set."""
        return await self._client.call(self._route("delete"), DELETED, path_params={"id": require_link_id(link_id)})

    async def send(self, link_id: str, *, email: str | None = None, phone: str | None = None) -> LinkSent:
        """Send the link by email or by SMS: exactly one of ``email`` and ``phone``."""
        if (email is None) == (phone is None):
            raise InvalidInput(_("send a payment link to exactly one of an email address or a phone number"))
        if email is not None:
            return await self.send_email(link_id, email)
        assert phone is not None
        return await self.send_sms(link_id, phone)

    async def send_email(self, link_id: str, email: str) -> LinkSent:
        body = {"email": require_email(email), "paymentLinkId": require_link_id(link_id)}
        return await self._send("send_email", body)

    async def send_sms(self, link_id: str, phone: str) -> LinkSent:
        body = {"phoneNumber": require_phone_number(phone), "paymentLinkId": require_link_id(link_id)}
        return await self._send("send_sms", body)

    async def _send(self, operation: str, body: dict[str, Any]) -> LinkSent:
        return await self._client.call(self._route(operation), SENT, body=body)

    async def upload_attachments(self, files: Sequence[AttachmentFile]) -> UploadedFiles:
        """Upload files for a link's ``attachments`` (JPG, PNG, PDF; 10 files, 25 MB in all)."""
        return await upload(self._client, self._route("upload_attachments"), files, LINK_LIMITS)
