"""As a person would: the real app in a real X server (Xvfb + openbox), driven only by
the keyboard with xdotool: a wrong PIN and Enter, then the right PIN (typed straight on:
the field keeps the keyboard) and Enter, two barcode scans, F12, Enter at the surcharge
notice; the receipt prints through CUPS and its text is checked with pdftotext, and the
drawer stays shut. Then a split: F7, 5, Enter, Enter at the notice; F8, 100, Enter: the
receipt lists the card, the cash and the change, and the drawer got its pulse once. Last,
a cash sale with change: F8, 50, Enter: PAID, no card, the drawer's second pulse."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.system import require_tool
from tests.terminal.cli_runner import cli_command
from tests.ui.desktop import add_staff, barcodes, cart_lines, printed_receipt, store_station, window_named, xdotool
from tests.ui.helpers import SCREENS, x_server
from tests.waiting import wait_until

pytestmark = pytest.mark.alone  # it finds its receipts in the shared cups-pdf folder by their words


def test_a_cashier_sells_and_splits_with_the_keyboard_and_the_receipts_print(sandbox, tmp_path, cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    app: subprocess.Popen[str] | None = None
    try:
        with x_server("1280x800x24") as env:
            data = store_station(env, sandbox, tmp_path, cups_pdf.printer, "poll_wait_limit = 30.0\n")
            drawer = tmp_path / "drawer"
            add_staff(env, "Eve Park", "cashier", "2468")
            codes = barcodes(sandbox, 2)
            sandbox.set_faults(s_delay_min=0.5, s_delay_max=1.0)
            started = time.time()
            app = subprocess.Popen(cli_command(), env=env, stderr=subprocess.PIPE, text=True)
            main = window_named(env, "pos-app —")
            xdotool(env, "windowactivate", "--sync", main)
            log = data / "logs" / "app.log"
            wait_until(lambda: log.exists() and "catalog synced" in log.read_text(), timeout=30, what="catalog sync")
            xdotool(env, "type", "--delay", "40", "1357")  # a wrong PIN first: the field keeps the keyboard
            xdotool(env, "key", "Return")
            wait_until(lambda: "sign-in refused: That PIN is not right: 4 tries left" in log.read_text(), timeout=20,
                       what="the wrong PIN refused")
            SCREENS.mkdir(parents=True, exist_ok=True)
            subprocess.run(["import", "-window", "root", str(SCREENS / "e2e-wrong-pin.png")], env=env, timeout=30)
            xdotool(env, "type", "--delay", "40", "2468")
            xdotool(env, "key", "Return")
            wait_until(lambda: "signed in: Eve Park" in log.read_text(), timeout=20, what="signed in")
            for count, code in enumerate(codes, start=1):  # a keyboard-wedge scanner: the digits, then Enter
                xdotool(env, "type", "--delay", "20", code)
                xdotool(env, "key", "Return")
                wait_until(lambda count=count: cart_lines(data) == count, timeout=20, what=f"{count} line(s)")
            xdotool(env, "key", "F12")
            notice = window_named(env, "Card surcharge")
            xdotool(env, "windowactivate", "--sync", notice)
            xdotool(env, "key", "Return")

            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "Eve Park", "TOTAL")
            assert "TOTAL" in text and "CUSTOMER COPY" in text and "APPROVED" in text and "TRAINING" not in text
            subprocess.run(["import", "-window", "root", str(SCREENS / "e2e-approved.png")], env=env, timeout=30)
            payment_window = window_named(env, "Card payment")
            xdotool(env, "windowactivate", "--sync", payment_window)
            xdotool(env, "key", "Return")  # Enter after the approval: a new, empty sale
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new, empty sale")
            [payment] = sandbox.stats()["payments"]
            assert payment["paid"] and "cashier Eve_Park" in payment["userAgent"]
            assert drawer.read_bytes() == b""  # a card-only order never opens the drawer

            # a split: F7 charges $5.00 by card, F8 takes cash for the rest, with change
            xdotool(env, "windowactivate", "--sync", main)
            for count, code in enumerate(codes, start=1):
                xdotool(env, "type", "--delay", "20", code)
                xdotool(env, "key", "Return")
                wait_until(lambda count=count: cart_lines(data) == count, timeout=20, what=f"{count} line(s)")
            xdotool(env, "key", "F7")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Part by card"))
            xdotool(env, "type", "--delay", "40", "5")  # replaces the balance, all selected
            xdotool(env, "key", "Return")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card surcharge"))
            xdotool(env, "key", "Return")
            wait_until(lambda: ": 500 of " in log.read_text(), timeout=60, what="the $5.00 card part approved")
            assert sandbox.stats()["payments"][1]["amount"] == 500
            part_window = window_named(env, "Card payment")
            xdotool(env, "windowactivate", "--sync", part_window)
            xdotool(env, "key", "Return")  # back to the sale: the balance is still due
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "F8")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "type", "--delay", "40", "100")
            xdotool(env, "key", "Return")

            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "Change")
            assert "Card" in text and "$5.00" in text and "Cash" in text and "$100.00" in text, text
            assert drawer.read_bytes() == bytes.fromhex("1b700019fa")  # the drawer opened once, for the cash
            subprocess.run(["import", "-window", "root", str(SCREENS / "e2e-change-due.png")], env=env, timeout=30)
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "key", "Return")  # New sale
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the cash")

            # a cash sale with change: one scan, F8, 50, Enter; the receipt says PAID, no card
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "type", "--delay", "20", codes[0])
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 1, timeout=20, what="the cash sale's line")
            xdotool(env, "key", "F8")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "type", "--delay", "40", "50")
            xdotool(env, "key", "Return")

            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "PAID", "$50.00")
            assert "Change" in text and "Card" not in text and "APPROVED" not in text, text
            assert drawer.read_bytes() == bytes.fromhex("1b700019fa") * 2
            xdotool(env, "windowactivate", "--sync", window_named(env, "Cash received"))
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the cash sale")
            assert len(sandbox.stats()["payments"]) == 2  # the card sale and the card part: cash charged no card
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "alt+F4")
            assert app.wait(timeout=30) == 0
            assert "Traceback" not in app.stderr.read()
    finally:
        if app is not None and app.poll() is None:  # the test failed with the app still up
            app.kill()
