"""The sandbox's vault routes beyond cards over raw HTTP: bulk delete, ACH accounts, the
update-request / invitation links and the CSV export, template and import, with the
reference's state rules and texts."""

from __future__ import annotations

import csv
import io

from pos_app.sandbox.vault_csv import EXPORT_COLUMNS, TEMPLATE_COLUMNS
from tests.sandbox.helpers import SEEDED, SEEDED_EMAILS, body, call

UNKNOWN = "0123456789abcdef01234567"
PERSONAL = {"accountType": "personalChecking", "routingNumber": "021000021", "accountNumber": "000123456789",
            "firstName": "Ada", "lastName": "Byron",
            "billingAddress": {"address": "1 Main St", "city": "Austin", "state": "TX", "zipCode": "73301",
                               "country": "US"}}


def create(client, **fields):
    answer = call(client, "customer.create", json={"firstName": "Ada", "lastName": "Byron",
                                                    "email": "ada@example.com", **fields})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def links(sandbox, merchant="B"):
    return sandbox.sandbox.books[merchant].vaults.links


def rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


def not_seeded(data: list[list[str]]) -> list[list[str]]:
    """The CSV rows (after the header) of the customers a test made, not the seeded ones."""
    return [row for row in data if row[3] not in SEEDED_EMAILS]


# ---------------------------------------------------------------- bulk delete


def test_bulk_delete_soft_deletes_every_id(b_client):
    ids = [create(b_client)["id"], create(b_client, email="b@example.com")["id"]]
    answer = call(b_client, "customer.bulk_delete", json={"itemList": ids})
    assert answer.status_code == 200 and body(answer) == {"success": True, "deleted": ids}
    assert body(call(b_client, "customer.list"))["meta"]["count"] == SEEDED  # the seeded ones only
    assert body(call(b_client, "customer.get", id=ids[0]))["data"]["deletedAt"]  # soft: still readable


def test_bulk_delete_is_not_atomic_and_names_each_failure(b_client):
    kept = create(b_client)["id"]
    gone = create(b_client, email="gone@example.com")["id"]
    call(b_client, "customer.delete", id=gone)
    answer = call(b_client, "customer.bulk_delete", json={"itemList": [kept, "not-hex", UNKNOWN, gone]})
    assert answer.status_code == 400
    error = body(answer)["response"]
    assert error["text"] == "Some customers could not be deleted"
    assert error["error"] == {"deleted": [kept], "failed": [
        {"id": "not-hex", "message": "Invalid id"},
        {"id": UNKNOWN, "message": f"Customer with id: {UNKNOWN} not found"},
        {"id": gone, "message": f"Customer with id: {gone} not found"}]}
    assert body(call(b_client, "customer.get", id=kept))["data"]["deletedAt"]  # done despite the others


def test_bulk_delete_needs_at_least_one_id(b_client):
    answer = call(b_client, "customer.bulk_delete", json={"itemList": []})
    assert answer.status_code == 400 and body(answer)["response"]["code"] == 900
    assert "itemList must contain at least 1 elements" in answer.text


# ---------------------------------------------------------------- ACH


def test_ach_account_is_a_payment_method_sharing_the_default_slot(s_client):
    vault = create(s_client)
    added = call(s_client, "customer.ach_add", id=vault["id"], json=PERSONAL)
    assert added.status_code == 201, added.text
    account = body(added)["data"]
    assert account["type"] == "ach" and account["last4"] == "6789" and account["default"] is True
    assert account["accountType"] == "personalChecking" and account["routingNumber"] == "021000021"
    assert "000123456789" not in added.text  # only the last 4 are kept

    card = body(call(s_client, "customer.card_add", id=vault["id"],
                     json={"number": "424242**4242", "paymentToken": "t-ach"}))["data"]
    assert card["default"] is False  # one slot, held by the account
    made_default = body(call(s_client, "customer.card_default", id=vault["id"],
                             customerVaultId=card["customerVaultId"]))["data"]
    assert made_default["paymentMethod"]["customerVaultId"] == card["customerVaultId"]
    back = body(call(s_client, "customer.ach_default", id=vault["id"],
                     customerVaultId=account["customerVaultId"]))["data"]
    assert back["paymentMethod"]["type"] == "ach"
    assert [m["type"] for m in back["paymentMethods"]] == ["ach", "credit"]

    after = body(call(s_client, "customer.card_delete", id=vault["id"],
                      customerVaultId=account["customerVaultId"]))["data"]
    assert after["paymentMethod"]["customerVaultId"] == card["customerVaultId"]  # promoted


def test_ach_replace_is_a_full_replacement_under_a_new_id(b_client):
    vault = create(b_client)
    old = body(call(b_client, "customer.ach_add", id=vault["id"], json=PERSONAL))["data"]
    business = {**{k: v for k, v in PERSONAL.items() if k not in ("firstName", "lastName")},
                "accountType": "businessSavings", "accountNumber": "99998888", "companyName": "Engines Ltd"}
    answer = call(b_client, "customer.ach_replace", id=vault["id"], customerVaultId=old["customerVaultId"],
                  json=business)
    assert answer.status_code == 200, answer.text
    new = body(answer)["data"]
    assert new["customerVaultId"] != old["customerVaultId"] and new["last4"] == "8888" and new["default"] is True
    assert new["companyName"] == "Engines Ltd"
    methods = body(call(b_client, "customer.get", id=vault["id"]))["data"]["paymentMethods"]
    assert [m["customerVaultId"] for m in methods] == [new["customerVaultId"]]

    card = body(call(b_client, "customer.card_add", id=vault["id"],
                     json={"number": "424242**4242", "paymentToken": "t-r"}))["data"]
    not_ach = call(b_client, "customer.ach_replace", id=vault["id"], customerVaultId=card["customerVaultId"],
                   json=PERSONAL)
    assert not_ach.status_code == 400 and "is not an ACH account" in not_ach.text


def test_ach_validation_is_400_with_every_field(b_client):
    vault = create(b_client)
    answer = call(b_client, "customer.ach_add", id=vault["id"], json={
        "accountType": "businessChecking", "routingNumber": "12345", "accountNumber": "12",
        "billingAddress": {"country": "MX"}, "nickname": "x", "phoneNumber": "555-123-4567"})
    assert answer.status_code == 400
    text = " | ".join(body(answer)["response"]["message"])
    for expected in ("property nickname should not exist", "routingNumber", "accountNumber", "companyName",
                     "phoneNumber", "billingAddress.address", "billingAddress.city", "billingAddress.zipCode",
                     "billingAddress.country"):
        assert expected in text, (expected, text)
    personal = {k: v for k, v in PERSONAL.items() if k != "lastName"}
    assert "lastName" in call(b_client, "customer.ach_add", id=vault["id"], json=personal).text
    unknown = call(b_client, "customer.ach_add", id=UNKNOWN, json=PERSONAL)
    assert unknown.status_code == 400 and f"Customer with id: {UNKNOWN} not found" in unknown.text


# ---------------------------------------------------------------- links


def test_update_request_goes_only_to_the_contacts_in_the_body(sandbox, b_client):
    vault = create(b_client, phoneNumber="5551234567")
    answer = call(b_client, "customer.update_request", id=vault["id"],
                  json={"expirationTime": 24, "unitOfTime": "hours", "phoneNumber": "(555) 987-6543"})
    assert answer.status_code == 201 and body(answer)["success"] is True
    [queued] = links(sandbox)
    assert (queued.kind, queued.customer_id, queued.email, queued.phone_number) == (
        "update_request", vault["id"], None, "(555) 987-6543")  # not the vault's email nor its phone
    assert (queued.expiration_time, queued.unit_of_time) == (24, "hours")


def test_a_link_without_contact_sends_nothing(sandbox, b_client):
    vault = create(b_client)  # the vault has an email: no fallback to it
    answer = call(b_client, "customer.update_request", id=vault["id"], json={"expirationTime": 1, "unitOfTime": "day"})
    assert answer.status_code == 201 and body(answer)["success"] is False and "no link was sent" in answer.text
    invite = call(b_client, "customer.invitation", json={"expirationTime": 1, "unitOfTime": "week"})
    assert body(invite)["success"] is False
    assert links(sandbox) == []


def test_link_refusals(b_client):
    bad_id = call(b_client, "customer.update_request", id="nope", json={"expirationTime": 1, "unitOfTime": "day",
                                                                        "email": "a@b.co"})
    assert bad_id.status_code == 400 and body(bad_id)["response"]["message"] == "Invalid id"
    unknown = call(b_client, "customer.update_request", id=UNKNOWN,
                   json={"expirationTime": 1, "unitOfTime": "day", "email": "a@b.co"})
    assert unknown.status_code == 400 and "not found" in unknown.text
    invalid = call(b_client, "customer.invitation", json={"expirationTime": 0, "unitOfTime": "fortnight",
                                                          "phoneNumber": "555-123-4567"})
    text = " | ".join(body(invalid)["response"]["message"])
    assert invalid.status_code == 400
    for field in ("expirationTime", "unitOfTime", "phoneNumber"):
        assert field in text


def test_invitation_and_bulk_update_request_are_queued(sandbox, b_client):
    invite = call(b_client, "customer.invitation",
                  json={"expirationTime": 30, "unitOfTime": "minutes", "email": "new@example.com"})
    assert body(invite)["success"] is True
    with_mail = create(b_client)
    with_phone_only = create(b_client, email="x@example.com")
    sandbox.sandbox.books["B"].vaults.by_id[with_phone_only["id"]].fields.pop("email")
    sandbox.sandbox.books["B"].vaults.by_id[with_phone_only["id"]].fields["phoneNumber"] = "5551234567"
    no_contact = create(b_client, email="y@example.com")
    sandbox.sandbox.books["B"].vaults.by_id[no_contact["id"]].fields.pop("email")
    answer = call(b_client, "customer.bulk_update_request", json={
        "itemList": [with_mail["id"], with_phone_only["id"], no_contact["id"]], "expirationTime": 2,
        "unitOfTime": "days"})
    assert answer.status_code == 201 and body(answer)["success"] is True
    assert "2 update requests queued, 1 skipped" in body(answer)["message"]
    assert [(q.kind, q.customer_id, q.email, q.phone_number) for q in links(sandbox)] == [
        ("invitation", None, "new@example.com", None),
        ("bulk_update_request", with_mail["id"], "ada@example.com", None),
        ("bulk_update_request", with_phone_only["id"], None, "5551234567")]
    unknown = call(b_client, "customer.bulk_update_request",
                   json={"itemList": [UNKNOWN], "expirationTime": 2, "unitOfTime": "days"})
    assert unknown.status_code == 400 and UNKNOWN in unknown.text


# ---------------------------------------------------------------- CSV


def test_export_lists_live_vaults_in_the_reference_columns(b_client):
    ada = create(b_client, phoneNumber="5551234567", companyName="Engines", dateOfBirth="1815-12-10",
                 billingAddress={"country": "US", "city": "London", "state": "TX", "address": "1 St",
                                 "zipCode": "73301"})
    call(b_client, "customer.card_add", id=ada["id"], json={"number": "424242**4242", "paymentToken": "t-x"})
    gone = create(b_client, email="gone@example.com")
    call(b_client, "customer.delete", id=gone["id"])
    answer = call(b_client, "customer.export", params={"timezone": "America/New_York"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/csv; charset=utf-8"
    header, *data = rows(answer)
    assert tuple(header) == EXPORT_COLUMNS and len(header) == 22 and len(data) == SEEDED + 1
    [row] = not_seeded(data)
    assert row[:10] == [ada["id"], "Ada", "Byron", "ada@example.com", "5551234567", "12/10/1815", "", "Engines", "",
                        "US"]
    assert row[10:13] == ["London", "TX", "1 St"] and "73301" not in row  # ZIP codes are not exported
    assert row[19:21] == ["Visa", "4242"] and len(row[21]) == len("01/31/2026 23:59:59")
    bad_zone = call(b_client, "customer.export", params={"timezone": "Mars/Base"})
    assert bad_zone.status_code == 400 and "timezone" in bad_zone.text


def test_template_has_the_first_19_columns_and_the_creation_date(b_client):
    header, *seeded = rows(call(b_client, "customer.template"))  # the live data: the seeded customers
    assert tuple(header) == TEMPLATE_COLUMNS and len(seeded) == SEEDED and not not_seeded(seeded)
    ada = create(b_client)
    header, *data = rows(call(b_client, "customer.template"))
    [row] = not_seeded(data)
    assert tuple(header) == TEMPLATE_COLUMNS and len(header) == 20 and row[0] == ada["id"]


def upload(client, text: str, field: str = "file"):
    return client.post("/public/customer/import", files={field: ("customers.csv", text.encode(), "text/csv")})


def test_import_creates_and_updates_by_unique_id(b_client):
    ada = create(b_client)
    text = "\r\n".join([",".join(TEMPLATE_COLUMNS),
                        f"{ada['id']},Augusta,King,,,,Female,,,,,,,,,,,,",
                        ",Alan,Turing,alan@example.com,(555) 123-4567,06/23/1912,Male,,,CA,,,,,,,,,",
                        ""])
    answer = upload(b_client, text)
    assert answer.status_code == 200 and body(answer) == {"success": True}
    everyone = {c["firstName"]: c for c in body(call(b_client, "customer.list"))["data"]
                if c["email"] not in SEEDED_EMAILS}
    assert set(everyone) == {"Augusta", "Alan"}
    augusta = everyone["Augusta"]
    assert (augusta["id"], augusta["lastName"], augusta["gender"]) == (ada["id"], "King", "Female")
    assert augusta["email"] == "ada@example.com"  # an empty cell keeps the value
    assert everyone["Alan"]["billingAddress"] == {"country": "CA"} and everyone["Alan"]["dateOfBirth"] == "1912-06-23"


def test_import_is_all_or_nothing_and_names_every_failing_line(b_client):
    create(b_client)
    before = body(call(b_client, "customer.list"))["data"]
    text = "\n".join(["header", ",Good,Row", ",,NoFirstName", ",Alan,Turing,not-mail,555-123-4567", ""])
    answer = upload(b_client, text)
    assert answer.status_code == 400
    error = body(answer)["response"]
    assert error["text"] == "Invalid rows at lines 3, 4"
    assert error["message"] == ["Line 3: First Name is required", "Line 4: Email Address must be an email",
                                "Line 4: Phone Number must match ^[+]?[(]?[0-9]{3}[)]?[ ]?[0-9]{3}[-]?[0-9]{4}$ "
                                "regular expression"]
    assert body(call(b_client, "customer.list"))["data"] == before  # the good row was not imported either


def test_import_needs_the_file_field(b_client):
    answer = upload(b_client, "a,b\n,c,d\n", field="attachment")
    assert answer.status_code == 400 and "file should not be empty" in answer.text
