"""The back office (F9) as a manager uses it, offscreen, against the sandbox: void and
refund with a manager's PIN and a reason (audit rows checked), an unknown payment
resolved from the needs-attention tab, the audit trail exported as CSV."""

from __future__ import annotations

import csv

import pytest

from pos_app.journal import Outcome
from pos_app.sandbox.faults import DROP_ANSWER
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.station.payments import PaymentStatus
from pos_app.ui.qt import QDialog, Qt
from tests.ui.helpers import approve, audit, modal, open_back_office, pick, save, sign_in, slip_previewed


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def test_void_needs_a_manager_pin_and_a_reason_and_is_audited(qtbot, run, open_app, b_config, sandbox):
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    sale = run(app.station.service.sale("tb-2001", 2500))
    office = open_back_office(qtbot, app.window)
    row = pick(qtbot, office, sale.attempt_id)
    assert row.voidable and office.payments.void_button.isEnabled() and not office.payments.refund_button.isEnabled()
    save(office, "light-back-office-payments")

    qtbot.mouseClick(office.payments.void_button, Qt.MouseButton.LeftButton)
    cashier_pin = approve(qtbot, "1111", "wrong item")  # a cashier's PIN does not void
    qtbot.waitUntil(lambda: "not a manager" in cashier_pin.message.text())
    assert cashier_pin.isVisible() and len(sandbox.stats()["payments"]) == 1
    qtbot.keyClicks(cashier_pin.pin, DEMO_MANAGER_PIN)
    qtbot.keyClick(cashier_pin.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Voided"), timeout=10_000)
    slip_previewed(qtbot, "Void")
    qtbot.waitUntil(lambda: office.payments.selected() is not None
                    and office.payments.selected().status is PaymentStatus.VOIDED, timeout=10_000)
    [entry, *_] = audit(run, app)
    assert (entry.actor, entry.action, entry.reason) == ("Demo Manager", "void", "wrong item")
    assert sale.transaction_id in entry.detail and "on Demo Cashier's screen" in entry.detail


def test_refund_part_then_the_rest_then_no_more(qtbot, run, open_app, b_config, sandbox):
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    sale = run(app.station.service.sale("tb-2001", 4000))
    sandbox.settle()
    office = open_back_office(qtbot, app.window)
    row = pick(qtbot, office, sale.attempt_id)
    assert row.refundable == 4000 and not office.payments.void_button.isEnabled()

    qtbot.mouseClick(office.payments.refund_button, Qt.MouseButton.LeftButton)
    too_much = approve(qtbot, DEMO_MANAGER_PIN, "one item back", amount="40.01")
    qtbot.waitUntil(lambda: "between" in too_much.message.text())
    save(too_much, "light-refund-approval")
    assert too_much.pin.text() == "" and too_much.reason.text() == "one item back"  # the PIN is forgotten
    too_much.amount.setText("15.00")
    qtbot.keyClicks(too_much.pin, DEMO_MANAGER_PIN)
    qtbot.keyClick(too_much.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Refunded"), timeout=10_000)
    slip_previewed(qtbot, "Refund")
    qtbot.waitUntil(lambda: office.payments.selected().refunded == 1500, timeout=10_000)
    assert office.payments.selected().status is PaymentStatus.PARTLY_REFUNDED

    office.payments.message.setText("")
    qtbot.mouseClick(office.payments.refund_all_button, Qt.MouseButton.LeftButton)
    rest = approve(qtbot, DEMO_MANAGER_PIN, "the rest back")
    assert rest.amount.isReadOnly()
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Refunded"), timeout=10_000)
    slip_previewed(qtbot, "Refund")
    qtbot.waitUntil(lambda: office.payments.selected().status is PaymentStatus.REFUNDED, timeout=10_000)
    assert not office.payments.refund_button.isEnabled() and not office.payments.refund_all_button.isEnabled()
    refunds = [e for e in audit(run, app) if e.action == "refund"]
    assert [e.reason for e in refunds] == ["the rest back", "one item back"]
    assert "$25.00" in refunds[0].detail and "$15.00" in refunds[1].detail


def test_an_unknown_payment_is_checked_again_from_needs_attention(qtbot, run, open_app, b_config, sandbox):
    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    lost = run(app.station.sale(DROP_ANSWER, order_key="cart-lost"))
    assert lost.outcome is Outcome.UNKNOWN
    [held] = run(app.station.journal.in_flight())  # it holds the terminal for the next sale
    assert held.id == lost.attempt_id
    office = open_back_office(qtbot, app.window)
    office.tabs.setCurrentWidget(office.attention)
    qtbot.waitUntil(lambda: office.attention.items.count() == 1, timeout=10_000)
    assert "Result not known" in office.attention.items.item(0).text()
    save(office, "light-back-office-attention")
    qtbot.mouseClick(office.attention.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Nothing needs attention" in office.attention.message.text(), timeout=10_000)
    assert office.attention.message.text().startswith("Approved")
    office.done(QDialog.DialogCode.Rejected)
    after = run(app.station.sale(300, order_key="cart-next"))  # the terminal takes the next sale
    assert after.outcome is Outcome.APPROVED and after.recovered == ()


def test_the_audit_trail_is_shown_to_a_manager_and_exported(qtbot, run, open_app, b_config, tmp_path):
    from pos_app.staff import AuditAction

    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    run(app.counter.disk(app.counter.staff.record, "Demo Manager", AuditAction.SETTINGS_CHANGED, "theme: dark",
                         "night shift"))
    office = open_back_office(qtbot, app.window)
    office.tabs.setCurrentWidget(office.audit)
    assert office.audit.model.rowCount() == 0 and not office.audit.export_button.isEnabled()
    qtbot.mouseClick(office.audit.show_button, Qt.MouseButton.LeftButton)
    approve(qtbot, DEMO_MANAGER_PIN, None)
    qtbot.waitUntil(lambda: office.audit.model.rowCount() >= 1, timeout=10_000)
    save(office, "light-back-office-audit")
    target = tmp_path / "audit.csv"
    said = run(office.audit.export_to(target))
    assert "saved" in said
    rows = list(csv.reader(target.open(newline="", encoding="utf-8")))
    assert rows[0] == ["seq", "at", "actor", "action", "detail", "reason"]
    assert ["Demo Manager", "settings_changed", "theme: dark", "night shift"] in [r[2:] for r in rows[1:]]


def test_a_conflict_is_shown_and_its_charge_given_back(qtbot, run, open_app, ui_config, sandbox):
    import asyncio

    from pos_app.station.events import PaymentProgress
    from pos_app.terminal.outcomes import Phase

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    sandbox.set_faults(s_delay_min=1.5, s_delay_max=1.5)
    phases = []
    app.station.events.subscribe(lambda e: phases.append(e.progress.phase) if isinstance(e, PaymentProgress) else None)
    sale = asyncio.ensure_future(app.station.sale(3300, order_key="cart-conflict"))
    qtbot.waitUntil(lambda: Phase.RECEIVED in phases, timeout=10_000)
    [attempt] = run(app.station.journal.in_flight())
    decided = run(app.station.resolve(attempt.id, paid=False, reason="customer left", by="Demo Manager", force=True))
    assert decided.outcome is Outcome.FAILED
    qtbot.waitUntil(sale.done, timeout=10_000)  # the terminal's late answer: approved

    office = open_back_office(qtbot, app.window)
    office.tabs.setCurrentWidget(office.attention)
    qtbot.waitUntil(lambda: any("Conflict" in office.attention.items.item(i).text()
                                for i in range(office.attention.items.count())), timeout=10_000)
    for number in range(office.attention.items.count()):
        if "Conflict" in office.attention.items.item(number).text():
            office.attention.items.setCurrentRow(number)
    assert office.attention.payment_button.isEnabled()
    qtbot.mouseClick(office.attention.payment_button, Qt.MouseButton.LeftButton)
    assert office.tabs.currentWidget() is office.payments
    qtbot.waitUntil(lambda: office.payments.selected() is not None and office.payments.pending is None, timeout=10_000)
    row = office.payments.selected()
    assert row.attempt_id == attempt.id and row.conflict and row.voidable
    assert "charged after" in office.payments.model.cells(row)[6]
    qtbot.mouseClick(office.payments.void_button, Qt.MouseButton.LeftButton)
    approve(qtbot, DEMO_MANAGER_PIN, "paid in cash instead")
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Voided"), timeout=10_000)
    slip_previewed(qtbot, "Void")
    assert [e.action for e in audit(run, app)][0] == "void"


def test_a_german_euro_store_refunds_what_is_typed_its_way(qtbot, run, open_app, b_config, sandbox):
    """Row 6: in a de_DE EUR store the refund is prefilled "20,00" and "12,50" refunds 1250
    cents (never 1.250,00 €); the payments list and the amount filters read and write
    euros the German way."""
    app = open_app(b_config.replace(currency="EUR", locale="de_DE"), "B")
    sign_in(qtbot, app.window)
    sale = run(app.station.service.sale("tb-2001", 2000))
    sandbox.settle()
    office = open_back_office(qtbot, app.window)
    row = pick(qtbot, office, sale.attempt_id)
    payments = office.payments
    assert payments.model.cells(row)[3] == f"{row.total // 100},{row.total % 100:02d}\u00a0€"  # surcharge included
    assert payments.min_total.placeholderText() == "from €"

    qtbot.keyClicks(payments.min_total, "20.00")  # the US way: refused, said in its tooltip, not applied
    assert "12,50" in payments.min_total.toolTip() and "'20.00' is not an amount" in payments.min_total.toolTip()
    payments.min_total.clear()
    qtbot.keyClicks(payments.min_total, "20,00")
    qtbot.keyClicks(payments.max_total, "1.000,00")
    assert payments.min_total.toolTip() == "" and payments.current_filter().min_total == 2000
    assert payments.current_filter().max_total == 100000 and payments.select(sale.attempt_id)
    payments.min_total.clear()
    qtbot.keyClicks(payments.min_total, f"{row.total // 100 + 1},00")
    assert not payments.select(sale.attempt_id)  # filtered out: the bound was read as euros
    payments.min_total.clear()
    payments.max_total.clear()
    pick(qtbot, office, sale.attempt_id)

    qtbot.mouseClick(payments.refund_button, Qt.MouseButton.LeftButton)
    from pos_app.ui.manager_approval import ManagerApproval

    dialog = modal(qtbot, ManagerApproval)
    assert dialog.amount.text() == "20,00" and dialog.amount.hasFocus()
    assert "20,00\u00a0€" in dialog.summary.text()
    qtbot.keyClick(dialog.amount, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.amount, "12.50")  # the US way: refused with the store's example, nothing sent
    qtbot.keyClicks(dialog.pin, DEMO_MANAGER_PIN)
    qtbot.keyClicks(dialog.reason, "one item back")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "type an amount like 12,50" in dialog.message.text())
    save(dialog, "refund-de_DE-refused")
    assert dialog.isVisible() and run(app.station.client.get_payment(sale.payment_id)).refunded_amount in (0, None)
    qtbot.keyClick(dialog.amount, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.amount, "12,50")
    dialog.message.clear()
    save(dialog, "refund-de_DE")
    dialog.pin.clear()  # typed again, whether or not the refused attempt kept it
    qtbot.keyClicks(dialog.pin, DEMO_MANAGER_PIN)
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: payments.message.text().startswith("Approved: Refunded"), timeout=10_000)
    slip_previewed(qtbot, "Refund")
    assert run(app.station.client.get_payment(sale.payment_id)).refunded_amount == 1250
    qtbot.waitUntil(lambda: payments.selected().refunded == 1250, timeout=10_000)
    [entry, *_] = audit(run, app)
    assert entry.action == "refund" and "refund of 12,50\u00a0€ of " in entry.detail


def test_a_cold_f9_shows_the_newest_payments_to_look_at_then_the_day_to_act_on(qtbot, run, open_app, b_config):
    """A first F9 of the day shows the journal's newest payments at once (issue 21: a day of
    thousands opens without waiting for all of them), their actions off, then the whole day."""
    from datetime import datetime

    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    sales = [run(app.station.service.sale("tb-2001", 1000 + n)) for n in range(3)]
    office = open_back_office(qtbot, app.window)
    payments = office.payments
    assert payments.void_button.isEnabled()  # the whole day: the newest sale can be voided
    first = run(office.office.first_page(datetime.now().date(), limit=2))
    payments.show_history(first)
    assert [row.attempt_id for row in payments.model.rows] == [sales[2].attempt_id, sales[1].attempt_id]
    assert payments.selected() is not None and not payments.void_button.isEnabled()
    assert not payments.refund_button.isEnabled() and not payments.return_button.isEnabled()
    assert payments.message.text() == "The newest 2 payments; reading the rest of today's…"
    save(office, "back-office-first-page")
    qtbot.keyClick(office, Qt.Key.Key_F5)  # the whole day again: actions back
    qtbot.waitUntil(lambda: not payments.history.first_page and payments.model.rowCount() == 3, timeout=10_000)
    qtbot.waitUntil(payments.void_button.isEnabled, timeout=10_000)
