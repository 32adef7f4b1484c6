"""The customer vault routes beyond cards (reference 4.4): bulk delete, ACH accounts, and
the update-request, bulk update-request and invitation links, with the service's rules
and texts. The vaults themselves are ``pos_app.sandbox.vaults``; the CSV routes are
``pos_app.sandbox.vault_csv``.

- A bulk delete has a single delete's semantics for each id and is not atomic: every id is
  tried, the ones that fail are collected, and any failure answers 400 with
  ``response.error`` = ``{deleted: [ids], failed: [{id, message}]}``; all deleted answers
  ``{success: true, deleted: [ids]}``.
- An ACH account is a payment method of ``type`` ach among ``paymentMethods[]``, sharing the
  one default slot with cards. Only the account's last 4 are kept. Unknown fields are
  refused; a business account needs ``companyName``, a personal one ``firstName`` and
  ``lastName``. A replace is a full replacement under a new ``customerVaultId``. Every
  failure is 400.
- A link (update request, invitation) goes only to the contacts in the body; without any,
  nothing is queued and the answer says ``success: false``. A bulk update request goes to
  each vault's stored email and/or phone and skips vaults with neither; an id that is no
  live vault refuses the whole request (400, code 900) before anything is queued.
  ``success: true`` means queued (``Vaults.links``), not delivered.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pos_app.sandbox.customers import OBJECT_ID, ZIP_CODE
from pos_app.sandbox.protocol import Call, Reply, ServiceFailure, StatusFailure
from pos_app.sandbox.validation import Fields
from pos_app.sandbox.vaults import Method, QueuedLink, Vault

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

ACCOUNT_TYPES = ("businessChecking", "businessSavings", "personalChecking", "personalSavings")
ROUTING_NUMBER = re.compile(r"^[0-9]{9}$")
ACCOUNT_NUMBER = re.compile(r"^[0-9]{4,17}$")
DRIVER_LICENSE = re.compile(r"^[a-zA-Z0-9]+$")
ACH_FIELDS = frozenset({"accountType", "routingNumber", "accountNumber", "billingAddress", "companyName", "firstName",
                        "lastName", "phoneNumber", "driverLicenseNumber"})
ACH_ADDRESS_FIELDS = ("address", "address2", "city", "state", "zipCode", "country")
UNITS_OF_TIME = ("minute", "minutes", "hour", "hours", "day", "days", "week", "weeks")
NO_CONTACT = "No email or phone number given: no link was sent"
SOME_NOT_DELETED = "Some customers could not be deleted"


class NotAllDeleted(ServiceFailure):
    """400 of a bulk delete with a failure: what was deleted and what was not, and why."""

    def __init__(self, deleted: list[str], failed: list[dict[str, str]]) -> None:
        super().__init__(400, 101, SOME_NOT_DELETED)
        self.deleted, self.failed = deleted, failed

    def response(self) -> dict[str, Any]:
        return {**super().response(), "error": {"deleted": self.deleted, "failed": self.failed}}


def _path_vault(book: Book, call: Call) -> Vault:
    vault_id = call.params["id"]
    if not OBJECT_ID.fullmatch(vault_id):
        raise StatusFailure(400, "Invalid id")
    return book.vaults.find(vault_id)


# ---------------------------------------------------------------- bulk delete


def _bulk_delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    f = Fields(call.json_object())
    ids = f.array("itemList", min_size=1)
    if ids is not None and not all(isinstance(i, str) for i in ids):
        f.fail("each value in itemList must be a string")
    f.check()
    assert ids is not None
    deleted: list[str] = []
    failed: list[dict[str, str]] = []
    for vault_id in ids:
        if not OBJECT_ID.fullmatch(vault_id):
            failed.append({"id": vault_id, "message": "Invalid id"})
            continue
        try:
            book.vaults.find(vault_id).soft_delete(sandbox.clock())
        except ServiceFailure as failure:
            failed.append({"id": vault_id, "message": failure.text})
            continue
        deleted.append(vault_id)
    if failed:
        raise NotAllDeleted(deleted, failed)
    return Reply(200, {"success": True, "deleted": deleted})


# ---------------------------------------------------------------- ACH accounts


def _read_ach(body: dict[str, Any]) -> None:
    f = Fields(body)
    for name in sorted(set(body) - ACH_FIELDS):
        f.fail(f"property {name} should not exist")
    account_type = f.text("accountType")
    if account_type is not None and account_type not in ACCOUNT_TYPES:
        f.fail(f"accountType must be one of the following values: {', '.join(ACCOUNT_TYPES)}")
    f.text("routingNumber", pattern=ROUTING_NUMBER)
    f.text("accountNumber", pattern=ACCOUNT_NUMBER)
    if account_type in ("businessChecking", "businessSavings"):
        f.text("companyName")
    elif account_type is not None:
        f.text("firstName")
        f.text("lastName")
    f.phone("phoneNumber")
    f.text("driverLicenseNumber", required=False, pattern=DRIVER_LICENSE)
    address = body.get("billingAddress")
    if not isinstance(address, dict):
        f.fail("billingAddress must be an object")
    else:
        a = Fields(address)
        for name in ("address", "city", "state"):
            a.text(name)
        a.text("zipCode", pattern=ZIP_CODE)
        if address.get("country") not in ("US", "CA"):
            a.fail("country must be one of the following values: US, CA")
        f.messages += [f"billingAddress.{message}" for message in a.messages]
    f.check()


def _new_account(sandbox: Sandbox, body: dict[str, Any]) -> Method:
    last4 = body["accountNumber"][-4:]
    kept = {k: body[k] for k in ("accountType", "routingNumber", "companyName", "firstName", "lastName",
                                 "phoneNumber") if isinstance(body.get(k), str)}
    address = body["billingAddress"]
    return Method(id=sandbox.new_id(), type="ach", last4=last4, network="ach", brand="ACH", number=f"****{last4}",
                  zip_code=address["zipCode"], billing={k: address[k] for k in ACH_ADDRESS_FIELDS if k in address},
                  ach=kept)


def _ach_add(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = _path_vault(book, call)
    body = call.json_object()
    _read_ach(body)
    method = _new_account(sandbox, body)
    vault.add(method)  # the first method of an empty vault becomes the default
    vault.updated_at = sandbox.clock()
    return Reply(201, {"data": method.as_json(method.id == vault.default_id)})


def _ach_replace(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = _path_vault(book, call)
    old = vault.method(call.params["customerVaultId"])
    if old.type != "ach":
        raise ServiceFailure(400, 101, f"Payment method with id: {old.id} is not an ACH account")
    body = call.json_object()
    _read_ach(body)
    new = _new_account(sandbox, body)  # the gateway answers a new id
    vault.replace(old, new)
    if old.id in book.vaults.in_use:
        book.vaults.in_use[new.id] = book.vaults.in_use.pop(old.id)
    vault.updated_at = sandbox.clock()
    return Reply(200, {"data": new.as_json(new.id == vault.default_id)})


# ---------------------------------------------------------------- links


def _read_expiry(f: Fields) -> tuple[int, str] | None:
    """``expirationTime`` and ``unitOfTime``, or None with the failures added to ``f``."""
    time = f.body.get("expirationTime")
    if time is None:
        f.fail("expirationTime should not be empty")
    elif isinstance(time, bool) or not isinstance(time, int) or time <= 0:
        f.fail("expirationTime must be a positive number")
    unit = f.text("unitOfTime")
    if unit is not None and unit not in UNITS_OF_TIME:
        f.fail(f"unitOfTime must be one of the following values: {', '.join(UNITS_OF_TIME)}")
        return None
    return (time, unit) if isinstance(time, int) and unit is not None else None


def _link(sandbox: Sandbox, book: Book, call: Call, kind: str, vault: Vault | None) -> Reply:
    f = Fields(call.json_object())
    expiry = _read_expiry(f)
    email, phone = f.email("email"), f.phone("phoneNumber")
    f.check()
    assert expiry is not None
    time, unit = expiry
    if email is None and phone is None:  # only the body's contacts count: no fallback to the vault's
        return Reply(201, {"success": False, "message": NO_CONTACT})
    book.vaults.links.append(QueuedLink(kind, vault.id if vault else None, email, phone, time, unit, sandbox.clock(),
                                        tuple(sorted(f.body))))
    return Reply(201, {"success": True, "message": "Link queued to be sent"})


def _update_request(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return _link(sandbox, book, call, "update_request", _path_vault(book, call))


def _invitation(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return _link(sandbox, book, call, "invitation", None)


def _bulk_update_request(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    f = Fields(call.json_object())
    live = {i: v for i, v in book.vaults.by_id.items() if v.deleted_at is None}
    ids = f.ids("itemList", live, what="customer")
    if f.body.get("itemList") == []:
        f.fail("itemList must contain at least 1 elements")
    expiry = _read_expiry(f)
    f.check()
    assert expiry is not None
    time, unit = expiry
    queued = 0
    for vault_id in ids:
        fields = live[vault_id].fields
        billing = fields.get("billingAddress")
        email = fields.get("email") or (billing.get("email") if isinstance(billing, dict) else None)
        phone = fields.get("phoneNumber")
        if email is None and phone is None:
            continue  # no contact: skipped
        book.vaults.links.append(QueuedLink("bulk_update_request", vault_id, email, phone, time, unit,
                                            sandbox.clock(), tuple(sorted(f.body))))
        queued += 1
    return Reply(201, {"success": True,
                       "message": f"{queued} update requests queued, {len(ids) - queued} skipped (no contact)"})


HANDLERS: dict[str, Callable[[Sandbox, Book, Call], Reply]] = {
    "customer.bulk_delete": _bulk_delete,
    "customer.ach_add": _ach_add,
    "customer.ach_replace": _ach_replace,
    "customer.update_request": _update_request,
    "customer.bulk_update_request": _bulk_update_request,
    "customer.invitation": _invitation,
}
