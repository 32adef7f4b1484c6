"""Pay by link as a person would (issue 19): the real app in a real X server, driven only by
the keyboard with xdotool. A phone order: a scan, Ctrl+K, the customer's mobile typed,
Enter: one link for the order's total, the sale parked, the lane empty. The next customer
pays on the terminal meanwhile (F12, Enter) and gets a receipt. The phone customer pays the
link (the sandbox's route): the parked order completes by itself and its receipt prints
through CUPS (checked with pdftotext); Ctrl+W lists it paid."""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest

from pos_app.sandbox.link_store import store_of
from tests.system import require_tool
from tests.terminal.cli_runner import cli_command
from tests.ui.desktop import (
    add_staff,
    barcodes,
    cart_lines,
    printed_receipt,
    printed_texts,
    store_station,
    window_named,
    xdotool,
)
from tests.ui.helpers import SCREENS, x_server
from tests.waiting import wait_until

pytestmark = pytest.mark.alone  # it finds its receipts in the shared cups-pdf folder by their words


def links_of(sandbox) -> list:
    with sandbox.sandbox.lock:
        return list(store_of(sandbox.sandbox.books["S"]).links.values())


def scan(env, data, code: str, count: int) -> None:
    xdotool(env, "type", "--delay", "20", code)
    xdotool(env, "key", "Return")
    wait_until(lambda: cart_lines(data) == count, timeout=20, what=f"{count} line(s)")


def test_a_phone_order_parks_on_a_link_the_lane_sells_meanwhile_and_the_paid_link_prints(sandbox, tmp_path,
                                                                                          cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    app: subprocess.Popen[str] | None = None
    try:
        with x_server("1280x800x24") as env:
            data = store_station(env, sandbox, tmp_path, cups_pdf.printer, "poll_wait_limit = 30.0\n")
            add_staff(env, "Eve Park", "cashier", "2468")
            codes = barcodes(sandbox, 2)
            sandbox.set_faults(s_delay_min=0.5, s_delay_max=1.0)
            started = time.time()
            app = subprocess.Popen(cli_command(), env=env, stderr=subprocess.PIPE, text=True)
            main = window_named(env, "pos-app —")
            xdotool(env, "windowactivate", "--sync", main)
            log = data / "logs" / "app.log"
            wait_until(lambda: log.exists() and "catalog synced" in log.read_text(), timeout=30, what="catalog sync")
            xdotool(env, "type", "--delay", "40", "2468")
            xdotool(env, "key", "Return")
            wait_until(lambda: "signed in: Eve Park" in log.read_text(), timeout=20, what="signed in")

            # the phone order: parked on a link sent by SMS
            scan(env, data, codes[0], 1)
            scan(env, data, codes[1], 2)
            xdotool(env, "key", "ctrl+k")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Pay by link"))
            xdotool(env, "type", "--delay", "30", "555 987 6543")
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="the lane free")
            [link] = links_of(sandbox)
            assert link.active and link.tax_ids == () and link.paid == 0

            # the next customer pays on the terminal meanwhile
            xdotool(env, "windowactivate", "--sync", main)
            scan(env, data, codes[0], 1)
            xdotool(env, "key", "F12")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card surcharge"))
            xdotool(env, "key", "Return")
            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "APPROVED", "Card")
            assert "Payment link" not in text
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card payment"))
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the card")
            assert len(links_of(sandbox)) == 1  # still the one link

            # the phone customer pays the link: the parked order completes and prints by itself
            paid = httpx.post(f"{sandbox.base_url}/_sandbox/payment-link/{link.id}/pay", timeout=5)
            assert paid.status_code == 200, paid.text
            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "Payment link")
            total = f"${link.total // 100}.{link.total % 100:02d}"
            assert total in text and paid.json()["payment"]["id"] in text, text
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "ctrl+w")
            waiting = window_named(env, "Waiting payment links")
            xdotool(env, "windowactivate", "--sync", waiting)
            SCREENS.mkdir(parents=True, exist_ok=True)
            subprocess.run(["import", "-window", "root", str(SCREENS / "e2e-waiting-links.png")], env=env, timeout=30)
            xdotool(env, "key", "Escape")
            xdotool(env, "windowactivate", "--sync", main)
            xdotool(env, "key", "alt+F4")
            assert app.wait(timeout=30) == 0
            assert "Traceback" not in app.stderr.read()
            assert len(printed_texts(cups_pdf, started, "Payment link")) == 1  # one receipt, once
    finally:
        if app is not None and app.poll() is None:  # the test failed with the app still up
            app.kill()

