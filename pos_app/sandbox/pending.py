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
    "card.charge", "card.capture", "card.void", "card.refund", "card.bulk_charge",
    "ach.charge", "ach.refund", "ach.void", "ach.list",
)


def _not_yet(name: str):
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        raise StatusFailure(404, f"the sandbox does not simulate {name} yet")

    return handler


HANDLERS = {name: _not_yet(name) for name in PENDING}
