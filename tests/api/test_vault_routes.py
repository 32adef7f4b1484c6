"""The rest of the customer vault operations through the client against the sandbox over
loopback (bulk delete, ACH, links, CSV), and the reference's validation done before
anything is sent."""

from __future__ import annotations

import csv
import io

import pytest

from pos_app.api import errors as e
from pos_app.api.customer_models import CustomerDraft, VaultCard
from pos_app.api.vault_models import (
    AchAccount,
    BulkDeleteFailed,
    ImportRejected,
    LinkContact,
    LinkExpiry,
    LinkNotQueued,
    TimeUnit,
    import_rejection,
)
from pos_app.sandbox.seeded_customers import SEEDED_CUSTOMERS

UNKNOWN = "0123456789abcdef01234567"
ADDRESS = {"address": "1 Main St", "city": "Austin", "state": "TX", "zipCode": "73301", "country": "US"}
DAY = LinkExpiry(expirationTime=1, unitOfTime=TimeUnit.DAYS)


def personal(**extra) -> AchAccount:
    fields = {"accountType": "personalChecking", "routingNumber": "021000021", "accountNumber": "000123456789",
              "firstName": "Ada", "lastName": "Byron", "billingAddress": ADDRESS, **extra}
    return AchAccount(**fields)


async def new_customer(client, first="Ada", email="ada@example.com", **extra):
    return await client.customers.create(CustomerDraft(firstName=first, lastName="Byron", email=email, **extra))


def requests_to(sandbox, merchant="B") -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get(merchant, {}).items() if route.startswith("customer"))


async def test_bulk_delete_and_its_partial_failure(clients):
    client = clients["B"]
    ada, alan = await new_customer(client), await new_customer(client, "Alan", "alan@example.com")
    done = await client.customers.bulk_delete([ada.id])
    assert done.success is True and done.deleted == [ada.id]
    with pytest.raises(BulkDeleteFailed) as partly:
        await client.customers.bulk_delete([alan.id, UNKNOWN])
    assert partly.value.status_code == 400 and partly.value.deleted == [alan.id]
    assert partly.value.failed == {UNKNOWN: f"Customer with id: {UNKNOWN} not found"}
    assert (await client.customers.get(alan.id)).deleted_at  # not atomic: this one went


async def test_ach_add_default_replace(clients):
    client = clients["S"]
    vault = await new_customer(client)
    account = await client.customers.add_ach(vault.id, personal())
    assert account.type == "ach" and account.last4 == "6789" and account.default is True
    assert account.account_type == "personalChecking" and account.routing_number == "021000021"
    assert not account.is_card
    card = await client.customers.add_card(vault.id, VaultCard(number="424242**4242", paymentToken="tok-a"))
    assert (await client.customers.set_default(vault.id, card.customer_vault_id)).default_card is not None
    back = await client.customers.set_default_ach(vault.id, account.customer_vault_id)
    assert back.default_method.customer_vault_id == account.customer_vault_id and back.default_card is None

    business = AchAccount(accountType="businessSavings", routingNumber="021000021", accountNumber="99998888",
                          companyName="Engines Ltd", billingAddress=ADDRESS)
    replaced = await client.customers.replace_ach(vault.id, account.customer_vault_id, business)
    assert replaced.customer_vault_id != account.customer_vault_id and replaced.last4 == "8888"
    assert replaced.default is True
    with pytest.raises(e.ApiError, match="is not an ACH account"):
        await client.customers.replace_ach(vault.id, card.customer_vault_id, business)


async def test_update_request_with_only_a_phone_sends_no_email_field(sandbox, clients):
    client = clients["B"]
    vault = await new_customer(client, phoneNumber="5551234567")  # has an email and a phone
    queued = await client.customers.request_update(vault.id, LinkContact(phoneNumber="(555) 987-6543"),
                                                   LinkExpiry.parse("24h"))
    assert queued.success is True and queued.message
    [link] = sandbox.sandbox.books["B"].vaults.links
    assert link.body_fields == ("expirationTime", "phoneNumber", "unitOfTime")  # no email field at all
    assert (link.email, link.phone_number, link.expiration_time, link.unit_of_time) == (
        None, "(555) 987-6543", 24, "hours")


async def test_invitation_and_bulk_update_request(sandbox, clients):
    client = clients["B"]
    invited = await client.customers.invite(LinkContact(email="new@example.com"), LinkExpiry.parse("30m"))
    assert invited.success is True
    ada = await new_customer(client)
    bulk = await client.customers.request_updates([ada.id], LinkExpiry.parse("2w"))
    assert bulk.success is True and "1 update requests queued" in (bulk.message or "")
    assert [(q.kind, q.email, q.unit_of_time) for q in sandbox.sandbox.books["B"].vaults.links] == [
        ("invitation", "new@example.com", "minutes"), ("bulk_update_request", "ada@example.com", "weeks")]


async def test_answers_without_success_are_not_taken_for_done(canned, canned_client):
    canned.answer("POST", "/public/customer/invitation", {"success": False, "message": "nothing sent"}, status=201)
    with pytest.raises(LinkNotQueued, match="nothing sent"):
        await canned_client.customers.invite(LinkContact(email="a@b.co"), DAY)
    canned.answer("POST", "/public/customer/bulk-delete", {"success": False})
    with pytest.raises(e.ApiError, match="did not confirm"):
        await canned_client.customers.bulk_delete([UNKNOWN])
    canned.answer("POST", "/public/customer/import", {"success": False})
    with pytest.raises(e.ApiError, match="did not take the import"):
        await canned_client.customers.import_csv(b"h\n,a,b\n")


async def test_export_template_and_import_round_trip(clients):
    client = clients["B"]
    await new_customer(client, phoneNumber="5551234567", dateOfBirth="1815-12-10", companyName="Engines")
    await new_customer(client, "Alan", "alan@example.com")
    exported = await client.customers.export_csv(timezone="Europe/London")
    header, *rows = list(csv.reader(io.StringIO(exported.decode())))
    seeded = len(SEEDED_CUSTOMERS)  # every merchant starts with these
    assert header[0] == "Unique ID" and header[-1] == "Date" and len(rows) == seeded + 2

    edited = exported.decode().replace("Engines", "Analytical").encode()
    await client.customers.import_csv(edited)
    after = (await client.customers.list()).data
    assert len(after) == seeded + 2  # updated by Unique ID, none created
    assert {c.company_name for c in after} == {"Analytical", None}
    again = await client.customers.export_csv(timezone="Europe/London")
    assert [r[:19] for r in csv.reader(io.StringIO(again.decode()))][1:] == [
        [cell.replace("Engines", "Analytical") for cell in r[:19]] for r in rows]

    template = await client.customers.template_csv()
    assert len(next(csv.reader(io.StringIO(template.decode())))) == 20


async def test_import_with_two_bad_lines_names_both_and_changes_nothing(clients):
    client = clients["B"]
    await new_customer(client)
    before = (await client.customers.list()).data
    bad = b"Unique ID,First Name,Last Name\n,Good,Row\n,,Nameless\n,Alan,Turing,not-mail\n"
    with pytest.raises(ImportRejected) as rejected:
        await client.customers.import_csv(bad)
    assert rejected.value.lines == [3, 4] and rejected.value.status_code == 400
    assert "Line 3: First Name is required" in rejected.value.messages
    assert (await client.customers.list()).data == before


def test_line_numbers_are_read_from_the_text_and_the_messages():
    error = e.ServiceError(400, code="900", text="Invalid rows at lines 7, 12 and 9", messages=["Line 30: bad"])
    assert import_rejection(error).lines == [7, 9, 12, 30]
    assert import_rejection(e.ServiceError(400, text="file is not a CSV")).lines == []


async def test_a_csv_answer_of_another_type_is_a_protocol_error(canned, canned_client):
    canned.answer("GET", "/public/customer/export", {"data": []})  # JSON, not CSV
    with pytest.raises(e.ProtocolError, match="expected a CSV"):
        await canned_client.customers.export_csv()


@pytest.mark.parametrize("build, why", [
    (lambda: personal(routingNumber="12345678"), "routingNumber"),
    (lambda: personal(routingNumber="02100002x"), "routingNumber"),
    (lambda: personal(accountNumber="123"), "accountNumber"),
    (lambda: personal(accountType="checking"), "accountType"),
    (lambda: personal(lastName=None), "firstName and lastName"),
    (lambda: personal(accountType="businessChecking"), "companyName"),
    (lambda: personal(billingAddress={**ADDRESS, "country": "MX"}), "country"),
    (lambda: personal(billingAddress={k: v for k, v in ADDRESS.items() if k != "city"}), "city"),
    (lambda: personal(phoneNumber="555-123-4567"), "phone"),
    (lambda: personal(driverLicenseNumber="D-123"), "driverLicenseNumber"),
    (lambda: personal(nickname="x"), "nickname"),
    (lambda: LinkContact(), "email or a phone"),
    (lambda: LinkContact(email="nope"), "email"),
    (lambda: LinkContact(phoneNumber="555-123-4567"), "phone"),
    (lambda: LinkExpiry(expirationTime=0, unitOfTime=TimeUnit.HOURS), "above 0"),
    (lambda: LinkExpiry.parse("24"), "30m, 24h"),
    (lambda: LinkExpiry.parse("3 fortnights"), "30m, 24h"),
])
def test_bodies_are_refused_before_sending(build, why):
    with pytest.raises(e.InvalidInput, match=why):
        build()


def test_an_account_number_is_never_echoed_in_a_refusal():
    with pytest.raises(e.InvalidInput) as refused:
        personal(accountNumber="12345678901234567890")
    assert "12345678901234567890" not in str(refused.value)


def test_expiry_words():
    assert LinkExpiry.parse("7 days").wire() == {"expirationTime": 7, "unitOfTime": "days"}
    assert LinkExpiry.parse("1 hour").wire() == {"expirationTime": 1, "unitOfTime": "hours"}


async def test_ids_and_empty_files_are_refused_without_a_request(sandbox, clients):
    vaults = clients["B"].customers
    for call in (vaults.bulk_delete([]), vaults.bulk_delete([UNKNOWN, UNKNOWN]), vaults.bulk_delete(["abc"]),
                 vaults.add_ach("abc", personal()), vaults.replace_ach(UNKNOWN, "", personal()),
                 vaults.request_update("abc", LinkContact(email="a@b.co"), DAY),
                 vaults.request_updates([], DAY), vaults.import_csv(b"  \n")):
        with pytest.raises(e.InvalidInput):
            await call
    assert requests_to(sandbox) == 0
