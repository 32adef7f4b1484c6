"""The attachment uploads of links and subscriptions: each checks its files against its
limits (``pos_app.api.attachments``) and sends nothing when one breaks them. The payment
links' uploads are methods of ``PaymentsClient.links`` and ``.old_links``; the
subscriptions' is ``PaymentsClient.subscription_attachments``."""

from __future__ import annotations

from collections.abc import Sequence

from pos_app.api.attachments import (
    SUBSCRIPTION_LIMITS,
    AttachmentFile,
    AttachmentLimits,
    UploadedFiles,
    checked_upload,
)
from pos_app.api.caller import Caller
from pos_app.api.parsing import instance

UPLOADED = instance(UploadedFiles)


async def upload(client: Caller, route_name: str, files: Sequence[AttachmentFile],
                 limits: AttachmentLimits) -> UploadedFiles:
    """Check ``files`` against ``limits`` and upload them through ``route_name``."""
    return await client.call(route_name, UPLOADED, body=checked_upload(files, limits))


class SubscriptionAttachments:
    """Files for a subscription's ``attachments`` (uploaded before the create or update
    that names them)."""

    def __init__(self, client: Caller, limits: AttachmentLimits = SUBSCRIPTION_LIMITS) -> None:
        self._client = client
        self.limits = limits

    async def upload(self, files: Sequence[AttachmentFile]) -> UploadedFiles:
        return await upload(self._client, "subscription.upload_attachments", files, self.limits)
