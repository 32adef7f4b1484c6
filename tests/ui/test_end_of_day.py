"""The end of a day as the staff would do it, in the real app on a real X server (Xvfb +
openbox), only by keyboard (xdotool), printing through CUPS: a card sale for a customer
found with F6 (named on its receipt) and a cash sale;
Ctrl+P prints the cash sale's receipt again; the back office (F9) returns the card sale's
item (Alt+I, the quantity, Enter, a manager's PIN and reason): the card payment is voided;
then F10 as the Z: the manager's PIN, the drawer counted a dollar short, Enter, Enter at
"Close the batch?": the batch closes and Z-0001 is written, its PDF showing expected,
counted and over/short."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.receipts.conftest import pdf_text
from tests.system import require_tool
from tests.terminal.cli_runner import cli_command
from tests.ui.desktop import (
    add_staff,
    barcodes,
    cart_lines,
    printed_receipt,
    shoot,
    store_station,
    window_named,
    xdotool,
)
from tests.ui.helpers import x_server
from tests.waiting import wait_until

pytestmark = pytest.mark.alone  # it finds its receipts in the shared cups-pdf folder by their words

FLOAT = 5_000


def test_a_day_ends_by_keyboard_reprint_return_and_the_z(sandbox, tmp_path, cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    app: subprocess.Popen[str] | None = None
    try:
        with x_server("1280x800x24") as env:
            data = store_station(env, sandbox, tmp_path, cups_pdf.printer, f"opening_float = {FLOAT}\n")
            add_staff(env, "Eve Park", "cashier", "2468")
            add_staff(env, "Mo Lane", "manager", "8642")
            [code] = barcodes(sandbox, 1)  # Jane Roe is one of the customers the sandbox starts with
            sandbox.set_faults(s_delay_min=0.3, s_delay_max=0.6)
            started = time.time()
            app = subprocess.Popen(cli_command(), env=env, stderr=subprocess.PIPE, text=True)
            main = window_named(env, "pos-app —")
            xdotool(env, "windowactivate", "--sync", main)
            log = data / "logs" / "app.log"
            wait_until(lambda: log.exists() and "catalog synced" in log.read_text(), timeout=30, what="catalog sync")
            xdotool(env, "type", "--delay", "40", "2468")
            xdotool(env, "key", "Return")
            wait_until(lambda: "signed in: Eve Park" in log.read_text(), timeout=20, what="signed in")

            # a card sale for Jane Roe (F6, "roe", Enter), then a cash sale with change
            xdotool(env, "type", "--delay", "20", code)
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 1, timeout=20, what="the card sale's line")
            xdotool(env, "key", "F6")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Customer"))
            xdotool(env, "type", "--delay", "40", "roe")
            xdotool(env, "key", "Return")
            wait_until(lambda: "Jane Roe" in (data / "cart.json").read_text(), timeout=20, what="Jane Roe attached")
            shoot(env, "e2e-customer-attached")
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "F12")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card surcharge"))
            xdotool(env, "key", "Return")
            printed_receipt(cups_pdf, started, "Harbor Street Market", "APPROVED", "Customer Jane Roe")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card payment"))
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the card")
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "type", "--delay", "20", code)
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 1, timeout=20, what="the cash sale's line")
            xdotool(env, "key", "F8")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "type", "--delay", "40", "50")
            xdotool(env, "key", "Return")
            cash_receipt = printed_receipt(cups_pdf, started, "PAID", "$50.00")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the cash")

            # Ctrl+P: the last document (the cash receipt) printed again
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "ctrl+p")
            again = printed_receipt(cups_pdf, started, "PAID", "$50.00", copies=2)
            assert again == cash_receipt

            # F9, the card sale's row, Alt+I: its one item returned; the card payment is voided
            xdotool(env, "key", "F9")
            office = window_named(env, "Back office")
            xdotool(env, "windowactivate", "--sync", office)
            card = next(p for p in sandbox.stats()["payments"] if p["paid"])
            xdotool(env, "key", "Tab")  # to the list: the newest payment, the card sale, selected

            def return_items_open() -> str:  # Alt+I acts once the day's payments are listed
                xdotool(env, "key", "alt+i")
                return xdotool(env, "search", "--onlyvisible", "--name", "Return items")

            xdotool(env, "windowactivate", "--sync", wait_until(return_items_open, timeout=30, interval=0.5,
                                                                 what="Return items (Alt+I)"))
            xdotool(env, "type", "1")  # the quantity of the selected line
            shoot(env, "e2e-return-items")
            xdotool(env, "key", "Return")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Return"))
            xdotool(env, "type", "--delay", "40", "8642")
            xdotool(env, "key", "Tab")
            xdotool(env, "type", "--delay", "10", "did not fit")
            xdotool(env, "key", "Return")
            wait_until(lambda: any(p["id"] == card["id"] and p["status"] == "voided"
                                   for p in sandbox.stats()["payments"]), timeout=60, what="the card payment voided")
            shoot(env, "e2e-returned")
            xdotool(env, "windowactivate", "--sync", office)
            xdotool(env, "key", "Escape")

            # F10: the Z, the drawer counted a dollar short
            report = subprocess.run(cli_command("shift", "report", "--json"), env=env, capture_output=True,
                                    text=True, timeout=60)
            expected = json.loads(report.stdout)["expected_cash"]
            assert expected > FLOAT
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "F10")
            z_window = window_named(env, "End of shift")
            xdotool(env, "windowactivate", "--sync", z_window)
            xdotool(env, "type", "--delay", "40", "8642")
            xdotool(env, "key", "Return")
            wait_until(lambda: "shift of ts-1001 checked" in log.read_text(), timeout=30, what="the shift checked")
            counted = expected - 100
            xdotool(env, "type", "--delay", "40", f"{counted // 100}.{counted % 100:02d}")
            shoot(env, "e2e-z-count")
            xdotool(env, "key", "Return")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Close the batch?"))
            xdotool(env, "key", "Return")
            z_pdf = data / "reports" / "Z-0001.pdf"
            wait_until(z_pdf.exists, timeout=60, what="Z-0001 written")
            text = pdf_text(z_pdf)
            assert "Z report Z-0001" in text and "Over/short: -$1.00 (short)" in text, text
            assert f"${expected // 100}.{expected % 100:02d}" in text
            shoot(env, "e2e-z-closed")
            xdotool(env, "windowactivate", "--sync", z_window)
            xdotool(env, "key", "Escape")
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "alt+F4")
            assert app.wait(timeout=30) == 0
            assert "Traceback" not in app.stderr.read()
    finally:
        if app is not None and app.poll() is None:
            app.kill()
