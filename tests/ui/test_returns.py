"""A return from the back office (F9) by keyboard, offscreen against the sandbox: a sale's
row, Alt+I, ↓ to the second line, 1, Enter, the manager's PIN and reason, Enter; the line's
money goes back (an unsettled card: void, and the kept part charged again) and the panel
says what was done. The dialog is rendered to build/screens."""

from __future__ import annotations

import pytest

from pos_app.journal import Operation
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.ui.qt import Qt
from tests.ui.helpers import (
    approve,
    audit,
    close_preview,
    modal,
    open_back_office,
    pick,
    save,
    scan,
    sign_in,
    two_codes,
)


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def test_a_return_of_one_line_by_keyboard(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.return_dialog import ReturnDialog

    app = open_app(b_config, "B")
    sign_in(qtbot, app.window)
    for code in two_codes(run, app):
        scan(qtbot, app.window, code)
    order_key, lines = app.counter.cart.order_key, app.counter.cart.lines
    total = app.counter.totals().total
    sale = run(app.counter.pay())
    qtbot.waitUntil(lambda: app.counter.cart.order_key != order_key, timeout=10_000)
    close_preview(qtbot)  # the sale's receipt (no printer set): a modal over the back office otherwise
    app.window.activateWindow()  # what a window manager does once the preview closes (offscreen has none)
    qtbot.waitUntil(app.window.isActiveWindow)

    office = open_back_office(qtbot, app.window)
    pick(qtbot, office, sale.attempt_id)
    assert office.payments.return_button.isEnabled()
    qtbot.keyClick(office.payments.table, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
    dialog = modal(qtbot, ReturnDialog)
    assert not dialog.ok.isEnabled()  # nothing picked yet
    qtbot.keyClick(dialog.table, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.table, Qt.Key.Key_1)
    plan = dialog.plan
    assert plan is not None and dict(plan.picked) == {lines[1].line_id: 1}
    assert "charge" in dialog.steps.text() and "the customer presents the card" in dialog.steps.text()
    assert dialog.amount.text().startswith(f"To give back: {app.counter.money(plan.amount)}")
    save(dialog, "light-return-items")
    qtbot.keyClick(dialog.table, Qt.Key.Key_Return)

    approval = approve(qtbot, DEMO_MANAGER_PIN, "did not fit")
    assert "Return" in approval.windowTitle()
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Returned"), timeout=15_000)
    assert app.counter.money(plan.amount) in office.payments.message.text()
    statuses = [(p["amount"], p["status"]) for p in sandbox.stats()["payments"]]
    assert statuses == [(total, "voided"), (total - plan.amount, "captured")]
    [entry, *_] = audit(run, app)
    assert (entry.actor, entry.action, entry.reason) == ("Demo Manager", "return", "did not fit")
    charges = run(app.station.journal.order_charges(order_key))
    assert sum(charges.values()) == total - plan.amount
    assert sale.operation is Operation.SALE


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_return_dialog_fits_1024_by_768_in_spanish_and_french(qtbot, run, open_app, b_config, language):
    """Its cash check box said its whole sentence on one line: 1,046 pixels wide in Spanish,
    1,100 in French."""
    from pos_app import i18n
    from pos_app.ui.language import show_screens_in
    from pos_app.ui.qt import QApplication
    from pos_app.ui.return_dialog import ReturnDialog
    from pos_app.ui.theme import apply_theme
    from tests.ui.helpers import clipped

    i18n.use_store_language(language)
    show_screens_in(language)
    apply_theme(QApplication.instance(), "light")
    try:
        app = open_app(b_config.replace(language=language), "B")
        sign_in(qtbot, app.window)
        for code in two_codes(run, app):
            scan(qtbot, app.window, code)
        order_key = app.counter.cart.order_key
        sale = run(app.counter.pay())
        qtbot.waitUntil(lambda: app.counter.cart.order_key != order_key, timeout=10_000)
        close_preview(qtbot)
        app.window.activateWindow()
        qtbot.waitUntil(app.window.isActiveWindow)
        office = open_back_office(qtbot, app.window)
        pick(qtbot, office, sale.attempt_id)
        qtbot.keyClick(office.payments.table, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
        dialog = modal(qtbot, ReturnDialog)
        qtbot.keyClick(dialog.table, Qt.Key.Key_1)
        assert dialog.to_cash.isVisible()  # a card sale: the cash choice is offered
        save(dialog, f"{language}-return-items")
        problems = clipped(dialog)
        dialog.done(0)
    finally:
        show_screens_in("en")
        i18n.use_store_language("en")
    assert problems == []
