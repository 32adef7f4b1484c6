"""Routes of the table the sandbox does not simulate yet (issue 18 grows them family by
family). Each answers 404 with a sentence naming the route, so a client or a test sees
at once that the sandbox, not the service, lacks it. Remove a name when its family's
module (``pos_app.sandbox.customers``...) handles it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.sandbox.protocol import Call, Reply, StatusFailure

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

PENDING = (
    "customer.bulk_delete", "customer.ach_add", "customer.ach_replace",
    "customer.update_request", "customer.bulk_update_request", "customer.invitation",
    "customer.export", "customer.template", "customer.import",
    "subscription.list", "subscription.create", "subscription.get", "subscription.update", "subscription.delete",
    "subscription.pause", "subscription.resume", "subscription.retry", "subscription.upload_attachments",
    "link.list", "link.create", "link.get", "link.delete", "link.send_email", "link.send_sms",
    "link.upload_attachments",
    "old_link.list", "old_link.create", "old_link.get", "old_link.delete", "old_link.send_email",
    "old_link.send_sms", "old_link.upload_attachments",
)


def _not_yet(name: str):
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        raise StatusFailure(404, f"the sandbox does not simulate {name} yet")

    return handler


HANDLERS = {name: _not_yet(name) for name in PENDING}
