"""Memberships in F6 and Ctrl+U (issue 19), offscreen with real widgets against the
sandbox, by keyboard: Alt+E enrolls the highlighted customer in the plan picked (↓ Enter)
and the subscription is listed with its next payment; Tab to it, Alt+P / Alt+R / Alt+C
pause, resume and cancel it after the demo manager's PIN and a reason (audited); a
customer without a card is told to send a link (Ctrl+U) and nothing is sent. Ctrl+U
without a customer says to attach one; with one, ↓ picks the phone, Enter queues the
link to it alone and the status line says queued."""

from __future__ import annotations

import pytest

from pos_app.membership_plans import MembershipPlan
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.station.memberships import MembershipChange
from pos_app.ui.qt import Qt
from tests.ui.helpers import approve, fits, modal, save, sign_in
from tests.vault_customers import made_customer

PLANS = (MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1, payments=12),
         MembershipPlan(name="Weekly flowers", amount=999, every_days=7))
ALT = Qt.KeyboardModifier.AltModifier


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001", memberships=PLANS)


def subscription_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("subscri"))


def open_customer(qtbot, window):
    from pos_app.ui.customer_dialog import CustomerDialog

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_F6)
    dialog = modal(qtbot, CustomerDialog)
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.search)
    return dialog


def find(qtbot, dialog, text: str, name: str) -> None:
    dialog.search.clear()
    qtbot.keyClicks(dialog.search, text)
    qtbot.waitUntil(lambda: dialog.memberships.title.text() == f"Memberships of {name}", timeout=10_000)
    qtbot.waitUntil(lambda: dialog.memberships.message.text() not in ("", "Reading…"), timeout=10_000)


def changed(qtbot, dialog, key, reason: str, said: str) -> str:
    """Alt+<key> on the selected membership, the manager's PIN and ``reason``: its new line."""
    panel = dialog.memberships
    qtbot.keyClick(panel.list, key, ALT)
    approve(qtbot, DEMO_MANAGER_PIN, reason)
    qtbot.waitUntil(lambda: panel.message.text() == said, timeout=10_000)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    return panel.list.item(0).text()


def test_enroll_list_pause_resume_cancel_by_keyboard(qtbot, open_app, run, b_config, sandbox):
    app = open_app(b_config, "B")
    window = app.window
    ada = run(made_customer(app.station.client, "Ada", "Lovelace", "ada@example.com", "(555) 987-6543"))
    run(made_customer(app.station.client, "Cara", "Nocard", "cara@example.com", card=False))
    sign_in(qtbot, window)

    dialog = open_customer(qtbot, window)
    panel = dialog.memberships
    find(qtbot, dialog, "lovelace", "Ada Lovelace")
    assert panel.message.text() == "Ada Lovelace has no membership: Alt+E enrolls them."
    qtbot.keyClick(dialog.search, Qt.Key.Key_E, ALT)
    from pos_app.ui.memberships_panel import PlanChoice

    choice = modal(qtbot, PlanChoice)
    assert [choice.list.item(i).text() for i in range(2)] == [
        "Coffee club  ·  $15.00 every month on day 1, 12 payments",
        "Weekly flowers  ·  $9.99 every 7 days, until cancelled"]
    save(choice, "light-membership-plans")
    qtbot.keyClick(choice.list, Qt.Key.Key_Down)
    qtbot.keyClick(choice.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.message.text().startswith("Ada Lovelace is enrolled in Weekly flowers: next "
                                                            "payment "), timeout=10_000)
    assert panel.list.count() == 1
    line = panel.list.item(0).text()
    assert line.startswith("Weekly flowers  ·  $9.99 every 7 days, until cancelled\n    next payment ")
    assert line.endswith("active")
    [subscription] = run(app.station.client.subscriptions.list(customer_id=ada.id)).data
    assert subscription.amount == 999 and subscription.custom_schedule.day_frequency == 7
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    save(dialog, "light-customer-memberships")
    fits(dialog)

    qtbot.keyClick(dialog.search, Qt.Key.Key_Tab)
    assert panel.list.hasFocus() and panel.selected() is not None
    assert changed(qtbot, dialog, Qt.Key.Key_P, "travelling", "Weekly flowers paused by Demo Manager.").endswith(
        "PAUSED")
    assert not panel.change_buttons[MembershipChange.PAUSE].isEnabled()
    assert changed(qtbot, dialog, Qt.Key.Key_R, "back home", "Weekly flowers resumed by Demo Manager.").endswith(
        "active")
    assert changed(qtbot, dialog, Qt.Key.Key_C, "moved away", "Weekly flowers cancelled by Demo Manager.").endswith(
        "CANCELLED")
    audit = [(e.actor, e.action, e.reason) for e in run(app.counter.disk(app.counter.staff.audit, 3))]
    assert audit == [("Demo Manager", "membership_cancelled", "moved away"),
                     ("Demo Manager", "membership_resumed", "back home"),
                     ("Demo Manager", "membership_paused", "travelling")]

    before = subscription_requests(sandbox)
    dialog.search.setFocus()
    find(qtbot, dialog, "nocard", "Cara Nocard")
    qtbot.keyClick(dialog.search, Qt.Key.Key_E, ALT)
    qtbot.keyClick(modal(qtbot, PlanChoice).list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "has no card on file" in panel.message.text(), timeout=10_000)
    assert panel.message.text() == ("Cara Nocard has no card on file to charge: attach them and press Ctrl+U to "
                                    "send a link to add one, then enroll them; nothing was sent.")
    assert subscription_requests(sandbox) == before + 1  # her memberships read, nothing created
    qtbot.keyClick(dialog.search, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def press_ctrl_u(qtbot, window) -> None:
    """Ctrl+U in the scan field, where the keyboard is at the sale screen."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)


def test_ctrl_u_needs_a_customer_then_queues_the_link_to_the_contact_picked(qtbot, open_app, run, b_config,
                                                                            sandbox):
    from pos_app.ui.update_link_dialog import UpdateLinkDialog

    app = open_app(b_config, "B")
    window = app.window
    ada = run(made_customer(app.station.client, "Ada", "Lovelace", "ada@example.com", "(555) 987-6543",
                            card=False))
    sign_in(qtbot, window)
    press_ctrl_u(qtbot, window)
    qtbot.waitUntil(lambda: window.status.text() == ("Attach a customer first (F6): the link goes to the customer "
                                                     "of the sale."))

    run(app.counter.attach_customer(ada))
    press_ctrl_u(qtbot, window)
    dialog = modal(qtbot, UpdateLinkDialog)
    assert [dialog.contacts.item(i).text() for i in range(dialog.contacts.count())] == [
        "Email  ada@example.com", "Text message  (555) 987-6543"]
    assert dialog.contacts.hasFocus()
    qtbot.keyClick(dialog.contacts, Qt.Key.Key_Down)
    save(dialog, "light-update-link")
    qtbot.keyClick(dialog.contacts, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert window.status.text().startswith("Link queued for (555) 987-6543: Ada Lovelace can add a card with it")
    [link] = sandbox.sandbox.books["B"].vaults.links
    assert (link.kind, link.customer_id, link.email, link.phone_number) == ("update_request", ada.id, None,
                                                                           "(555) 987-6543")
    qtbot.waitUntil(window.sale.scan.hasFocus)
