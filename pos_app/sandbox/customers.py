"""The customer vault routes (reference 4.4 and 3.4) over a merchant's ``Vaults``
(``pos_app.sandbox.vaults``): list with keyword, create, view, update, soft delete, and
the card operations, with the service's rules and texts.

- A delete is soft: ``deletedAt`` is set, the vault stays readable by id, leaves the list,
  and refuses every change ("Customer with id: … not found", 400).
- Cards and ACH accounts share one default slot: the first method of an empty vault
  becomes default; deleting the default promotes the first remaining method;
  ``paymentMethod`` is null when none remain.
- A card a subscription uses cannot be deleted: 400, "You cannot delete a Payment Method
  that is in use", the blocking subscription ids in ``response.error.entities``
  (``Vaults.in_use``; the subscriptions slice fills it).
- Updating a card re-vaults it: the stored method answers a new ``customerVaultId``.
- A ``paymentToken`` is single use (the all-zero sandbox test token excepted).
- Every failure of the card operations is 400, as is an update of an unknown id; delete
  of an id that is not 24-hex is 400 "Invalid id".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, Any

from pos_app.sandbox.merchants import brand_for_bin, card_for_bin
from pos_app.sandbox.protocol import Call, Reply, ServiceFailure, StatusFailure, invalid
from pos_app.sandbox.validation import Fields
from pos_app.sandbox.vaults import InUse, Method, Vault, Vaults

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

OBJECT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
CARD_NUMBER = re.compile(r"^[0-9]{6}([0-9]{2})?[*.]+[0-9]{4}$")
EXP = re.compile(r"^[0-9]{4}$")
ZIP_CODE = re.compile(r"^([0-9]{5}(-?[0-9]{4})?|[A-Za-z][0-9][A-Za-z] ?[0-9][A-Za-z][0-9])$")
TEST_TOKEN = "00000000-000000-000000-000000000000"
GENDERS = ("Male", "Female", "Unknown")
TEXT_FIELDS = ("firstName", "lastName", "email", "phoneNumber", "companyName", "zipCode", "externalId", "gender",
               "dateOfBirth")
ADDRESS_FIELDS = ("country", "address", "address2", "city", "state", "zipCode")


# ---------------------------------------------------------------- reading bodies


def _read_card(f: Fields, card: Any, where: str, *, token_required: bool, exp_required: bool) -> dict | None:
    if not isinstance(card, dict):
        f.fail(f"{where} must be an object")
        return None
    number, exp, token = card.get("number"), card.get("exp"), card.get("paymentToken")
    if not isinstance(number, str) or not CARD_NUMBER.fullmatch(number):
        f.fail(f"{where}.number must match {CARD_NUMBER.pattern} regular expression")
    if exp is None and exp_required:
        f.fail(f"{where}.exp should not be empty")
    elif exp is not None and (not isinstance(exp, str) or not EXP.fullmatch(exp)):
        f.fail(f"{where}.exp must match {EXP.pattern} regular expression")
    elif exp is not None and _expired(exp):
        f.fail(f"{where}.exp must not be in the past")
    if token_required and (not isinstance(token, str) or not token.strip()):
        f.fail(f"{where}.paymentToken should not be empty")
    zip_code = card.get("zipCode")
    if zip_code is not None and (not isinstance(zip_code, str) or not ZIP_CODE.fullmatch(zip_code)):
        f.fail(f"{where}.zipCode must be a US or CA postal code")
    return card


def _expired(exp: str) -> bool:
    month, year = int(exp[:2]), 2000 + int(exp[2:])
    today = date.today()
    return not 1 <= month <= 12 or (year, month) < (today.year, today.month)


def _read_fields(f: Fields, body: dict, *, create: bool) -> dict[str, Any]:
    for name in ("firstName", "lastName", "email"):
        if create:
            f.text(name)
    f.email("email")
    f.phone("phoneNumber")
    gender = body.get("gender")
    if gender not in (None, "", *GENDERS):
        f.fail(f"gender must be one of the following values: {', '.join(GENDERS)}")
    kept: dict[str, Any] = {}
    for name in TEXT_FIELDS:  # null and empty strings are dropped: a field cannot be cleared
        value = body.get(name)
        if isinstance(value, str) and value.strip():
            kept[name] = value.strip()
        elif value is not None and not isinstance(value, str):
            f.fail(f"{name} must be a string")
    for name in ("billingAddress", "shippingAddress"):
        address = body.get(name)
        if isinstance(address, dict):
            kept[name] = {k: address[k] for k in ADDRESS_FIELDS if isinstance(address.get(k), str)}
            if address.get("country") not in (None, "US", "CA"):
                f.fail(f"{name}.country must be one of the following values: US, CA")
        elif address is not None:
            f.fail(f"{name} must be an object")
    return kept


def _new_method(sandbox: Sandbox, vaults: Vaults, card: dict) -> Method:
    token = card.get("paymentToken")
    if isinstance(token, str) and token != TEST_TOKEN:
        if token in vaults.used_tokens:
            raise ServiceFailure(400, 101, "paymentToken has already been used")
        vaults.used_tokens.add(token)
    number: str = card["number"]
    known = card_for_bin(number[:6])
    brand = known.brand if known else brand_for_bin(number[:6])
    network = known.network if known else brand.lower().replace(" ", "")
    billing = card.get("billingAddress")
    zip_code = card.get("zipCode") or (billing.get("zipCode") if isinstance(billing, dict) else None)
    return Method(id=sandbox.new_id(), type=known.type if known else "credit", last4=number[-4:], network=network,
                  brand=brand, number=number, exp=card.get("exp"), name=card.get("name"), zip_code=zip_code,
                  billing={k: billing[k] for k in ADDRESS_FIELDS if k in billing} if isinstance(billing, dict)
                  else None)


def _vault_id(call: Call) -> str:
    vault_id = call.params["id"]
    if not OBJECT_ID.fullmatch(vault_id):
        raise StatusFailure(400, "Invalid id")
    return vault_id


# ---------------------------------------------------------------- handlers


def _list(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    q = call.query
    messages = []
    page, limit = q.get("page", "1"), q.get("limit", "10")
    if not page.isdigit() or int(page) < 1:
        messages.append("page must be a positive integer")
    if not limit.isdigit():
        messages.append("limit must be a whole number (0 returns all)")
    if messages:
        raise invalid(messages)
    sort = q.get("sort", "-updatedAt")
    key = {"updatedAt": lambda v: v.updated_at, "createdAt": lambda v: v.created_at,
           "firstName": lambda v: v.fields.get("firstName", "").lower(),
           "lastName": lambda v: v.fields.get("lastName", "").lower(),
           "email": lambda v: v.fields.get("email", "").lower()}.get(sort.removeprefix("-"))
    if key is None:
        raise invalid(["sort must be one of updatedAt, createdAt, firstName, lastName, email (- descends)"])
    keyword = q.get("keyword", "").strip().lower()
    rows = [v for v in book.vaults.by_id.values() if v.deleted_at is None and keyword in v.haystack()]
    rows.sort(key=lambda v: (key(v), v.id), reverse=sort.startswith("-"))
    p, n = int(page), int(limit)
    shown = rows if n == 0 else rows[(p - 1) * n: p * n]
    meta = {"count": len(rows), "totalPages": 1 if n == 0 else (len(rows) + n - 1) // n, "page": p, "limit": n}
    client_id = book.merchant.client_id
    return Reply(200, {"meta": meta, "data": [v.as_json(client_id) for v in shown]})


def _create(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    body = call.json_object()
    f = Fields(body)
    kept = _read_fields(f, body, create=True)
    cards = body.get("cards") or []
    if not isinstance(cards, list):
        f.fail("cards must be an array")
        cards = []
    read = [_read_card(f, card, f"cards.{i}", token_required=False, exp_required=True) for i, card in enumerate(cards)]
    f.check()
    now = sandbox.clock()
    vault = Vault(id=sandbox.new_id(), fields=kept, created_at=now, updated_at=now)
    for card in read:
        assert card is not None
        vault.add(_new_method(sandbox, book.vaults, card))  # the first card becomes the default
    book.vaults.by_id[vault.id] = vault
    return Reply(201, {"data": vault.as_json(book.merchant.client_id)})


def _get(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(_vault_id(call), deleted_ok=True, status=404)
    return Reply(200, {"data": vault.as_json(book.merchant.client_id)})


def _update(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(call.params["id"])  # an unknown id is 400, not 404
    body = call.json_object()
    f = Fields(body)
    kept = _read_fields(f, body, create=False)
    cards = body.get("cards") or []
    if not isinstance(cards, list):
        f.fail("cards must be an array")
        cards = []
    read = [_read_card(f, card, f"cards.{i}", token_required=True, exp_required=False) for i, card in enumerate(cards)]
    f.check()
    vault.fields.update(kept)
    for card in read:  # appended as new methods
        assert card is not None
        vault.add(_new_method(sandbox, book.vaults, card))
    vault.updated_at = sandbox.clock()
    return Reply(200, {"data": vault.as_json(book.merchant.client_id)})


def _delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(_vault_id(call))
    vault.soft_delete(sandbox.clock())
    return Reply(200, {"data": vault.as_json(book.merchant.client_id)})


def _card_body(call: Call) -> dict:
    body = call.json_object()
    f = Fields(body)
    _read_card(f, body, "card", token_required=True, exp_required=False)
    f.check()
    return body


def _card_add(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(call.params["id"])
    method = _new_method(sandbox, book.vaults, _card_body(call))
    vault.add(method)
    vault.updated_at = sandbox.clock()
    return Reply(201, {"data": method.as_json(method.id == vault.default_id)})


def _card_update(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(call.params["id"])
    old = vault.method(call.params["customerVaultId"])
    if old.type == "ach":
        raise ServiceFailure(400, 101, f"Payment method with id: {old.id} is not a card")
    new = _new_method(sandbox, book.vaults, _card_body(call))  # re-vaulted: a new id
    vault.replace(old, new)
    if old.id in book.vaults.in_use:
        book.vaults.in_use[new.id] = book.vaults.in_use.pop(old.id)
    vault.updated_at = sandbox.clock()
    return Reply(200, {"data": new.as_json(new.id == vault.default_id)})


def _card_delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(call.params["id"])
    method = vault.method(call.params["customerVaultId"])
    users = book.vaults.in_use.get(method.id)
    if users:
        raise InUse(users)
    vault.remove(method)
    vault.updated_at = sandbox.clock()
    return Reply(200, {"data": vault.as_json(book.merchant.client_id)})


def _set_default(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    vault = book.vaults.find(call.params["id"])
    vault.default_id = vault.method(call.params["customerVaultId"]).id  # card or ACH: the type is unchecked
    vault.updated_at = sandbox.clock()
    return Reply(200, {"data": vault.as_json(book.merchant.client_id)})


HANDLERS: dict[str, Callable[[Sandbox, Book, Call], Reply]] = {
    "customer.list": _list,
    "customer.create": _create,
    "customer.get": _get,
    "customer.update": _update,
    "customer.delete": _delete,
    "customer.card_add": _card_add,
    "customer.card_update": _card_update,
    "customer.card_delete": _card_delete,
    "customer.card_default": _set_default,
    "customer.ach_default": _set_default,
}
