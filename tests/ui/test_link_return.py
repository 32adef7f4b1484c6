"""A return of a phone order paid by payment link, from the back office (F9) by keyboard,
offscreen against the sandbox: the link's payment row (no attempt of this station made it),
Alt+I, ↓ to the second line, 1, Enter, the manager's PIN and reason, Enter; the settled
payment is refunded for the line by its payment id and the panel says so. The dialog is
rendered to build/screens."""

from __future__ import annotations

from pos_app.journal import Operation, Outcome
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.ui.qt import Qt
from tests.counters import two_lines
from tests.links import paid
from tests.parking import PHONE
from tests.ui.helpers import approve, close_preview, modal, open_back_office, pick, save, sign_in


def test_a_link_paid_orders_line_returned_by_keyboard(qtbot, run, open_app, ui_config, sandbox):
    from pos_app.ui.return_dialog import ReturnDialog

    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    parked = app.window.parked_links.parked
    order_key, lines = run(two_lines(app.counter))
    parking = run(parked.park(PHONE))
    paid(sandbox, parking.link_id)
    parking = run(parked.check(parking))
    assert parking.paid and sandbox.settle() >= 1
    close_preview(qtbot)  # the paid link's receipt (no printer set): a modal over what comes next otherwise
    app.window.activateWindow()  # what a window manager does once the preview closes (offscreen has none)
    qtbot.waitUntil(app.window.isActiveWindow)

    office = open_back_office(qtbot, app.window)
    row = pick(qtbot, office, parking.payment_id)
    assert row.attempt_id is None and office.payments.return_button.isEnabled()
    qtbot.keyClick(office.payments.table, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
    dialog = modal(qtbot, ReturnDialog)
    qtbot.keyClick(dialog.table, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.table, Qt.Key.Key_1)
    plan = dialog.plan
    assert plan is not None and dict(plan.picked) == {lines[1].line_id: 1}
    assert f"Refund {app.counter.money(plan.amount)} to Payment link" in dialog.steps.text()
    save(dialog, "light-return-link")
    qtbot.keyClick(dialog.table, Qt.Key.Key_Return)

    approve(qtbot, DEMO_MANAGER_PIN, "arrived broken")
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Returned"), timeout=15_000)
    assert f"to {plan.steps[0].charge.label}" in office.payments.message.text()
    assert run(app.station.client.get_payment(parking.payment_id)).refunded_amount == plan.amount
    [refund] = [a for a in run(app.station.journal.attempts()) if a.ref == parking.payment_id]
    assert (refund.operation, refund.outcome, refund.amount) == (Operation.CARD_REFUND, Outcome.APPROVED,
                                                                 plan.amount)
    assert run(app.station.journal.order_returns(order_key))
