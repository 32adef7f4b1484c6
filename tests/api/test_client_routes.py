"""The client against the sandbox over real loopback HTTP: every route, both gateway types."""

from __future__ import annotations

import asyncio
import time

import pytest

from pos_app.api import errors as e
from pos_app.api.client import PaymentsClient
from pos_app.api.models import PayAccepted, TerminalResult
from pos_app.api.requests import (
    CaptureRequest,
    CategoryRef,
    CloseBatchRequest,
    ItemDraft,
    PayRequest,
    RefundRequest,
    VoidRequest,
)
from pos_app.api.routes import ROUTES, RouteTable


async def active_terminal(client):
    listing = await client.list_terminals()
    return next(t for t in listing.data if t.is_active is not False)


async def wait_complete(client, message_id, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = await client.poll_message(message_id)
        if message.status in ("complete", "failed"):
            return message
        await asyncio.sleep(0.5)  # the service's poll budget: 120 a minute
    raise AssertionError("message did not complete")


async def test_terminal_lists_have_both_shapes(clients):
    s_list = await clients["S"].list_terminals()
    assert s_list.total == len(s_list.data) and all(t.serial_number for t in s_list.data)
    assert any(t.is_active is False for t in s_list.data)
    b_list = await clients["B"].list_terminals(page=1, limit=10)
    assert b_list.meta is not None and b_list.meta.page == 1 and b_list.data


async def test_type_s_pay_is_polled_to_a_payment(clients):
    client = clients["S"]
    terminal = await active_terminal(client)
    accepted = await client.pay(PayRequest(terminalId=terminal.id, amount=1999), attempt_id="a-test-s1")
    assert isinstance(accepted, PayAccepted) and accepted.msg_identifier
    message = await wait_complete(client, accepted.msg_identifier)
    payment = await client.get_payment(message.payment_id)
    assert payment.paid and payment.amount == 1999 and payment.net_amount >= 1999
    assert payment.card and payment.card.last4


async def test_type_b_pay_answers_directly_and_auth_captures(clients):
    client = clients["B"]
    terminal = await active_terminal(client)
    sale = await client.pay(PayRequest(terminalId=terminal.id, amount=2500), attempt_id="a-test-b1")
    assert isinstance(sale, TerminalResult) and sale.transaction_id and not sale.error
    assert sale.proves_approval and sale.error_flag is False
    auth = await client.auth(PayRequest(terminalId=terminal.id, amount=4000), attempt_id="a-test-b2")
    assert isinstance(auth, TerminalResult) and auth.proves_approval
    captured = await client.capture(
        CaptureRequest(terminalId=terminal.id, pnRefNum=auth.transaction_id, amount=4000), attempt_id="a-test-b3"
    )
    assert not captured.error and captured.proves_approval
    voided = await client.void(
        VoidRequest(terminalId=terminal.id, pnRefNum=sale.transaction_id), attempt_id="a-test-b4"
    )
    assert not voided.error and voided.proves_approval
    closed = await client.close_batch(CloseBatchRequest(terminalId=terminal.id), attempt_id="a-test-b5")
    assert closed.success and closed.error_flag is None
    refund = await client.refund(
        RefundRequest(terminalId=terminal.id, pnRefNum=auth.transaction_id, amount=1000), attempt_id="a-test-b6"
    )
    assert not refund.error and refund.proves_approval
    payment = await client.get_payment(auth.payment_id)
    assert payment.paid is True and payment.refunded_amount == 1000 and payment.odd_fields == {}
    listing = await client.list_transactions(page=1, limit=50)
    assert listing.skipped == 0 and listing.data
    assert all(entry.odd_fields == {} and entry.terminal_id == terminal.id for entry in listing.data)
    assert not any(entry.declined for entry in listing.data)


async def test_type_s_close_batch_by_serial(clients):
    client = clients["S"]
    terminal = await active_terminal(client)
    result = await client.close_batch(
        CloseBatchRequest(terminalId=terminal.serial_number), attempt_id="a-cb", by_serial=True
    )
    assert result.success and result.message


async def test_declines_raise_gateway_declined(clients):
    b = clients["B"]
    terminal = await active_terminal(b)
    with pytest.raises(e.GatewayDeclined) as inside_2xx:
        await b.pay(PayRequest(terminalId=terminal.id, amount=99), attempt_id="a-d1")
    assert inside_2xx.value.status_code == 200 and inside_2xx.value.transaction_id
    assert inside_2xx.value.result.error_flag is True and not inside_2xx.value.result.proves_approval
    declined = [entry for entry in (await b.list_transactions(page=1, limit=10)).data if entry.declined]
    assert [entry.transaction_id for entry in declined] == [inside_2xx.value.transaction_id]
    with pytest.raises(e.GatewayDeclined) as as_501:
        await b.pay(PayRequest(terminalId=terminal.id, amount=9905), attempt_id="a-d2")
    assert as_501.value.status_code == 501 and as_501.value.transaction_id is None


async def test_user_agent_and_attempt_id_are_recorded(clients):
    client = clients["B"]
    terminal = await active_terminal(client)
    await client.pay(PayRequest(terminalId=terminal.id, amount=1234), attempt_id="a-ua-check")
    listing = await client.list_transactions(page=1, limit=5)
    entry = listing.data[0]
    assert entry.user_agent.startswith("pos-app/")
    assert "store s1; station lane-1; cashier c7; attempt a-ua-check" in entry.user_agent
    assert listing.meta.page == 1 and listing.meta.limit == 5  # echoed as strings, read as ints
    assert entry.amount == entry.base_amount + entry.surcharge


async def test_reads_do_not_carry_an_attempt_id(clients, sandbox):
    with pytest.raises(ValueError):
        await clients["B"].call("terminal.pay", body={}, attempt_id=None)


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_receipt_pdf_both_copies(clients, merchant):
    client = clients[merchant]
    terminal = await active_terminal(client)
    answer = await client.pay(PayRequest(terminalId=terminal.id, amount=3100), attempt_id="a-r1")
    if isinstance(answer, TerminalResult):
        payment_id = answer.payment_id
    else:
        payment_id = (await wait_complete(client, answer.msg_identifier)).payment_id
    merchant_copy = await client.receipt_pdf(payment_id)
    customer_copy = await client.receipt_pdf(payment_id, for_merchant=False)
    assert merchant_copy.startswith(b"%PDF") and customer_copy.startswith(b"%PDF")
    assert merchant_copy != customer_copy


async def test_surcharge_quote_and_acknowledgment(clients):
    s_quote = await clients["S"].surcharge_rate(10000, bin_card="424242", token_id="tok-1")
    assert s_quote.surcharge == 300 and s_quote.rate > 0
    with pytest.raises(e.ServiceError):
        await clients["S"].surcharge_rate(10000)  # type S needs tokenId and binCard
    paragraphs = await clients["B"].surcharge_acknowledgment()
    assert paragraphs and any("2.5" in p for p in paragraphs)


async def test_taxes_and_catalog_reads(clients):
    client = clients["S"]
    taxes = await client.taxes()
    assert taxes and all(t.rate > 0 for t in taxes)
    page = await client.list_items(page=1, limit=20)
    assert len(page.data) == 20 and page.meta.count >= 200 and page.meta.sort_by
    ids = await client.item_ids()
    assert len(ids) == page.meta.count
    categories = await client.categories()
    assert len(categories) >= 5
    item = await client.get_item(page.data[0].id)
    assert item.id == page.data[0].id and item.sales_price == page.data[0].sales_price
    all_items = (await client.list_items(page=1, limit=500)).data
    assert any(i.sales_price < 0 and not i.taxes for i in all_items), "a discount line"


async def test_item_crud_with_dollar_and_cent_quirks(clients):
    client = clients["B"]
    taxes = await client.taxes()
    draft = ItemDraft(name="Test mug", type="product", salesPrice=1299, sku="000000000123",
                      categories=[CategoryRef(id=None, name="Mugs")], taxes=[taxes[0].id])
    created = await client.create_item(draft)
    assert created.sales_price == 1299 and created.categories[0].name == "Mugs"
    updated = await client.update_item(created.id, draft.model_copy(update={"sales_price": 1450}))
    assert updated.sales_price == 1450  # re-read: the service answers the pre-update item
    duplicate = await client.duplicate_item(created.id)
    assert duplicate.sales_price == 1450 and duplicate.id != created.id  # answered in cents
    deleted = await client.delete_item(created.id)
    assert deleted.sales_price == 1450 and deleted.deleted_at  # answered in cents
    assert (await client.get_item(created.id)).deleted_at
    assert await client.bulk_duplicate_items([duplicate.id], created_by="mgr")
    assert await client.bulk_delete_items([duplicate.id], created_by="mgr")


async def test_service_refuses_a_discount_with_taxes_even_if_sent(clients):
    taxes = await clients["B"].taxes()
    body = {"name": "Bad", "type": "discount", "salesPrice": -5, "categories": [], "taxes": [taxes[0].id]}
    with pytest.raises(e.ValidationFailed) as refused:
        await clients["B"].call("item.create", body=body)
    assert refused.value.messages


async def test_error_shapes_over_http(clients, sandbox):
    client = clients["B"]
    with pytest.raises(e.NotFound):
        await client.get_payment("no-such-payment")
    async with PaymentsClient(sandbox.base_url, "wrong-key") as stranger:
        with pytest.raises(e.Unauthorized):
            await stranger.list_terminals()
    for status, cls in [(901, e.ChargeRequestError), (904, e.ChargeRequestError), (906, e.ChargeRequestError),
                        (401, e.Unauthorized), (501, e.GatewayDeclined), (400, e.ValidationFailed)]:
        sandbox_inject(sandbox, "terminal.pay", status)
        terminal = await active_terminal(client)
        with pytest.raises(cls) as raised:
            await client.pay(PayRequest(terminalId=terminal.id, amount=100), attempt_id=f"a-inj-{status}")
        assert raised.value.status_code == status


async def test_invalid_request_is_validation_failed_with_field_messages(clients):
    with pytest.raises(e.ValidationFailed) as refused:
        await clients["B"].call("terminal.pay", body={"terminalId": "", "amount": "ten"}, attempt_id="a-bad")
    assert refused.value.code == "900" and len(refused.value.messages) >= 2


async def test_path_overrides_are_used(sandbox):
    table = RouteTable({"tax.list": "GET /public/no-such-route"})
    async with PaymentsClient(sandbox.base_url, sandbox.keys["B"], routes=table) as client:
        with pytest.raises(e.NotFound):
            await client.taxes()
    with pytest.raises(ValueError):
        RouteTable({"payment.get": "/public/payment"})  # drops {id}


def test_route_table_marks_every_route():
    assert {r.source for r in ROUTES.values()} == {"spec", "assumed"}
    assert {n for n, r in ROUTES.items() if r.moves_money} == {
        "terminal.pay", "terminal.auth", "terminal.capture", "terminal.void", "terminal.refund",
        "terminal.close_batch", "terminal.close_batch_by_serial",
        "card.charge", "card.capture", "card.void", "card.refund", "card.bulk_charge",
        "ach.charge", "ach.refund", "ach.void", "subscription.retry"}


def sandbox_inject(sandbox, route, status):
    import httpx

    injection = {"route": route, "status": status, "count": 1}
    httpx.post(f"{sandbox.base_url}/_sandbox/inject", json=injection).raise_for_status()
