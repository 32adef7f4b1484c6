"""F9 with money of the service's charge routes, offscreen, against the sandbox: a card on
file and an ACH payment say what they are (no terminal), and the void of the card on file
goes through the card-on-file route, never a terminal's."""

from __future__ import annotations

from datetime import date

from pos_app.api.charge_models import AchCharge, AchData, CardCharge
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.journal import Operation
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.station.payments import PaymentStatus
from pos_app.ui.qt import Qt
from tests.ui.helpers import approve, audit, open_back_office, pick, save, sign_in, slip_previewed

EXP = f"12{date.today().year + 1 - 2000:02d}"


def test_a_card_on_file_row_says_so_and_is_voided_on_its_route(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    service = app.station.service
    customer = run(app.station.client.customers.create(CustomerDraft(
        firstName="Ada", lastName="Byron", email="a@example.com",
        cards=[NewCustomerCard(number="424242******4242", exp=EXP)])))
    on_file = run(service.card_charge(CardCharge(amount=1500, customerId=customer.id), order_key="f-1"))
    run(service.ach_charge(AchCharge(amount=2500, achData=AchData(
        accountType="personalChecking", routingNumber="021000021", accountNumber="123456789")), order_key="a-1"))
    run(app.station.service.sale("tb-2001", 1250))
    office = open_back_office(qtbot, app.window)
    qtbot.waitUntil(lambda: office.payments.model.rowCount() == 3, timeout=10_000)
    shown = [office.payments.model.cells(row) for row in office.payments.model.rows]
    assert {(cells[1], cells[5]) for cells in shown} >= {("—", "card on file Visa •••• 4242"), ("—", "ACH ••6789")}
    row = pick(qtbot, office, on_file.attempt_id)
    assert row.voidable and office.payments.void_button.isEnabled()
    save(office, "light-back-office-card-on-file")

    qtbot.mouseClick(office.payments.void_button, Qt.MouseButton.LeftButton)
    approve(qtbot, DEMO_MANAGER_PIN, "customer changed their mind")
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Voided"), timeout=10_000)
    slip_previewed(qtbot, "Void")
    qtbot.waitUntil(lambda: office.payments.selected() is not None
                    and office.payments.selected().status is PaymentStatus.VOIDED, timeout=10_000)
    voids = [a for a in run(app.station.journal.attempts()) if a.operation is Operation.CARD_VOID]
    assert [a.ref for a in voids] == [on_file.payment_id]
    [entry, *_] = audit(run, app)
    assert (entry.action, entry.reason) == ("void", "customer changed their mind")
