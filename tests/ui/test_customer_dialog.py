"""F6, the customer (issue 19), offscreen with real widgets against the sandbox: "roe" typed
and Enter attaches Jane Roe, a customer the sandbox starts with (the header and the status
line say so, with her card on file; the cart keeps her);
Ctrl+N adds a new customer by keyboard (a bad email refused, nothing sent) and attaches
her; Alt+D detaches; F3 is the misc item now."""

from __future__ import annotations

import httpx
import pytest

from pos_app.ui.qt import Qt
from tests.merchant_data import seeded_customer
from tests.ui.helpers import modal, save, sign_in


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def vault(sandbox, first: str, last: str, email: str) -> str:
    made = httpx.post(f"{sandbox.base_url}/public/customer", headers={"key-hash": sandbox.keys["B"]},
                      json={"firstName": first, "lastName": last, "email": email})
    assert made.status_code in (200, 201), made.text
    return made.json()["data"]["id"]


def customer_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("customer."))


def open_customer(qtbot, window):
    from pos_app.ui.customer_dialog import CustomerDialog

    window.activateWindow()  # the sale screen's keys again (offscreen has no window manager to do it)
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_F6)
    dialog = modal(qtbot, CustomerDialog)
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.search)
    return dialog


def test_f6_finds_and_attaches_adds_and_detaches_by_keyboard(qtbot, open_app, b_config, sandbox):
    jane = seeded_customer(sandbox, "jane@example.com")
    vault(sandbox, "John", "Doe", "john@example.com")
    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)

    dialog = open_customer(qtbot, window)
    qtbot.keyClicks(dialog.search, "roe")
    qtbot.keyClick(dialog.search, Qt.Key.Key_Return)  # before or after the search answered: one match
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert app.counter.cart.customer is not None and app.counter.cart.customer.id == jane
    assert window.customer.text().startswith("Customer: Jane Roe")
    assert window.status.text() == "Customer Jane Roe attached to this sale (card on file: Visa •••• 4242)."
    qtbot.waitUntil(window.sale.scan.hasFocus)

    dialog = open_customer(qtbot, window)
    qtbot.keyClicks(dialog.search, "example.com")
    qtbot.waitUntil(lambda: dialog.results.count() == 4, timeout=10_000)  # the three seeded and John
    assert dialog.message.text() == "4 found: ↑ ↓ pick, Enter attaches."
    save(dialog, "light-customer-found")
    qtbot.keyClick(dialog.search, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    form = dialog.form
    assert form.first.hasFocus()
    before = customer_requests(sandbox)
    for field, text in ((form.first, "Ada"), (form.last, "Lovelace"), (form.email, "ada-at-example")):
        qtbot.keyClicks(field, text)
    qtbot.keyClick(form.email, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "email" in form.problem.text())
    assert dialog.isVisible() and customer_requests(sandbox) == before  # nothing sent
    form.email.clear()
    qtbot.keyClicks(form.email, "ada@example.com")
    save(dialog, "light-customer-new")
    qtbot.keyClick(form.email, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert app.counter.cart.customer.name == "Ada Lovelace" and window.customer.text().startswith("Customer: Ada")

    dialog = open_customer(qtbot, window)
    qtbot.keyClick(dialog.search, Qt.Key.Key_D, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert app.counter.cart.customer is None and window.customer.text() == ""
    assert window.status.text() == "No customer on this sale now."
