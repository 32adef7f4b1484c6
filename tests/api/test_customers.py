"""Customer vaults through the client against the sandbox over loopback: every operation
of this slice, and the reference's validation done before anything is sent."""

from __future__ import annotations

from datetime import date

import pytest

from pos_app.api import errors as e
from pos_app.api.customer_models import CustomerChanges, CustomerDraft, NewCustomerCard, VaultCard, check_exp
from pos_app.sandbox.seeded_customers import SEEDED_CUSTOMERS

NEXT_YEAR = f"{date.today().year + 1 - 2000:02d}"
EXP = f"12{NEXT_YEAR}"


def draft(**extra) -> CustomerDraft:
    return CustomerDraft(firstName="Ada", lastName="Lovelace", email="ada@example.com", **extra)


def card(number="424242******4242", token="tok-1", **extra) -> VaultCard:
    return VaultCard(number=number, paymentToken=token, exp=EXP, **extra)


def requests_to(sandbox, merchant="B") -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get(merchant, {}).items() if route.startswith("customer"))


async def test_create_view_list_update_delete(clients):
    client = clients["B"]
    made = await client.customers.create(draft(phoneNumber="(555) 123-4567", companyName="Engines Ltd"))
    assert len(made.id) == 24 and made.name == "Ada Lovelace" and made.default_card is None
    assert made.odd_fields == {}
    other = await client.customers.create(CustomerDraft(firstName="Alan", lastName="Turing",
                                                        email="alan@example.com"))
    seen = await client.customers.get(made.id)
    assert seen.email == "ada@example.com" and seen.phone_number == "(555) 123-4567"

    seeded = {c.email for c in SEEDED_CUSTOMERS}  # every merchant starts with these
    everyone = await client.customers.list()
    assert everyone.meta.count == len(seeded) + 2
    assert {c.id for c in everyone.data if c.email not in seeded} == {made.id, other.id}
    by_company = await client.customers.list(keyword="engines")
    assert [c.id for c in by_company.data] == [made.id]
    all_at_once = await client.customers.list(limit=0)
    assert len(all_at_once.data) == len(seeded) + 2

    updated = await client.customers.update(made.id, CustomerChanges(lastName="King", externalId="ext-9"))
    assert updated.last_name == "King" and updated.first_name == "Ada" and updated.external_id == "ext-9"

    deleted = await client.customers.delete(other.id)
    assert deleted.deleted_at
    assert (await client.customers.get(other.id)).deleted_at  # soft: still readable by id
    assert [c.id for c in (await client.customers.list()).data if c.email not in seeded] == [made.id]


async def test_cards_default_promotion_update_and_delete(clients):
    client = clients["S"]
    vault = await client.customers.create(draft())
    first = await client.customers.add_card(vault.id, card())
    assert first.default is True and first.last4 == "4242" and first.brand == "Visa"  # first of an empty vault
    second = await client.customers.add_card(vault.id, card("555555******4444", "tok-2"))
    assert second.default is False and second.brand == "Mastercard"

    now = await client.customers.set_default(vault.id, second.customer_vault_id)
    assert now.default_card.customer_vault_id == second.customer_vault_id

    replaced = await client.customers.update_card(vault.id, second.customer_vault_id,
                                                  card("400005******5556", "tok-3"))
    assert replaced.customer_vault_id != second.customer_vault_id  # re-vaulted: use the new id
    assert replaced.default is True and replaced.type == "debit"

    after = await client.customers.delete_card(vault.id, replaced.customer_vault_id)
    assert after.default_card.customer_vault_id == first.customer_vault_id  # promoted
    empty = await client.customers.delete_card(vault.id, first.customer_vault_id)
    assert empty.payment_method is None and empty.payment_methods == [] and empty.default_card is None


async def test_create_with_cards_makes_the_first_the_default(clients):
    vault = await clients["B"].customers.create(draft(cards=[
        NewCustomerCard(number="555555******4444", exp=EXP), NewCustomerCard(number="424242******4242", exp=EXP)]))
    assert vault.default_card.last4 == "4444" and len(vault.payment_methods) == 2


async def test_the_services_refusals_arrive_with_its_texts(sandbox, clients):
    client = clients["B"]
    vault = await client.customers.create(draft())
    unknown = "0123456789abcdef01234567"
    with pytest.raises(e.ApiError) as update_unknown:
        await client.customers.update(unknown, CustomerChanges(firstName="X"))
    assert update_unknown.value.status_code == 400 and f"Customer with id: {unknown} not found" in str(
        update_unknown.value)
    with pytest.raises(e.ApiError) as no_method:
        await client.customers.delete_card(vault.id, "no-such-method")
    assert no_method.value.status_code == 400
    method = await client.customers.add_card(vault.id, card(token="tok-once"))
    with pytest.raises(e.ApiError, match="already been used"):
        await client.customers.add_card(vault.id, card(token="tok-once"))

    sandbox.sandbox.books["B"].vaults.in_use[method.customer_vault_id] = ["sub-1", "sub-2"]
    with pytest.raises(e.ApiError) as in_use:
        await client.customers.delete_card(vault.id, method.customer_vault_id)
    assert in_use.value.status_code == 400
    assert in_use.value.text == "You cannot delete a Payment Method that is in use"
    assert in_use.value.body["response"]["error"]["entities"] == ["sub-1", "sub-2"]
    assert (await client.customers.get(vault.id)).default_card.customer_vault_id == method.customer_vault_id


@pytest.mark.parametrize("build, why", [
    (lambda: CustomerDraft(firstName="A", lastName="B", email="not-an-email"), "email"),
    (lambda: CustomerDraft(firstName="", lastName="B", email="a@b.co"), "firstName"),
    (lambda: CustomerDraft(firstName="A", lastName="B", email="a@b.co", phoneNumber="555-123-4567"), "phone"),
    (lambda: CustomerDraft(firstName="A", lastName="B", email="a@b.co", gender="Other"), "gender"),
    (lambda: CustomerChanges(companyName=""), "cannot be cleared"),
    (lambda: VaultCard(number="4242424242424242", paymentToken="t"), "masked"),
    (lambda: VaultCard(number="424242**4242", paymentToken="t", exp="13" + NEXT_YEAR), "no month 13"),
    (lambda: VaultCard(number="424242**4242", paymentToken="t", exp="0120"), "in the past"),
    (lambda: VaultCard(number="424242**4242", paymentToken="t", exp="1/30"), "MMYY"),
    (lambda: VaultCard(number="424242**4242", paymentToken=""), "paymentToken"),
    (lambda: VaultCard(number="424242**4242", paymentToken="t", zipCode="1234"), "zipCode"),
    (lambda: NewCustomerCard(number="424242**4242"), "exp"),
])
def test_bodies_are_refused_before_sending(build, why):
    with pytest.raises(e.InvalidInput, match=why):
        build()


@pytest.mark.parametrize("customer_id", ["", "abc", "0123456789abcdef0123456", "0123456789abcdef012345678",
                                         "0123456789abcdef0123456g", "../../item/ids0123456789ab"])
async def test_ids_that_are_not_24_hex_are_refused_without_a_request(sandbox, clients, customer_id):
    client = clients["B"]
    for call in (client.customers.get(customer_id), client.customers.delete(customer_id),
                 client.customers.update(customer_id, CustomerChanges(firstName="X")),
                 client.customers.add_card(customer_id, card()),
                 client.customers.set_default(customer_id, "pm-1")):
        with pytest.raises(e.InvalidInput, match="24-character hexadecimal"):
            await call
    assert requests_to(sandbox) == 0


async def test_empty_update_and_bad_paging_are_refused_without_a_request(sandbox, clients):
    client = clients["B"]
    with pytest.raises(e.InvalidInput, match="nothing to update"):
        await client.customers.update("0123456789abcdef01234567", CustomerChanges())
    with pytest.raises(e.InvalidInput, match="limit"):
        await client.customers.list(limit=-1)
    with pytest.raises(e.InvalidInput):
        await client.customers.delete_card("0123456789abcdef01234567", "")
    assert requests_to(sandbox) == 0


def test_exp_this_month_is_still_good():
    today = date(2031, 5, 20)
    assert check_exp("0531", today=today) == "0531"
    with pytest.raises(ValueError):
        check_exp("0431", today=today)


async def test_a_list_entry_that_is_no_customer_is_refused_not_fatal(canned, canned_client):
    canned.answer("GET", "/public/customer", {"meta": {"count": 2, "totalPages": 1, "page": 1, "limit": 10}, "data": [
        {"id": "0123456789abcdef01234567", "firstName": "Ada", "paymentMethod": None, "email": 5},
        {"firstName": "no id"}]})
    page = await canned_client.customers.list()
    assert [c.id for c in page.data] == ["0123456789abcdef01234567"] and page.skipped == 1
    assert page.data[0].email is None and page.data[0].odd_fields == {"email": 5}
