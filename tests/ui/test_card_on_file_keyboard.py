"""Issue 19's card on file as a cashier does it, in the real app on a real X server (Xvfb +
openbox), only by keyboard (xdotool), printing through CUPS: two scans, F6, "roe", Enter
attaches Jane Roe (a customer the sandbox starts with); F4 and Enter at the surcharge
notice: one charge of her Visa •••• 4242 on file for the cart's total, on her vault (no
terminal); the receipt prints with her name and the card on file; Enter: a new sale."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.merchant_data import seeded_customer
from tests.system import require_tool
from tests.ui.desktop import (
    add_staff,
    attach_customer,
    barcodes,
    cart_lines,
    close_app,
    printed_receipt,
    running_app,
    scan,
    shoot,
    sign_in,
    store_station,
    window_named,
    xdotool,
)
from tests.ui.helpers import x_server
from tests.waiting import wait_until

pytestmark = pytest.mark.alone  # it finds its receipts in the shared cups-pdf folder by their words


def dollars(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def test_f6_roe_then_f4_enter_charges_jane_roes_card_on_file(sandbox, tmp_path, cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    with x_server("1280x800x24") as env:
        data = store_station(env, sandbox, tmp_path, cups_pdf.printer)
        add_staff(env, "Eve Park", "cashier", "2468")
        codes = barcodes(sandbox, 2)
        jane = seeded_customer(sandbox, "jane@example.com", "S")
        started = time.time()
        with running_app(env, data) as app:
            sign_in(env, app.log, "2468", "Eve Park")
            scan(env, data, codes)
            attach_customer(env, data, "roe", "Jane Roe")
            xdotool(env, "windowactivate", "--sync", app.window)
            xdotool(env, "key", "F4")
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card surcharge"))
            shoot(env, "e2e-card-on-file-notice")
            assert sandbox.stats()["requests"]["S"].get("card.charge", 0) == 0  # nothing sent before Enter
            xdotool(env, "key", "Return")

            text = printed_receipt(cups_pdf, started, "Harbor Street Market", "Customer Jane Roe", "(card on file)")
            [charged] = sandbox.stats()["payments"]
            payment = httpx.get(f"{sandbox.base_url}/public/payment/{charged['id']}",
                                headers={"key-hash": sandbox.keys["S"]}).json()["data"]
            assert payment["paid"] and payment["card"]["last4"] == "4242" and charged["terminalId"] != "ts-1001"
            total, surcharge = payment["amount"], payment["netAmount"] - payment["amount"]
            assert f"card_charge of {total} on vault:{jane}" in app.log.read_text()  # her card, the cart total
            assert "Visa **** 4242 (card on file)" in text and "APPROVED" in text and "Eve Park" in text, text
            total_line = next(line for line in text.splitlines() if line.strip().startswith("TOTAL"))
            assert total_line.split()[-1] == dollars(total + surcharge)  # the order's total, then its surcharge
            assert ("Card surcharge" in text) == bool(surcharge)
            xdotool(env, "windowactivate", "--sync", window_named(env, "Card on file"))
            shoot(env, "e2e-card-on-file-approved")
            xdotool(env, "key", "Return")  # Enter after the approval: a new, empty sale
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new, empty sale")
            assert sandbox.stats()["requests"]["S"].get("terminal.pay", 0) == 0
            close_app(env, app)
