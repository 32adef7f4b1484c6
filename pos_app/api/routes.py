"""The one route table of the Merchant Payments Service, as the app uses it.

Every operation the app calls is named here once, with its method, path and where the
path comes from: ``spec`` (written in the API reference) or ``assumed`` (the reference
shows ``-``; ``shared/spec/pos-contract.md`` fixes it). A store config may override any
path, so a deployment can follow the real service without a code change.

``moves_money`` marks the requests that may move money. The client never retries them
on its own, and only they carry a per-attempt id in the user-agent.

The table lists all 76 operations of the reference (sections 4.2-4.9, and the merchant
taxes of 4.1), grouped by family; the name's prefix is the family (``Route.family``),
which ``pos_app.api.units`` maps to its money units.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import quote

from pos_app.i18n import _

Source = Literal["spec", "assumed"]

_PARAM = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    path: str
    source: Source
    moves_money: bool = False

    @property
    def family(self) -> str:
        """The route family (``customer``, ``link``...): the part of the name before the dot."""
        return self.name.split(".", 1)[0]

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(_PARAM.findall(self.path))

    def format(self, **params: str) -> str:
        """The path with its ``{param}`` parts filled in, each quoted as one segment."""
        missing = set(self.params) - params.keys()
        if missing:
            raise ValueError(f"route {self.name} needs {', '.join(sorted(missing))}")  # not for people: a caller's bug
        for key, value in params.items():
            if not isinstance(value, str) or not value.strip():
                raise ValueError(_("route {route}: {key} must be a non-empty id").format(route=self.name, key=key))
        return _PARAM.sub(lambda m: quote(params[m.group(1)], safe=""), self.path)


_TABLE: tuple[Route, ...] = (
    Route("terminal.pay", "POST", "/public/terminal/pay", "spec", moves_money=True),
    Route("terminal.auth", "POST", "/public/terminal/auth", "spec", moves_money=True),
    Route("terminal.capture", "POST", "/public/terminal/capture", "spec", moves_money=True),
    Route("terminal.void", "POST", "/public/terminal/void", "assumed", moves_money=True),
    Route("terminal.refund", "POST", "/public/terminal/refund", "assumed", moves_money=True),
    Route("terminal.close_batch", "POST", "/public/terminal/close-batch", "spec", moves_money=True),
    Route(
        "terminal.close_batch_by_serial",
        "POST",
        "/public/terminal/close-batch-by-serial",
        "assumed",
        moves_money=True,
    ),
    Route("terminal.list", "GET", "/public/terminal", "assumed"),
    Route(
        "terminal.poll_message",
        "GET",
        "/public/terminal/processed-messages/{messageId}",
        "spec",
    ),
    Route("payment.get", "GET", "/public/payment/{id}", "spec"),
    Route("transactions.list", "GET", "/public/transactions", "spec"),
    Route("receipt.pdf", "POST", "/public/receipt/pdf", "assumed"),
    Route("surcharge.rate", "GET", "/public/surcharge/rate", "assumed"),
    Route("surcharge.acknowledgment", "GET", "/public/surcharge/acknowledgment", "assumed"),
    Route("tax.list", "GET", "/public/tax", "spec"),
    Route("item.list", "GET", "/public/item", "assumed"),
    Route("item.ids", "GET", "/public/item/ids", "assumed"),
    Route("item.categories", "GET", "/public/item/categories", "assumed"),
    Route("item.get", "GET", "/public/item/{id}", "spec"),
    Route("item.create", "POST", "/public/item", "assumed"),
    Route("item.update", "PATCH", "/public/item/{id}", "assumed"),
    Route("item.delete", "DELETE", "/public/item/{id}", "assumed"),
    Route("item.duplicate", "POST", "/public/item/{id}/duplicate", "assumed"),
    Route("item.bulk_delete", "POST", "/public/item/bulk-delete", "assumed"),
    Route("item.bulk_duplicate", "POST", "/public/item/bulk-duplicate", "assumed"),
    # card payments (reference 4.3): relative paths there, under /public here
    Route("card.charge", "POST", "/public/charge", "assumed", moves_money=True),
    Route("card.capture", "POST", "/public/capture", "assumed", moves_money=True),
    Route("card.void", "POST", "/public/void", "assumed", moves_money=True),
    Route("card.refund", "POST", "/public/refund", "assumed", moves_money=True),
    Route("card.bulk_charge", "POST", "/public/bulk-charge", "assumed", moves_money=True),
    # ACH payments (reference 4.2)
    Route("ach.charge", "POST", "/public/ach/charge", "assumed", moves_money=True),
    Route("ach.refund", "POST", "/public/ach/refund", "assumed", moves_money=True),
    Route("ach.void", "POST", "/public/ach/void", "spec", moves_money=True),
    Route("ach.list", "GET", "/public/ach", "assumed"),
    # customer vaults (reference 4.4)
    Route("customer.list", "GET", "/public/customer", "assumed"),
    Route("customer.create", "POST", "/public/customer", "assumed"),
    Route("customer.get", "GET", "/public/customer/{id}", "assumed"),
    Route("customer.update", "PATCH", "/public/customer/{id}", "assumed"),
    Route("customer.delete", "DELETE", "/public/customer/{id}", "spec"),
    Route("customer.bulk_delete", "POST", "/public/customer/bulk-delete", "assumed"),
    Route("customer.card_add", "POST", "/public/customer/{id}/card", "assumed"),
    Route("customer.card_update", "PUT", "/public/customer/{id}/card/{customerVaultId}", "assumed"),
    Route("customer.card_delete", "DELETE", "/public/customer/{id}/card/{customerVaultId}", "assumed"),
    Route("customer.card_default", "PATCH", "/public/customer/{id}/default/{customerVaultId}", "assumed"),
    Route("customer.ach_add", "POST", "/public/customer/ach/{id}", "spec"),
    Route("customer.ach_replace", "PUT", "/public/customer/{id}/ach/{customerVaultId}", "assumed"),
    Route("customer.ach_default", "PATCH", "/public/customer/{id}/default/{customerVaultId}", "assumed"),
    Route("customer.update_request", "POST", "/public/customer/update-request/{id}", "spec"),
    Route("customer.bulk_update_request", "POST", "/public/customer/bulk-update-request", "assumed"),
    Route("customer.invitation", "POST", "/public/customer/invitation", "assumed"),
    Route("customer.export", "GET", "/public/customer/export", "assumed"),
    Route("customer.template", "GET", "/public/customer/template", "assumed"),
    Route("customer.import", "POST", "/public/customer/import", "assumed"),
    # subscriptions (reference 4.5); retry is a state-changing GET that charges
    Route("subscription.list", "GET", "/public/subscription", "assumed"),
    Route("subscription.create", "POST", "/public/subscription", "assumed"),
    Route("subscription.get", "GET", "/public/subscription/{id}", "spec"),
    Route("subscription.update", "PATCH", "/public/subscription/{id}", "assumed"),
    Route("subscription.delete", "DELETE", "/public/subscription/{id}", "assumed"),
    Route("subscription.pause", "POST", "/public/subscription/{subscriptionId}/pause", "assumed"),
    Route("subscription.resume", "POST", "/public/subscription/{subscriptionId}/resume", "assumed"),
    Route("subscription.retry", "GET", "/public/subscription/retry/{scheduleId}", "assumed", moves_money=True),
    Route("subscription.upload_attachments", "POST", "/public/subscription/upload-attachments", "spec"),
    # payment links, dated version 202104 (reference 4.6)
    Route("link.list", "GET", "/public/202104/payment-link", "spec"),
    Route("link.create", "POST", "/public/202104/payment-link", "spec"),
    Route("link.get", "GET", "/public/202104/payment-link/{id}", "spec"),
    Route("link.delete", "DELETE", "/public/202104/payment-link/{id}", "spec"),
    Route("link.send_email", "POST", "/public/202104/payment-link/send-by-email", "assumed"),
    Route("link.send_sms", "POST", "/public/202104/payment-link/send-by-sms", "spec"),
    Route("link.upload_attachments", "POST", "/public/202104/payment-link/upload-attachments", "spec"),
    # payment links, deprecated routes (reference 4.9): other money units (see ``units``)
    Route("old_link.list", "GET", "/public/payment-link", "spec"),
    Route("old_link.create", "POST", "/public/payment-link", "spec"),
    Route("old_link.get", "GET", "/public/payment-link/{id}", "spec"),
    Route("old_link.delete", "DELETE", "/public/payment-link/{id}", "spec"),
    Route("old_link.send_email", "POST", "/public/payment-link/send-by-email", "assumed"),
    Route("old_link.send_sms", "POST", "/public/payment-link/send-by-sms", "assumed"),
    Route("old_link.upload_attachments", "POST", "/public/payment-link/upload-attachments", "assumed"),
)

ROUTES: Mapping[str, Route] = {route.name: route for route in _TABLE}

SHARED_PATHS = frozenset({("customer.card_default", "customer.ach_default")})
"""Operations the reference names twice that share one method and path (pos-contract.md:
setting the default card or ACH account is one route; the type is unchecked)."""


class RouteTable:
    """The default routes with a store's path overrides applied.

    An override is ``"METHOD /path"`` or just ``"/path"`` (the method stays). It must
    keep the route's ``{param}`` names, so the client can fill them in.
    """

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        routes = dict(ROUTES)
        for name, text in (overrides or {}).items():
            if name not in routes:
                raise ValueError(_("unknown route {name!r} in path overrides; known: {known}").format(
                    name=name, known=", ".join(ROUTES)))
            routes[name] = _override(routes[name], text)
        self._routes = routes

    def __getitem__(self, name: str) -> Route:
        return self._routes[name]

    def __iter__(self) -> Iterator[Route]:
        return iter(self._routes.values())


def _override(route: Route, text: str) -> Route:
    parts = text.strip().split()
    if len(parts) == 1:
        method, path = route.method, parts[0]
    elif len(parts) == 2:
        method, path = parts[0].upper(), parts[1]
    else:
        raise ValueError(_("path override for {route} must be 'METHOD /path' or '/path', got {text!r}").format(
            route=route.name, text=text))
    if method not in {"GET", "POST", "PUT", "PATCH", "DELETE"}:
        raise ValueError(_("path override for {route}: unknown method {method!r}").format(
            route=route.name, method=method))
    if not path.startswith("/"):
        raise ValueError(_("path override for {route} must start with '/', got {path!r}").format(route=route.name,
                                                                                                  path=path))
    if sorted(_PARAM.findall(path)) != sorted(route.params):
        raise ValueError(_("path override for {route} must keep the parameters {params}").format(
            route=route.name, params=", ".join("{" + p + "}" for p in route.params) or _("(none)")))
    return replace(route, method=method, path=path)
