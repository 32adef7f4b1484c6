"""Memberships and the update link as a person would use them (issue 19): the real app in
a real X server (Xvfb + openbox), only by keyboard (xdotool). F6, "roe": the memberships
of the customer highlighted are read; Alt+E, Enter on the first plan: the subscription is
made on her card and listed; Enter attaches her; Ctrl+U, Enter on her email: the update
request is queued to the email alone (never the phone), and the status line says queued."""

from __future__ import annotations

import subprocess

from tests.system import require_tool
from tests.terminal.cli_runner import cli_command
from tests.ui.desktop import add_staff, shoot, store_station, window_named, xdotool
from tests.ui.helpers import x_server
from tests.vault_customers import customer_now
from tests.waiting import wait_until

PLANS = ('[[memberships]]\nname = "Coffee club"\namount = 1500\nevery_months = 1\nday = 1\npayments = 12\n'
         '[[memberships]]\nname = "Weekly flowers"\namount = 999\nevery_days = 7\n')


def test_enroll_from_f6_and_send_the_update_link_by_keyboard(sandbox, tmp_path, cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    app: subprocess.Popen[str] | None = None
    try:
        with x_server("1280x800x24") as env:
            data = store_station(env, sandbox, tmp_path, cups_pdf.printer, PLANS)
            add_staff(env, "Eve Park", "cashier", "2468")
            jane = customer_now(sandbox.base_url, sandbox.keys["S"], "Jane", "Roe", "jane@example.com",
                                "(555) 123-4567")
            book = sandbox.sandbox.books["S"]
            app = subprocess.Popen(cli_command(), env=env, stderr=subprocess.PIPE, text=True)
            main = window_named(env, "pos-app —")
            xdotool(env, "windowactivate", "--sync", main)
            log = data / "logs" / "app.log"
            wait_until(lambda: log.exists() and "catalog synced" in log.read_text(), timeout=30, what="catalog sync")
            xdotool(env, "type", "--delay", "40", "2468")
            xdotool(env, "key", "Return")
            wait_until(lambda: "signed in: Eve Park" in log.read_text(), timeout=20, what="signed in")

            xdotool(env, "key", "F6")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Customer"))
            xdotool(env, "type", "--delay", "40", "roe")
            wait_until(lambda: f"read 0 membership(s) of customer {jane.id}" in log.read_text(), timeout=20,
                       what="Jane Roe highlighted, her memberships read")
            xdotool(env, "key", "alt+e")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Enroll"))
            xdotool(env, "key", "Return")  # the first plan: Coffee club
            wait_until(lambda: f"read 1 membership(s) of customer {jane.id}" in log.read_text(), timeout=20,
                       what="the new membership listed")
            [subscription] = book.subscriptions.by_id.values()
            assert (subscription.vault_id, subscription.amount, subscription.payments) == (jane.id, 1500, 12)
            assert f"customer {jane.id} enrolled in Coffee club: subscription {subscription.id}" in log.read_text()
            shoot(env, "e2e-customer-memberships")
            xdotool(env, "key", "Return")  # attaches Jane Roe to the sale
            wait_until(lambda: '"name":"Jane Roe"' in (data / "cart.json").read_text(), timeout=20,
                       what="Jane Roe attached to the sale")

            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "ctrl+u")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Update link"))
            xdotool(env, "key", "Return")  # the first contact: her email
            wait_until(lambda: f"update link queued for customer {jane.id} by email" in log.read_text(),
                       timeout=20, what="the update link queued")
            [link] = book.vaults.links
            assert (link.kind, link.customer_id, link.email, link.phone_number) == (
                "update_request", jane.id, "jane@example.com", None)
            shoot(env, "e2e-update-link-queued")
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "alt+F4")
            assert app.wait(timeout=30) == 0
            assert "Traceback" not in app.stderr.read()
    finally:
        if app is not None and app.poll() is None:  # the test failed with the app still up
            app.kill()
