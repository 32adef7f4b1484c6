"""A sale in Spanish as a cashier does it, in the real app on a real X server (Xvfb +
openbox), only by keyboard (xdotool), printing through CUPS: a store whose language is
Spanish (store.toml ``language = "es"``); the PIN and Enter, two scans, F12, Enter at the
surcharge notice (its window in Spanish); the receipt prints in Spanish; Enter: a new
sale; F8, 50, Enter: a cash sale with change, its receipt in Spanish too."""

from __future__ import annotations

import time

import pytest

from pos_app import i18n
from tests.system import require_tool
from tests.ui.desktop import (
    add_staff,
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


def spanish(text: str) -> str:
    with i18n.in_language("es"):
        translated = i18n._(text)
    assert translated != text, f"{text!r} has no Spanish translation"
    return translated


def test_a_cashier_sells_in_spanish_with_the_keyboard(sandbox, tmp_path, cups_pdf):
    for tool, package in (("xdotool", "xdotool"), ("import", "imagemagick")):
        require_tool(tool, package)
    with x_server("1280x800x24") as env:
        data = store_station(env, sandbox, tmp_path, cups_pdf.printer, 'language = "es"\n')
        add_staff(env, "Ana Ruiz", "cashier", "2468")
        codes = barcodes(sandbox, 2)
        sandbox.set_faults(s_delay_min=0.5, s_delay_max=1.0)
        started = time.time()
        with running_app(env, data) as app:
            shoot(env, "e2e-es-sign-in")
            sign_in(env, app.log, "2468", "Ana Ruiz")
            scan(env, data, codes)
            shoot(env, "e2e-es-sale")
            xdotool(env, "key", "F12")
            notice = window_named(env, spanish("Card surcharge: customer's acknowledgment"))
            xdotool(env, "windowactivate", "--sync", notice)
            shoot(env, "e2e-es-surcharge-notice")
            xdotool(env, "key", "Return")

            text = printed_receipt(cups_pdf, started, "Harbor Street Market", spanish("CUSTOMER COPY"))
            for word in (spanish("APPROVED"), spanish("Card surcharge"), "TOTAL"):
                assert word in text, f"{word!r} missing from:\n{text}"
            assert "CUSTOMER COPY" not in text and "APPROVED" not in text
            payment_window = window_named(env, spanish("Card payment"))
            xdotool(env, "windowactivate", "--sync", payment_window)
            shoot(env, "e2e-es-approved")
            xdotool(env, "key", "Return")  # Enter after the approval: a new, empty sale
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new, empty sale")
            [payment] = sandbox.stats()["payments"]
            assert payment["paid"] and "cashier Ana_Ruiz" in payment["userAgent"]

            xdotool(env, "windowactivate", "--sync", app.window)
            scan(env, data, codes[:1])
            xdotool(env, "key", "F8")
            xdotool(env, "windowactivate", "--sync", window_named(env, spanish("Cash received")))
            xdotool(env, "type", "--delay", "40", "50")
            xdotool(env, "key", "Return")
            text = printed_receipt(cups_pdf, started, "Harbor Street Market", spanish("PAID"), "$50.00")
            assert spanish("Change") in text and "Change" not in text, text
            shoot(env, "e2e-es-change-due")
            xdotool(env, "windowactivate", "--sync", window_named(env, spanish("Cash received")))
            xdotool(env, "key", "Return")
            wait_until(lambda: cart_lines(data) == 0, timeout=20, what="a new sale after the cash sale")
            close_app(env, app)
