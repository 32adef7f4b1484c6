"""Answers never look like more than they prove: decline flags at any level, approval
evidence, lenient payments and transaction entries, close batch shapes, typed parses."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pos_app.api.errors import ProtocolError
from pos_app.api.models import (
    CloseBatchResult,
    GatewayResponse,
    PayAccepted,
    Payment,
    TerminalResult,
    TransactionEntry,
    error_flag,
)
from pos_app.api.parsing import either, instance, list_of, page_of, parse_answer

APPROVED = {"resultCode": "0", "resultTxt": "APPROVED"}
DECLINED = {"resultCode": "200", "resultTxt": "DECLINED"}
TERMINAL_ROUTES = ["terminal.pay", "terminal.auth", "terminal.capture", "terminal.void", "terminal.refund"]


def parse(route, body):
    return parse_answer(route, json.dumps(body).encode())


# ------------------------------------------------------------------ decline flags


@pytest.mark.parametrize("route", TERMINAL_ROUTES)
@pytest.mark.parametrize("body", [
    {"error": True, "data": {"transactionId": "t1", "gwResponse": APPROVED}},  # was unwrapped and read approved
    {"data": {"error": True, "transactionId": "t1", "gwResponse": APPROVED}},
    {"error": True, "data": {"error": True, "transactionId": "t1", "gwResponse": APPROVED}},
    {"error": False, "data": {"error": True, "transactionId": "t1", "gwResponse": APPROVED}},
    {"error": True, "data": {"error": False, "transactionId": "t1", "gwResponse": APPROVED}},
    {"error": "Card declined", "transactionId": "t1", "gwResponse": APPROVED},
    {"error": "false", "transactionId": "t1", "gwResponse": APPROVED},  # a non-empty text is a reason
    {"data": {"error": "do not honor", "transactionId": "t1"}, "error": None},
])
def test_an_error_flag_at_any_level_is_a_decline(route, body):
    result = parse(route, body)
    assert isinstance(result, TerminalResult)
    assert result.error is True and result.error_flag is True and not result.proves_approval
    assert result.transaction_id == "t1"  # ids read from the inner object, flag kept


def test_the_error_text_is_kept_as_the_reason():
    result = parse("terminal.capture", {"error": "do not honor", "transactionId": "t1"})
    assert result.error_text == "do not honor" and result.gateway_text == "do not honor"
    assert parse("terminal.capture", {"error": "x", "gwResponse": DECLINED}).gateway_text == "DECLINED"


@pytest.mark.parametrize("value,flag", [(None, None), (False, False), ("", False), (True, True), ("no", True)])
def test_error_flag_values(value, flag):
    assert error_flag(value) is flag


@pytest.mark.parametrize("route", TERMINAL_ROUTES)
@pytest.mark.parametrize("odd", [1, 0, 1.5, {"code": 5}, ["x"]])
def test_an_error_of_another_type_is_a_protocol_error(route, odd):
    with pytest.raises(ProtocolError):
        parse(route, {"error": odd, "transactionId": "t1", "gwResponse": APPROVED})


@pytest.mark.parametrize("route", TERMINAL_ROUTES)
@pytest.mark.parametrize("body,flag", [
    ({"transactionId": "t1", "gwResponse": APPROVED}, None),
    ({"error": None, "transactionId": "t1", "gwResponse": APPROVED}, None),
    ({"error": False, "transactionId": "t1", "gwResponse": APPROVED}, False),
    ({"data": {"error": False, "transactionId": "t1", "gwResponse": APPROVED}}, False),
    ({"error": False, "data": {"transactionId": "t1", "gwResponse": APPROVED}}, False),
])
def test_no_flag_or_a_false_flag_is_not_an_error(route, body, flag):
    result = parse(route, body)
    assert result.error is False and result.error_flag is flag and result.proves_approval


@pytest.mark.parametrize("route", ["terminal.pay", "terminal.auth"])
@pytest.mark.parametrize("body", [
    {"msgIdentifier": "m1", "error": True},
    {"msgIdentifier": "m1", "error": "terminal busy"},
    {"error": True, "data": {"msgIdentifier": "m1", "pollUrl": "/p"}},
    {"data": {"msgIdentifier": "m1", "error": True}},
])
def test_a_message_id_with_an_error_flag_is_a_decline_not_accepted(route, body):
    result = parse(route, body)
    assert isinstance(result, TerminalResult) and result.error and not result.proves_approval


@pytest.mark.parametrize("body", [
    {"msgIdentifier": "m1", "pollUrl": "/p", "status": "received"},
    {"msgIdentifier": "m1", "error": False},
    {"data": {"msgIdentifier": "m1"}, "error": None},
])
def test_a_message_id_without_error_is_accepted(body):
    assert isinstance(parse("terminal.pay", body), PayAccepted)


@pytest.mark.parametrize("route", TERMINAL_ROUTES)
@pytest.mark.parametrize("body", [
    {},
    {"error": False},
    {"error": False, "paymentId": "p1", "gwResponse": APPROVED},
    {"data": {"gwResponse": APPROVED}},
])
def test_a_result_without_ids_is_returned_not_raised(route, body):
    result = parse(route, body)  # used to raise ProtocolError ("must carry transactionId or paymentId")
    assert isinstance(result, TerminalResult) and not result.error and not result.proves_approval


@pytest.mark.parametrize("route", TERMINAL_ROUTES)
@pytest.mark.parametrize("body", [[], "ok", None, 5, {"transactionId": "t1", "amount": True},
                                  {"transactionId": "t1", "amount": "12"}])
def test_unreadable_results_are_protocol_errors(route, body):
    with pytest.raises(ProtocolError):
        parse(route, body)


# ------------------------------------------------------------------ evidence of approval


@pytest.mark.parametrize("gw,approves", [
    ({"resultCode": "0", "resultTxt": "APPROVED"}, True),
    ({"resultCode": "00"}, True),
    ({"resultCode": "000", "resultTxt": "Approval"}, True),
    ({"resultCode": 0, "resultTxt": "APPROVED"}, True),  # a number code is read as text
    ({"resultCode": "0", "resultTxt": "Partially approved"}, True),
    ({"resultCode": "0", "resultTxt": "DECLINED"}, False),
    ({"resultCode": "0", "resultTxt": "Approved, then declined"}, False),
    ({"resultCode": "0", "resultTxt": "host error"}, False),
    ({"resultCode": "0", "resultTxt": "Processing FAILED"}, False),
    ({"resultCode": "0", "resultTxt": "rejected"}, False),
    ({"resultCode": "1", "resultTxt": "APPROVED"}, False),
    ({"resultCode": "200", "resultTxt": "DECLINED"}, False),
    ({"resultCode": "", "resultTxt": "APPROVED"}, False),
    ({"resultTxt": "Approved"}, True),
    ({"resultTxt": "APPROVAL 123456"}, True),
    ({"resultTxt": "OK"}, False),
    ({"resultTxt": "APPROVED BUT DECLINED BY CVV"}, False),
    ({}, False),
])
def test_gateway_response_approves(gw, approves):
    assert GatewayResponse.model_validate(gw).approves is approves
    result = parse("terminal.pay", {"error": False, "transactionId": "t1", "gwResponse": gw})
    assert result.proves_approval is approves


@pytest.mark.parametrize("body", [
    {"error": False, "gwResponse": APPROVED},  # no transactionId
    {"error": False, "transactionId": "", "gwResponse": APPROVED},
    {"error": False, "transactionId": "  ", "gwResponse": APPROVED},
    {"error": False, "transactionId": "t1", "paymentId": "p1"},  # no gwResponse
    {"error": False, "transactionId": "t1", "gwResponse": None},
    {"error": True, "transactionId": "t1", "gwResponse": APPROVED},
])
def test_no_full_evidence_no_approval(body):
    assert parse("terminal.pay", body).proves_approval is False


def test_a_transaction_id_number_is_read_as_text():
    result = parse("terminal.pay", {"transactionId": 123456, "gwResponse": APPROVED})
    assert result.transaction_id == "123456" and result.proves_approval


# ------------------------------------------------------------------ payment


@pytest.mark.parametrize("raw", ["true", "false", 1, 0, "yes", None, {"v": True}])
def test_paid_is_none_unless_a_json_boolean(raw):
    payment = parse("payment.get", {"data": {"id": "p1", "paid": raw, "amount": 1250}})
    assert payment.paid is None and payment.amount == 1250
    assert payment.odd_fields == ({} if raw is None else {"paid": raw})


@pytest.mark.parametrize("raw", [True, False])
def test_paid_booleans_are_read(raw):
    assert parse("payment.get", {"data": {"id": "p1", "paid": raw}}).paid is raw


def test_payment_without_paid_and_refunded_amount():
    payment = parse("payment.get", {"id": "p1", "refundedAmount": 500, "status": "partially_refunded"})
    assert payment.paid is None and payment.refunded_amount == 500 and payment.odd_fields == {}
    assert parse("payment.get", {"id": "p1"}).refunded_amount is None


def test_payment_odd_fields_are_set_aside_one_by_one():
    payment = parse("payment.get", {"data": {
        "id": "p1", "paid": True, "amount": True, "netAmount": "1288", "refundedAmount": 1.5, "settled": "no",
        "error": False, "status": 3, "card": {"last4": True, "brand": "Visa"}, "extra": [1],
    }})
    assert payment.paid is True and payment.amount is None and payment.net_amount is None
    assert payment.refunded_amount is None and payment.settled is None and payment.error is None
    assert payment.odd_fields == {"amount": True, "netAmount": "1288", "refundedAmount": 1.5, "settled": "no",
                                  "error": False, "status": 3}
    assert payment.card.brand == "Visa" and payment.card.last4 is None and payment.card.odd_fields == {"last4": True}
    assert payment.model_extra == {"extra": [1]}


@pytest.mark.parametrize("body", [{"paid": True}, {"id": None, "paid": True}, {"id": True}, {"id": ["p"]}])
def test_payment_id_stays_required(body):
    with pytest.raises(ProtocolError):
        parse("payment.get", {"data": body})


def test_payment_model_is_lenient_outside_the_parser_too():
    payment = Payment.model_validate({"id": "p1", "paid": "true"})
    assert payment.paid is None and payment.odd_fields == {"paid": "true"}


# ------------------------------------------------------------------ close batch


@pytest.mark.parametrize("body,success", [
    ({"data": {"success": True, "message": "Batch closed"}}, True),
    ({"data": {"success": False, "message": "host unavailable"}}, False),
    ({"status": "success", "gwResponse": {"resultTxt": "BATCH CLOSED"}}, True),
    ({"status": "error", "gwResponse": {"resultTxt": "BATCH CLOSE FAILED"}}, False),
    ({"status": "SUCCESS"}, False),
    # error flags anywhere
    ({"error": True, "data": {"success": True}}, False),
    ({"data": {"success": True, "error": True}}, False),
    ({"error": "host down", "data": {"success": True}}, False),
    ({"status": "success", "error": True}, False),
    ({"status": "success", "error": "x", "gwResponse": {"resultTxt": "BATCH CLOSED"}}, False),
    ({"status": "success", "error": False}, True),
    ({"error": False, "data": {"success": True, "error": None}}, True),
    # both shapes: both must say success
    ({"status": "received", "data": {"success": True}}, False),
    ({"status": "success", "data": {"success": False}}, False),
    ({"status": "success", "data": {"success": True}}, True),
])
def test_close_batch_shapes(body, success):
    result = parse("terminal.close_batch", body)
    assert isinstance(result, CloseBatchResult) and result.success is success


def test_close_batch_messages_and_flag():
    s = parse("terminal.close_batch", {"data": {"success": True, "message": "Batch closed: 3"}})
    assert s.message == "Batch closed: 3" and s.error_flag is None
    b = parse("terminal.close_batch", {"status": "error", "error": True, "gwResponse": {"resultTxt": "FAILED"}})
    assert b.message == "FAILED" and b.error_flag is True
    assert parse("terminal.close_batch", {"status": "error"}).message == "error"


@pytest.mark.parametrize("body", [
    {}, {"data": {}}, {"message": "ok"}, {"error": False}, {"data": {"message": "closed"}},
    {"status": None, "data": {"success": None}},
    {"data": {"success": "true"}}, {"data": {"success": 1}}, {"status": 1}, {"status": True},
    [], "success",
])
def test_close_batch_without_a_readable_verdict_is_a_protocol_error(body):
    with pytest.raises(ProtocolError):
        parse("terminal.close_batch_by_serial", body)


# ------------------------------------------------------------------ transaction entries


def transactions(*entries, meta=None):
    return parse("transactions.list", {"meta": meta or {"count": len(entries)}, "data": list(entries)})


def test_entries_that_are_not_objects_are_skipped_and_counted():
    page = transactions({"id": "e1"}, 5, "x", None, [1], True, {"id": "e2"})
    assert [e.id for e in page.data] == ["e1", "e2"] and page.skipped == 5


@pytest.mark.parametrize("key,raw", [
    ("amount", "12"), ("amount", 12.5), ("amount", True), ("baseAmount", "1200"), ("surcharge", [1]),
    ("captured", 1), ("captured", {"v": True}), ("settled", "true"), ("voidable", 1), ("error", 5),
    ("error", {"code": 1}), ("userAgent", 5), ("userAgent", False), ("type", 1), ("createdAt", 0),
    ("transactionId", True), ("paymentId", {"id": 1}), ("id", [1]), ("card", "visa"), ("status", 1),
])
def test_a_known_field_of_an_odd_type_is_none_and_kept(key, raw):
    page = transactions({"id": "e1", "transactionId": "t1", key: raw})
    entry = page.data[0]
    assert page.skipped == 0 and entry.odd_fields == {key: raw}
    name = next(n for n, f in TransactionEntry.model_fields.items() if (f.alias or n) == key)
    assert getattr(entry, name) is None


def test_many_odd_fields_in_one_entry_leave_the_others_readable():
    entry = transactions({"id": "e1", "transactionId": "t1", "amount": "12", "userAgent": 5, "captured": 1,
                          "settled": "no", "baseAmount": 1200, "type": "capture"}).data[0]
    assert entry.odd_fields == {"amount": "12", "userAgent": 5, "captured": 1, "settled": "no"}
    assert entry.base_amount == 1200 and entry.type == "capture" and entry.transaction_id == "t1"


@pytest.mark.parametrize("value,declined", [
    (False, False), (True, True), (None, False), ("", False), ("Declined by issuer", True),
])
def test_error_accepts_text_or_boolean(value, declined):
    entry = transactions({"id": "e1", "error": value}).data[0]
    assert entry.error == value and entry.declined is declined and entry.odd_fields == {}


@pytest.mark.parametrize("value", ["true", "false", True, False])
def test_captured_accepts_text_or_boolean(value):
    entry = transactions({"captured": value}).data[0]
    assert entry.captured == value and entry.odd_fields == {}


@pytest.mark.parametrize("device,terminal", [
    ({"terminalId": "t9", "name": "Lane 1"}, "t9"), ({"terminalId": 9}, None), ({}, None), ("t9", None),
    (None, None), ([{"terminalId": "t9"}], None),
])
def test_terminal_id_comes_from_the_device(device, terminal):
    assert transactions({"id": "e1", "device": device}).data[0].terminal_id == terminal


@pytest.mark.parametrize("kind", ["sale", "auth", "capture", "void", "refund", "something-new"])
def test_entry_types_are_free_text(kind):
    assert transactions({"id": "e1", "type": kind}).data[0].type == kind


def test_nested_card_is_lenient_on_its_own():
    entry = transactions({"id": "e1", "card": {"last4": "4242", "network": True}}).data[0]
    assert entry.card.last4 == "4242" and entry.card.network is None and entry.card.odd_fields == {"network": True}
    assert entry.odd_fields == {}


def test_page_meta_is_lenient():
    page = transactions({"id": "e1"}, meta={"count": "3", "totalPages": True, "page": "x", "limit": 10.5,
                                            "sortBy": 1})
    assert page.meta.count == 3 and page.meta.total_pages is None and page.meta.page is None
    assert page.meta.limit is None and page.meta.sort_by is None
    assert page.meta.odd_fields == {"totalPages": True, "page": "x", "limit": 10.5, "sortBy": 1}


@pytest.mark.parametrize("body", [[], {"data": []}, {"meta": {}, "data": {}}, {"meta": None, "data": []},
                                  {"meta": [], "data": []}])
def test_a_list_without_meta_and_data_is_still_a_protocol_error(body):
    with pytest.raises(ProtocolError):
        parse("transactions.list", body)


# ------------------------------------------------------------------ typed parses


def test_parse_answer_checks_the_expected_type():
    content = json.dumps({"data": {"id": "p1", "paid": True}}).encode()
    assert isinstance(parse_answer("payment.get", content, instance(Payment)), Payment)
    with pytest.raises(ProtocolError, match="expected TerminalResult") as wrong:
        parse_answer("payment.get", content, instance(TerminalResult))
    assert wrong.value.raw == content


@pytest.mark.parametrize("route,body,expect", [
    ("terminal.pay", {"msgIdentifier": "m1"}, either(PayAccepted, TerminalResult)),
    ("tax.list", [{"id": "t", "name": "VAT", "rate": 8.25}], list_of(object)),
    ("item.ids", ["a", 1], list_of(str)),
    ("transactions.list", {"meta": {}, "data": [{}]}, page_of(TransactionEntry)),
    ("item.bulk_delete", {"success": True}, instance(bool)),
])
def test_expectations_match_their_parsers(route, body, expect):
    parse_answer(route, json.dumps(body).encode(), expect)


@pytest.mark.parametrize("route,body,expect", [
    ("terminal.pay", {"msgIdentifier": "m1"}, instance(TerminalResult)),
    ("item.ids", ["a"], list_of(int)),
    ("transactions.list", {"meta": {}, "data": [{}]}, page_of(Payment)),
    ("item.bulk_delete", {"success": True}, instance(str)),
])
def test_expectation_mismatches_are_protocol_errors(route, body, expect):
    with pytest.raises(ProtocolError):
        parse_answer(route, json.dumps(body).encode(), expect)


# ------------------------------------------------------------------ one bad entry never costs the list


def test_an_item_that_cannot_be_read_is_left_out_of_its_page_and_named():
    good = {"id": "i1", "name": "Soap", "salesPrice": "1.25"}
    body = {"meta": {"count": 5}, "data": [
        good, {"id": "i2", "name": "Gold", "salesPrice": "NaN"}, {"id": 3, "name": "Sub-cent", "salesPrice": "0.001"},
        {"id": "i4", "salesPrice": "2.00"}, "not an item",
    ]}
    page = parse("item.list", body)
    assert [item.id for item in page.data] == ["i1"] and page.data[0].sales_price == 125
    assert page.skipped == 4
    assert [(r.id, r.reason) for r in page.refused] == [
        ("i2", "salesPrice: not a dollar amount: 'NaN'"),
        ("3", "salesPrice: dollar amount 0.001 has a fraction of a cent"),
        ("i4", "name: Field required"),
        (None, "Input should be a valid dictionary or instance of Item"),
    ]


def test_a_tax_whose_rate_is_no_number_keeps_its_place_in_the_list():
    taxes = parse("tax.list", [{"id": "t1", "name": "VAT", "rate": "8.25"}, {"id": "t2", "name": "Odd", "rate": "NaN"},
                               {"id": "t3", "name": "Flag", "rate": True}, {"id": "t4", "name": "None"}])
    assert [(t.id, t.rate) for t in taxes] == [("t1", Decimal("8.25")), ("t2", None), ("t3", None), ("t4", None)]
    assert taxes[1].odd_fields == {"rate": "NaN"} and taxes[2].odd_fields == {"rate": True}
