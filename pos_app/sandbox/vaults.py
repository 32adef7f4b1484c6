"""The customer vaults of one merchant, as the sandbox keeps them (the routes are in
``pos_app.sandbox.customers``, ``vault_routes`` and ``vault_csv``): vaults with their cards
and ACH accounts and one default slot, soft deletes, single-use tokens, which subscription
uses which method, and the update-request and invitation links queued."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pos_app.sandbox.protocol import ServiceFailure, iso_time, not_found

IN_USE = "You cannot delete a Payment Method that is in use"


@dataclass
class Method:
    id: str
    type: str  # credit | debit | ach
    last4: str
    network: str
    brand: str
    number: str
    exp: str | None = None
    name: str | None = None
    zip_code: str | None = None
    billing: dict | None = None
    ach: dict[str, str] | None = None
    """An ACH account's stored fields (accountType, routingNumber, holder): never its number."""

    def as_json(self, default: bool) -> dict:
        body = {"customerVaultId": self.id, "type": self.type, "last4": self.last4, "network": self.network,
                "brand": self.brand, "number": self.number, "exp": self.exp, "name": self.name,
                "zipCode": self.zip_code, "default": default, **(self.ach or {})}
        if self.billing is not None:
            body["billingAddress"] = self.billing
        return body


@dataclass
class Vault:
    id: str
    fields: dict[str, Any]
    created_at: float
    updated_at: float
    methods: list[Method] = field(default_factory=list)
    default_id: str | None = None
    deleted_at: float | None = None

    def method(self, method_id: str) -> Method:
        found = next((m for m in self.methods if m.id == method_id), None)
        if found is None:
            raise ServiceFailure(400, 101, f"Payment method with id: {method_id} not found")
        return found

    def add(self, method: Method) -> None:
        self.methods.append(method)
        if self.default_id is None:  # the first method of an empty vault
            self.default_id = method.id

    def replace(self, old: Method, new: Method) -> None:
        """``new`` in ``old``'s place (a re-vaulted card, a replaced account), default kept."""
        self.methods[self.methods.index(old)] = new
        if self.default_id == old.id:
            self.default_id = new.id

    def soft_delete(self, at: float) -> None:
        self.deleted_at = self.updated_at = at

    def remove(self, method: Method) -> None:
        self.methods.remove(method)
        if self.default_id == method.id:  # promote the first remaining method
            self.default_id = self.methods[0].id if self.methods else None

    def haystack(self) -> str:
        f = self.fields
        parts = [f.get("firstName"), f.get("lastName"), f"{f.get('firstName', '')} {f.get('lastName', '')}",
                 f.get("email"), f.get("phoneNumber"), f.get("companyName"), f.get("externalId"),
                 *(m.last4 for m in self.methods)]
        return "\n".join(str(p) for p in parts if p).lower()

    def as_json(self, client_id: str) -> dict:
        default = next((m for m in self.methods if m.id == self.default_id), None)
        return {
            "id": self.id, "clientId": client_id, **self.fields,
            "paymentMethod": default.as_json(True) if default else None,
            "paymentMethods": [m.as_json(m.id == self.default_id) for m in self.methods],
            "deletedAt": iso_time(self.deleted_at) if self.deleted_at is not None else None,
            "createdAt": iso_time(self.created_at), "updatedAt": iso_time(self.updated_at),
        }


@dataclass(frozen=True)
class QueuedLink:
    """An update-request or invitation link the service queued (``kind``: update_request,
    bulk_update_request, invitation), with exactly the contacts it goes to and the fields
    its request body had."""

    kind: str
    customer_id: str | None
    email: str | None
    phone_number: str | None
    expiration_time: int
    unit_of_time: str
    queued_at: float
    body_fields: tuple[str, ...] = ()


@dataclass
class Vaults:
    """The customer vaults of one merchant."""

    by_id: dict[str, Vault] = field(default_factory=dict)
    used_tokens: set[str] = field(default_factory=set)
    in_use: dict[str, list[str]] = field(default_factory=dict)
    """Method id → the ids of the subscriptions charging it (blocks deleting the card)."""
    links: list[QueuedLink] = field(default_factory=list)
    """Every link queued, in order (what a test reads to see who would get it)."""

    def find(self, vault_id: str, *, deleted_ok: bool = False, status: int = 400) -> Vault:
        vault = self.by_id.get(vault_id)
        if vault is None or (vault.deleted_at is not None and not deleted_ok):
            if status == 404:
                raise not_found(f"Customer with id: {vault_id} not found")
            raise ServiceFailure(400, 101, f"Customer with id: {vault_id} not found")
        return vault


class InUse(ServiceFailure):
    """400 for a card a subscription uses; the blocking ids in ``response.error.entities``."""

    def __init__(self, subscriptions: list[str]) -> None:
        super().__init__(400, 101, IN_USE)
        self.subscriptions = subscriptions

    def response(self) -> dict:
        return {**super().response(), "error": {"entities": list(self.subscriptions)}}
