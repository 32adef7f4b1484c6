"""Payment links, both versions, and attachments through the client against the sandbox
over loopback: every operation, the money units of reference 2.1 (each trap its own test,
which fails if the unit table were wrong), and the checks done before anything is sent."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from pos_app.api import errors as e
from pos_app.api.attachments import AttachmentFile, AttachmentLimits
from pos_app.api.link_models import LinkDraft
from pos_app.api.requests import CustomValue
from pos_app.api.uploads import SubscriptionAttachments
from pos_app.api.wire import decode_json
from pos_app.sandbox.link_store import Channel, sent_links, stored_files
from tests.links import CITY_TAX_B, JPG, PDF, PNG, STATE_TAX_B, answer_once, link_requests, paid

LINK_ID = "0123456789abcdef01234567"
MB = 1024 * 1024


def raw(sandbox, path: str) -> dict:
    """A link route's answer as the wire carries it (fractions as Decimal)."""
    answer = httpx.get(sandbox.base_url + path, headers={"key-hash": sandbox.keys["B"]}, timeout=5)
    assert answer.status_code == 200, answer.text
    return decode_json(answer.content)


# ---------------------------------------------------------------- the $12.50 link, every way it is read


async def test_a_1250_link_reads_1250_cents_through_create_view_and_both_lists(sandbox, clients):
    links = clients["B"].links
    made = await links.create(LinkDraft(amount=1250))
    assert (made.amount, made.taxes, made.total_amount, made.paid_amount) == (1250, 0, 1250, 0)
    assert made.url and made.active is True and not made.is_paid

    seen = await links.get(made.id)
    assert (seen.amount, seen.total_amount, seen.paid_amount) == (1250, 1250, 0)
    assert raw(sandbox, f"/public/202104/payment-link/{made.id}")["data"]["amount"] == Decimal("12.5")

    listed = await links.list()
    assert [(link.id, link.amount, link.total_amount) for link in listed.data] == [(made.id, 1250, 1250)]
    assert listed.meta.count == 1 and listed.refused == []
    assert raw(sandbox, "/public/202104/payment-link")["data"][0]["amount"] == 1250

    old = await clients["B"].old_links.list()
    assert [(link.id, link.amount, link.total_amount) for link in old.data] == [(made.id, 1250, 1250)]
    assert raw(sandbox, "/public/payment-link")["data"][0]["amount"] == Decimal("12.5")
    assert (await clients["B"].old_links.get(made.id)).amount == 1250


# ---------------------------------------------------------------- each unit trap on its own (answers given)


def link_answer(amount) -> dict:
    return {"id": LINK_ID, "url": "https://pay.example/l", "amount": amount, "taxes": 0, "totalAmount": amount,
            "paidAmount": 0, "surcharge": 0}


@pytest.mark.parametrize("route, wire", [
    ("link.create", 1250),  # 202104 create: cents
    ("link.list", 1250),  # 202104 list: cents
    ("link.get", Decimal("12.5")),  # 202104 view: dollars
    ("old_link.create", Decimal("12.5")),  # deprecated: dollars out
    ("old_link.list", Decimal("12.5")),
    ("old_link.get", Decimal("12.5")),
])
async def test_each_route_reads_its_own_unit_as_cents(sandbox, clients, route, wire):
    version, operation = route.split(".")
    links = clients["B"].old_links if version == "old_link" else clients["B"].links
    if operation == "list":
        answer_once(sandbox, route, {"meta": {"count": 1}, "data": [link_answer(wire)]})
        page = await links.list()
        assert [link.amount for link in page.data] == [1250] and page.refused == []
    elif operation == "create":
        answer_once(sandbox, route, {"data": link_answer(wire)})
        assert (await links.create(LinkDraft(amount=1200))).amount == 1250
    else:
        answer_once(sandbox, route, {"data": link_answer(wire)})
        assert (await links.get(LINK_ID)).total_amount == 1250


async def test_a_dollar_fraction_where_cents_are_due_is_no_amount(sandbox, clients):
    answer_once(sandbox, "link.create", {"data": link_answer(Decimal("12.5"))})
    with pytest.raises(e.ProtocolError, match="whole cents"):
        await clients["B"].links.create(LinkDraft(amount=1250))
    answer_once(sandbox, "link.list", {"meta": {"count": 2}, "data": [
        link_answer(1250), {**link_answer(Decimal("12.5")), "id": "f" * 24}]})
    page = await clients["B"].links.list()
    assert [link.id for link in page.data] == [LINK_ID]
    assert [r.id for r in page.refused] == ["f" * 24] and page.skipped == 1


@pytest.mark.parametrize("route", ["link.delete", "old_link.delete"])
async def test_the_delete_document_reads_dollars_as_cents(sandbox, clients, route):
    answer_once(sandbox, route, {"data": {
        "_id": LINK_ID, "amount": Decimal("12.5"), "tax": Decimal("0.78"), "active": False,
        "deletedAt": "2026-01-01T00:00:00.000Z", "order": {}}})
    links = clients["B"].old_links if route.startswith("old") else clients["B"].links
    deleted = await links.delete(LINK_ID)
    assert (deleted.id, deleted.amount, deleted.tax, deleted.active) == (LINK_ID, 1250, 78, False)


async def test_deprecated_create_refuses_cents_that_are_no_whole_dollar_and_sends_whole_dollars(sandbox, clients):
    old = clients["B"].old_links
    with pytest.raises(e.InvalidInput, match="whole dollars.*1250 cents"):
        await old.create(LinkDraft(amount=1250))
    assert link_requests(sandbox) == 0
    made = await old.create(LinkDraft(amount=1200))
    assert (made.amount, made.total_amount) == (1200, 1200)  # the sandbox read 12 dollars
    assert (await clients["B"].links.get(made.id)).amount == 1200


# ---------------------------------------------------------------- taxes, payment, delete


async def test_taxes_are_computed_on_the_amount_and_named_on_the_deprecated_routes(clients):
    links = clients["B"].links
    note = CustomValue(key="note", label="Note", value="table 4")
    made = await links.create(LinkDraft(amount=1000, taxes=[STATE_TAX_B, CITY_TAX_B], customValues=[note],
                                        showBilling=True))
    assert (made.amount, made.taxes, made.total_amount) == (1000, 63 + 20, 1083)  # 62.5 rounds half up
    assert made.model_extra["customValues"] == [{"key": "note", "label": "Note", "value": "table 4"}]
    assert made.model_extra["showBilling"] is True
    assert (await links.get(made.id)).taxes == 83  # 0.83 dollars on the wire
    old = await clients["B"].old_links.get(made.id)
    assert old.selected_taxes == [STATE_TAX_B, CITY_TAX_B] and old.total_amount == 1083
    with pytest.raises(e.ValidationFailed, match="unknown tax"):
        await links.create(LinkDraft(amount=1000, taxes=["65a1c0de0000000000007a01"]))  # merchant S's tax


@pytest.mark.parametrize("version", ["links", "old_links"])
async def test_a_link_is_paid_once_its_payment_covers_the_total(sandbox, clients, version):
    links = getattr(clients["B"], version)
    made = await links.create(LinkDraft(amount=2000, taxes=[CITY_TAX_B]))
    assert made.total_amount == 2040
    partly = paid(sandbox, made.id, 1000)
    seen = await links.get(made.id)
    assert not seen.is_paid and seen.paid_amount == 1000 and seen.payment_id == partly["payment"]["id"]
    rest = paid(sandbox, made.id)
    seen = await links.get(made.id)
    assert seen.is_paid and seen.paid_amount == 2040 and seen.payment_id == rest["payment"]["id"]
    payment = await clients["B"].get_payment(seen.payment_id)
    assert payment.paid is True and payment.amount == 1040


@pytest.mark.parametrize("version", ["links", "old_links"])
async def test_delete_answers_the_request_document_and_the_link_leaves_the_list(clients, version):
    links = getattr(clients["B"], version)
    kept = await links.create(LinkDraft(amount=500))
    gone = await links.create(LinkDraft(amount=700))
    deleted = await links.delete(gone.id)
    assert deleted.id == gone.id and deleted.active is False and deleted.deleted_at and deleted.amount == 700
    assert [link.id for link in (await links.list()).data] == [kept.id]
    assert (await links.get(gone.id)).active is False  # still readable by id
    with pytest.raises(e.ApiError, match="already deleted"):
        await links.delete(gone.id)
    with pytest.raises(e.NotFound):
        await links.get("f" * 24)


async def test_list_pages(clients):
    links = clients["B"].links
    made = [await links.create(LinkDraft(amount=100 * (n + 1))) for n in range(3)]
    first = await links.list(limit=2)
    second = await links.list(page=2, limit=2)
    assert first.meta.count == 3 and first.meta.total_pages == 2
    assert [link.id for link in first.data + second.data] == [link.id for link in reversed(made)]  # newest first


# ---------------------------------------------------------------- sending


@pytest.mark.parametrize("version, prefix", [("links", "link"), ("old_links", "old_link")])
async def test_send_by_email_and_by_sms_are_recorded(sandbox, clients, version, prefix):
    links = getattr(clients["B"], version)
    made = await links.create(LinkDraft(amount=1200))
    by_mail = await links.send(made.id, email="ana@example.com")
    by_sms = await links.send_sms(made.id, "(555) 123-4567")
    assert by_mail.success is True and by_sms.success is True
    assert [(s.link_id, s.channel, s.to, s.url) for s in sent_links(sandbox.sandbox, "B")] == [
        (made.id, Channel.EMAIL, "ana@example.com", made.url), (made.id, Channel.SMS, "(555) 123-4567", made.url)]
    counts = sandbox.stats()["requests"]["B"]
    assert counts[f"{prefix}.send_email"] == 1 and counts[f"{prefix}.send_sms"] == 1


@pytest.mark.parametrize("kwargs, why", [
    ({}, "exactly one"),
    ({"email": "ana@example.com", "phone": "5551234567"}, "exactly one"),
    ({"phone": "555-123-4567"}, "not a US number"),
    ({"email": "ana at example"}, "email address"),
])
async def test_a_bad_recipient_is_refused_before_sending(sandbox, clients, kwargs, why):
    with pytest.raises(e.InvalidInput, match=why):
        await clients["B"].links.send(LINK_ID, **kwargs)
    assert link_requests(sandbox) == 0


@pytest.mark.parametrize("make, why", [
    (lambda links: links.get("not-an-id"), "24-character"),
    (lambda links: links.delete("0123"), "24-character"),
    (lambda links: links.send_email("x" * 24, "ana@example.com"), "24-character"),
    (lambda links: links.create(LinkDraft(amount=0)), "more than 0"),
    (lambda links: links.create(LinkDraft(amount="12.50")), "whole number of cents"),
    (lambda links: links.create(LinkDraft(amount=100, taxes=["state"])), "24-character"),
    (lambda links: links.create(LinkDraft(amount=100, taxes=[STATE_TAX_B, STATE_TAX_B])), "named twice"),
    (lambda links: links.list(page=0), "page"),
])
async def test_bad_ids_and_amounts_are_refused_before_sending(sandbox, clients, make, why):
    with pytest.raises(e.InvalidInput, match=why):
        await make(clients["B"].links)
    assert link_requests(sandbox) == 0


# ---------------------------------------------------------------- attachments


@pytest.mark.parametrize("version", ["links", "old_links"])
async def test_uploaded_files_go_into_a_link(sandbox, clients, version):
    links = getattr(clients["B"], version)
    uploaded = await links.upload_attachments([AttachmentFile("menu.png", PNG), AttachmentFile("terms.pdf", PDF)])
    assert [(f.original_name, f.size_in_mb) for f in uploaded.files] == [
        ("menu.png", (Decimal(len(PNG)) / MB).quantize(Decimal("0.0001"))),
        ("terms.pdf", (Decimal(len(PDF)) / MB).quantize(Decimal("0.0001")))]
    assert all(f.full_path and f.full_path.endswith(f.path) for f in uploaded.files)
    assert [(s.original_name, s.size, s.media_type) for s in stored_files(sandbox.sandbox, "B")] == [
        ("menu.png", len(PNG), "image/png"), ("terms.pdf", len(PDF), "application/pdf")]
    made = await links.create(LinkDraft(amount=1200, attachments=uploaded.files))
    assert [a["originalName"] for a in made.model_extra["attachments"]] == ["menu.png", "terms.pdf"]


async def test_read_a_file_from_disk(tmp_path, clients):
    (tmp_path / "photo.JPG").write_bytes(JPG)
    uploaded = await clients["B"].links.upload_attachments([AttachmentFile.read(tmp_path / "photo.JPG")])
    assert [f.original_name for f in uploaded.files] == ["photo.JPG"]
    with pytest.raises(e.InvalidInput, match="cannot be read"):
        AttachmentFile.read(tmp_path / "missing.pdf")


@pytest.mark.parametrize("files, why", [
    ([], "at least one"),
    ([AttachmentFile(f"p{n}.png", PNG) for n in range(11)], "11 attachments given: at most 10"),
    ([AttachmentFile("big.pdf", b"%PDF" + b"0" * (13 * MB)), AttachmentFile("big2.pdf", b"%PDF" + b"0" * (13 * MB))],
     "in all: at most 25 MB"),
    ([AttachmentFile("anim.gif", b"GIF89a")], "not a JPG, PNG or PDF"),
    ([AttachmentFile("fake.png", PDF)], "content is not"),
    ([AttachmentFile("empty.pdf", b"")], "empty"),
    ([AttachmentFile("../x.png", PNG)], "no folder"),
])
async def test_attachments_over_the_limits_are_refused_without_a_request(sandbox, clients, files, why):
    with pytest.raises(e.InvalidInput, match=why):
        await clients["B"].links.upload_attachments(files)
    with pytest.raises(e.InvalidInput, match=why):
        await clients["B"].subscription_attachments.upload(files)
    assert link_requests(sandbox) == 0


async def test_subscription_attachments_and_their_per_file_limit(sandbox, clients):
    uploaded = await clients["S"].subscription_attachments.upload([AttachmentFile("contract.pdf", PDF)])
    assert [f.original_name for f in uploaded.files] == ["contract.pdf"]
    assert sandbox.stats()["requests"]["S"]["subscription.upload_attachments"] == 1
    small = SubscriptionAttachments(clients["S"], AttachmentLimits(max_files=3, max_total_bytes=25 * MB,
                                                                    max_file_bytes=MB))
    with pytest.raises(e.InvalidInput, match="big.pdf.*at most 1 MB per file"):
        await small.upload([AttachmentFile("big.pdf", b"%PDF" + b"0" * MB)])
    assert sandbox.stats()["requests"]["S"]["subscription.upload_attachments"] == 1
