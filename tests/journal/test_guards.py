"""The refusals that keep money safe: busy terminals, order guards, no resend, no secrets."""

from __future__ import annotations

import pytest

from pos_app.api.secrets import Redactor
from pos_app.journal import (
    AttemptNotFound,
    InvalidResolution,
    InvalidTransition,
    Journal,
    Operation,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    Outcome,
    TerminalBusy,
)
from tests.journal.helpers import count, sale

# -- one in-flight attempt per terminal ------------------------------------------------


def test_busy_terminal_names_terminal_and_blocking_attempt(journal):
    first = sale(journal, "T1", "o-1")
    with pytest.raises(TerminalBusy) as caught:
        sale(journal, "T1", "o-2")
    assert caught.value.terminal_id == "T1" and caught.value.attempt_id == first.id
    assert "'T1'" in str(caught.value) and first.id in str(caught.value)
    sale(journal, "T2", "o-2")  # another terminal is free


def test_busy_holds_between_two_journal_objects_on_one_file(path):
    with Journal.open(path) as one, Journal.open(path) as two:
        first = sale(one, "T1", "o-1")
        with pytest.raises(TerminalBusy, match=first.id):
            sale(two, "T1", "o-2")
        one.finish(first.id, Outcome.DECLINED)
        sale(two, "T1", "o-2")


@pytest.mark.parametrize("outcome", [o for o in Outcome if o.is_final])
def test_any_final_outcome_frees_the_terminal(journal, outcome):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, outcome)
    sale(journal, "T1", "o-2")


def test_an_unknown_sale_frees_the_terminal_for_follow_ups_only(journal):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, Outcome.UNKNOWN)
    with pytest.raises(TerminalBusy):
        sale(journal, "T1", "o-2")
    journal.begin_attempt(operation=Operation.VOID, terminal_id="T1", gateway="B", ref="pn-1", request={})


def test_busy_applies_to_every_operation(journal):
    journal.begin_attempt(operation=Operation.CLOSE_BATCH, terminal_id="T1", gateway="B", request={})
    with pytest.raises(TerminalBusy):
        journal.begin_attempt(
            operation=Operation.VOID, terminal_id="T1", gateway="B", ref="pn-1", request={"pnRefNum": "pn-1"}
        )


def test_a_refused_begin_writes_nothing(journal, path):
    sale(journal, "T1", "o-1")
    with pytest.raises(TerminalBusy):
        sale(journal, "T1", "o-2")
    assert count(path, "attempts") == 1 and count(path, "open_attempts") == 1


# -- order guards ----------------------------------------------------------------------


def test_unknown_attempt_blocks_its_order_until_resolved(journal):
    first = sale(journal, "T1", "o-1")
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN)
    with pytest.raises(OrderHasUnknownAttempt) as caught:
        sale(journal, "T2", "o-1")
    assert caught.value.attempt_id == first.id
    assert first.id in str(caught.value) and "resolved first" in str(caught.value)
    with pytest.raises(OrderHasUnknownAttempt):
        sale(journal, "T2", "o-1", operation=Operation.PREAUTH)
    sale(journal, "T2", "o-other")  # other orders are not blocked


def test_in_flight_attempt_on_another_terminal_blocks_the_order(journal):
    first = sale(journal, "T1", "o-1")
    with pytest.raises(OrderHasUnknownAttempt, match="in flight") as caught:
        sale(journal, "T2", "o-1")
    assert caught.value.attempt_id == first.id


@pytest.mark.parametrize("outcome", [Outcome.DECLINED, Outcome.FAILED])
def test_declined_or_failed_order_can_be_charged_again(journal, outcome):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, outcome)
    assert sale(journal, "T1", "o-1").order_key == "o-1"


@pytest.mark.parametrize("paid_with", [Operation.SALE, Operation.PREAUTH])
@pytest.mark.parametrize("again", [Operation.SALE, Operation.PREAUTH])
def test_approved_order_is_already_paid(journal, paid_with, again):
    first = sale(journal, "T1", "o-1", operation=paid_with)
    journal.finish(first.id, Outcome.APPROVED, {"transactionId": "t-1"})
    with pytest.raises(OrderAlreadyPaid) as caught:
        sale(journal, "T2", "o-1", operation=again)
    assert caught.value.attempt_id == first.id and first.id in str(caught.value)


def test_unknown_resolved_by_service_as_approved_makes_the_order_paid(journal):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, Outcome.UNKNOWN)
    journal.finish(first.id, Outcome.APPROVED, {"paymentId": "p-1"})
    assert journal.in_flight() == []
    with pytest.raises(OrderAlreadyPaid):
        sale(journal, "T2", "o-1")


def test_capture_and_refund_are_not_blocked_by_the_paid_order(journal):
    first = sale(journal, "T1", "o-1", operation=Operation.PREAUTH)
    journal.finish(first.id, Outcome.APPROVED, {"transactionId": "t-1"})
    capture = journal.begin_attempt(
        operation=Operation.CAPTURE, terminal_id="T1", gateway="B", amount=1250, order_key="o-1",
        ref="t-1", request={"terminalId": "T1", "pnRefNum": "t-1", "amount": 1250},
    )
    assert capture.ref == "t-1"


# -- outcomes and manager resolution ---------------------------------------------------


def test_manager_resolves_unknown_as_paid(journal):
    first = sale(journal, "T1", "o-1")
    journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN, {"msgIdentifier": "m-1"})
    resolved = journal.resolve_by_manager(first.id, paid=True, reason="card slip shows approval", by="Maria")
    assert (resolved.outcome, resolved.resolved_by) == (Outcome.APPROVED, "Maria")
    last = resolved.events[-1]
    assert last.kind == "outcome"
    assert last.data["reason"] == "card slip shows approval" and last.data["resolved_by"] == "Maria"
    assert last.data["previous_outcome"] == "unknown" and last.at.tzinfo is not None
    assert [e.kind for e in resolved.events] == ["sent", "outcome", "outcome"]  # history kept
    assert journal.in_flight() == []
    with pytest.raises(OrderAlreadyPaid):
        sale(journal, "T2", "o-1")


def test_manager_resolves_unknown_as_not_paid(journal):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, Outcome.UNKNOWN)
    resolved = journal.resolve_by_manager(first.id, paid=False, reason="no charge on the statement", by="Maria")
    assert resolved.outcome is Outcome.FAILED and resolved.result["decision"] == "not_paid"
    sale(journal, "T2", "o-1")  # the order may be charged again


def test_manager_may_resolve_an_in_flight_attempt_and_free_its_terminal(journal):
    first = sale(journal, "T1", "o-1")
    journal.resolve_by_manager(first.id, paid=False, reason="terminal was unplugged", by="Lee")
    sale(journal, "T1", "o-2")


def test_manager_cannot_change_a_final_outcome(journal):
    first = sale(journal, "T1", "o-1")
    journal.finish(first.id, Outcome.DECLINED)
    with pytest.raises(InvalidResolution, match="final"):
        journal.resolve_by_manager(first.id, paid=True, reason="x", by="y")


@pytest.mark.parametrize(("reason", "by"), [("", "Lee"), ("  ", "Lee"), ("ok", ""), ("ok", None)])
def test_manager_resolution_needs_reason_and_name(journal, reason, by):
    first = sale(journal)
    journal.finish(first.id, Outcome.UNKNOWN)
    with pytest.raises(ValueError):
        journal.resolve_by_manager(first.id, paid=True, reason=reason, by=by)
    assert journal.get(first.id).outcome is Outcome.UNKNOWN


def test_final_outcome_cannot_change_but_repeating_it_is_a_no_op(journal):
    first = sale(journal)
    journal.finish(first.id, Outcome.APPROVED, {"paymentId": "p-1"})
    again = journal.finish(first.id, Outcome.APPROVED)
    assert len(again.events) == 1 and again.result == {"paymentId": "p-1"}
    with pytest.raises(InvalidResolution):
        journal.finish(first.id, Outcome.DECLINED)
    with pytest.raises(InvalidResolution):
        journal.finish(first.id, Outcome.UNKNOWN)
    with pytest.raises(InvalidResolution):
        journal.finish(first.id, Outcome.APPROVED, {"paymentId": "p-other"})


def test_a_request_is_never_marked_sent_twice(journal):
    first = sale(journal)
    journal.mark_sent(first.id)
    with pytest.raises(InvalidTransition, match="never sent twice"):
        journal.mark_sent(first.id)
    journal.finish(first.id, Outcome.UNKNOWN)
    second = sale(journal, "T2", "o-2")
    journal.finish(second.id, Outcome.FAILED)
    with pytest.raises(InvalidTransition, match="outcome"):
        journal.mark_sent(second.id)


def test_unknown_attempt_ids_are_reported(journal):
    for call in (
        lambda: journal.get("a-missing"),
        lambda: journal.mark_sent("a-missing"),
        lambda: journal.record("a-missing", "answer", {}),
        lambda: journal.finish("a-missing", Outcome.FAILED),
        lambda: journal.resolve_by_manager("a-missing", paid=True, reason="r", by="b"),
        lambda: journal.claim("a-missing"),
    ):
        with pytest.raises(AttemptNotFound, match="a-missing"):
            call()
    with pytest.raises(KeyError):
        journal.get("a-missing")


def test_record_refuses_reserved_or_odd_kinds(journal):
    first = sale(journal)
    for kind in ("sent", "outcome", "claimed", "", "Has Space", "x" * 41):
        with pytest.raises(ValueError):
            journal.record(first.id, kind, {})


def test_attempt_ids_are_unique_and_shaped(journal):
    ids = set()
    for index in range(50):
        attempt = sale(journal, f"T{index}", f"o-{index}")
        journal.finish(attempt.id, Outcome.FAILED)
        ids.add(attempt.id)
    assert len(ids) == 50
    assert all(i.startswith("a-") and len(i) == 22 for i in ids)


# -- arguments and secrets ---------------------------------------------------------------


@pytest.mark.parametrize(
    "request_body",
    [
        {"terminalId": "T1", "amount": 100, "key-hash": "abc"},
        {"terminalId": "T1", "amount": 100, "key_hash": "abc"},
        {"terminalId": "T1", "amount": 100, "keyHash": "abc"},
        {"terminalId": "T1", "amount": 100, "headers": {"Key-Hash": "abc"}},
        {"terminalId": "T1", "amount": 100, "list": [{"KEY_HASH": "abc"}]},
    ],
)
def test_requests_carrying_the_key_hash_are_refused(journal, path, request_body):
    with pytest.raises(ValueError, match="key-hash"):
        journal.begin_attempt(
            operation=Operation.SALE, terminal_id="T1", gateway="S", amount=100, request=request_body
        )
    assert count(path, "attempts") == 0


def test_event_data_carrying_the_key_hash_is_refused(journal, path):
    first = sale(journal)
    with pytest.raises(ValueError, match="key-hash"):
        journal.record(first.id, "answer", {"request_headers": {"keyHash": "abc"}})
    with pytest.raises(ValueError, match="key-hash"):
        journal.finish(first.id, Outcome.APPROVED, {"key_hash": "abc"})
    assert count(path, "events") == 0
    journal.close()
    assert b"abc" not in path.read_bytes()


def test_the_redactor_given_at_open_takes_an_echoed_key_out_of_every_write(path):
    """Whatever a writer passes (a request, an answer, an outcome, a manager's reason), the
    value of the key the station gave the journal never reaches the file."""
    key = "sk-live-0123456789"
    with Journal.open(path, redact=Redactor([key]).value) as journal:
        first = journal.begin_attempt(operation=Operation.SALE, terminal_id="T1", gateway="B", amount=100,
                                      order_key="o-1", request={"orderNumber": key})
        journal.mark_sent(first.id)
        journal.record(first.id, "error_answer", {"text": f"invalid key-hash {key}", key: [key]})
        journal.finish(first.id, Outcome.UNKNOWN, {"message": f"HTTP 500: echo {key}"})
        decided = journal.resolve_by_manager(first.id, paid=False, reason=f"typed {key} by mistake", by="Ann")
        again = journal.finish(first.id, Outcome.FAILED, {"decision": "not_paid",
                                                           "reason": f"typed {key} by mistake"})
        assert decided.outcome is again.outcome is Outcome.FAILED  # the same outcome again changes nothing
        [answer] = [e.data for e in journal.get(first.id).events if e.kind == "error_answer"]
        assert answer == {"text": "invalid key-hash [redacted]", "[redacted]": ["[redacted]"]}
    assert [p for p in path.parent.rglob("*") if p.is_file() and key.encode() in p.read_bytes()] == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"operation": "sale", "amount": None}, "amount"),
        ({"operation": "sale", "amount": 0}, "amount"),
        ({"operation": "sale", "amount": 12.5}, "amount"),
        ({"operation": "sale", "amount": True}, "amount"),
        ({"operation": "void", "amount": 100, "ref": "pn"}, "no amount"),
        ({"operation": "refund", "amount": 100}, "ref"),
        ({"operation": "sale", "amount": 100, "gateway": "X"}, "gateway"),
        ({"operation": "sale", "amount": 100, "terminal_id": ""}, "terminal_id"),
        ({"operation": "teleport", "amount": 100}, "teleport"),
        ({"operation": "sale", "amount": 100, "request": {"amount": 999}}, "differs"),
        ({"operation": "sale", "amount": 100, "request": {"when": object()}}, "JSON"),
        ({"operation": "sale", "amount": 100, "request": {"x": float("nan")}}, "JSON"),
    ],
)
def test_nonsense_arguments_are_refused(journal, kwargs, message):
    args = {"terminal_id": "T1", "gateway": "S", "request": {}} | kwargs
    with pytest.raises(ValueError, match=message):
        journal.begin_attempt(**args)
