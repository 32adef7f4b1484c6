"""The sandbox's customer vaults over raw HTTP: the reference's state rules and texts."""

from __future__ import annotations

from datetime import date

from tests.sandbox.helpers import SEEDED, body, call

EXP = f"12{date.today().year + 1 - 2000:02d}"


def create(client, **fields):
    answer = call(client, "customer.create", json={"firstName": "Ada", "lastName": "Byron",
                                                    "email": "ada@example.com", **fields})
    assert answer.status_code == 201, answer.text
    return body(answer)["data"]


def test_create_validates_every_field_at_once(b_client):
    answer = call(b_client, "customer.create", json={"firstName": "", "email": "nope", "phoneNumber": "555-123-4567",
                                                      "gender": "Other", "cards": [{"number": "4242424242424242"}]})
    assert answer.status_code == 400
    error = body(answer)
    assert error["response"]["code"] == 900 and error["path"] == "/v1/public/customer"
    text = " | ".join(error["response"]["message"])
    for field in ("firstName", "lastName", "email", "phoneNumber", "gender", "cards.0.number", "cards.0.exp"):
        assert field in text, (field, text)


def test_update_drops_null_and_empty_and_appends_cards(b_client):
    vault = create(b_client, companyName="Engines", cards=[{"number": "424242******4242", "exp": EXP}])
    answer = call(b_client, "customer.update", id=vault["id"],
                  json={"companyName": "", "lastName": None, "firstName": "Augusta",
                        "cards": [{"number": "555555******4444", "paymentToken": "t-1"}]})
    assert answer.status_code == 200, answer.text
    data = body(answer)["data"]
    assert (data["companyName"], data["lastName"], data["firstName"]) == ("Engines", "Byron", "Augusta")
    assert [m["last4"] for m in data["paymentMethods"]] == ["4242", "4444"]
    assert data["paymentMethod"]["last4"] == "4242" and data["paymentMethods"][0]["default"] is True
    without_token = call(b_client, "customer.update", id=vault["id"], json={"cards": [{"number": "555555**4444"}]})
    assert without_token.status_code == 400 and "cards.0.paymentToken" in without_token.text


def test_unknown_and_malformed_ids(b_client):
    unknown = "0123456789abcdef01234567"
    update = call(b_client, "customer.update", id=unknown, json={"firstName": "X"})
    assert update.status_code == 400 and body(update)["response"]["text"] == f"Customer with id: {unknown} not found"
    assert call(b_client, "customer.get", id=unknown).status_code == 404
    bad = call(b_client, "customer.delete", id="not-hex")
    assert bad.status_code == 400 and body(bad)["response"]["message"] == "Invalid id"
    card_op = call(b_client, "customer.card_add", id=unknown, json={"number": "424242**4242", "paymentToken": "t"})
    assert card_op.status_code == 400  # every failure of the card operations is 400


def test_soft_delete_keeps_the_vault_readable_and_frozen(b_client):
    vault = create(b_client)
    deleted = body(call(b_client, "customer.delete", id=vault["id"]))["data"]
    assert deleted["deletedAt"]
    assert body(call(b_client, "customer.get", id=vault["id"]))["data"]["deletedAt"] == deleted["deletedAt"]
    assert call(b_client, "customer.update", id=vault["id"], json={"firstName": "X"}).status_code == 400
    assert call(b_client, "customer.delete", id=vault["id"]).status_code == 400
    assert body(call(b_client, "customer.list"))["meta"]["count"] == SEEDED  # the seeded ones only


def test_default_promotion_and_one_default_slot(s_client):
    vault = create(s_client)
    ids = []
    for number, token in (("424242**4242", "a"), ("555555**4444", "b"), ("400005**5556", "c")):
        answer = call(s_client, "customer.card_add", id=vault["id"], json={"number": number, "paymentToken": token})
        assert answer.status_code == 201, answer.text
        ids.append(body(answer)["data"]["customerVaultId"])
    default = call(s_client, "customer.ach_default", id=vault["id"], customerVaultId=ids[2])  # the type is unchecked
    assert body(default)["data"]["paymentMethod"]["customerVaultId"] == ids[2]
    after = body(call(s_client, "customer.card_delete", id=vault["id"], customerVaultId=ids[2]))["data"]
    assert after["paymentMethod"]["customerVaultId"] == ids[0]  # the first remaining method
    assert [m["default"] for m in after["paymentMethods"]] == [True, False]


def test_keyword_matches_name_email_phone_company_external_id_and_last4(b_client):
    ada = create(b_client, phoneNumber="5551234567", companyName="Analytical", externalId="EXT-1",
                 cards=[{"number": "555555******4444", "exp": EXP}])
    create(b_client, firstName="Alan", lastName="Turing", email="alan@example.org")
    for keyword in ("byron", "ada b", "ADA@EXAMPLE", "1234567", "analyt", "ext-1", "4444"):
        found = body(call(b_client, "customer.list", params={"keyword": keyword}))
        assert [c["id"] for c in found["data"]] == [ada["id"]], keyword
    paged = body(call(b_client, "customer.list", params={"limit": "1", "page": "2"}))
    everyone = SEEDED + 2
    assert paged["meta"] == {"count": everyone, "totalPages": everyone, "page": 2, "limit": 1}
    assert len(paged["data"]) == 1
    assert len(body(call(b_client, "customer.list", params={"limit": "0"}))["data"]) == everyone


def test_static_routes_are_not_read_as_an_id(b_client):
    answer = call(b_client, "customer.export")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")  # not a vault "export"
