"""The cash drawer: the ESC/POS pulse appended to a device file, or sent as a raw job through
a real CUPS queue (its bytes read back as the queue's backend received them); no drawer and
a drawer that cannot be reached are sentences, never errors; the setting is checked."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.config import StoreConfig
from pos_app.drawer import NO_DRAWER, PULSE, CashDrawer, DrawerState
from tests.printers import CapturePrinter
from tests.waiting import wait_until


def test_a_device_path_gets_the_pulse_appended_each_time(tmp_path):
    device = tmp_path / "drawer"
    drawer = CashDrawer(str(device), None)
    assert drawer.open("cash sale").state is DrawerState.OPENED
    assert asyncio.run(drawer.aopen("cash sale")).state is DrawerState.OPENED
    assert device.read_bytes() == PULSE + PULSE == bytes.fromhex("1b700019fa") * 2


def test_a_device_that_cannot_be_reached_is_a_sentence(tmp_path):
    result = CashDrawer(str(tmp_path / "no-such-folder" / "drawer"), None).open("cash sale")
    assert result.state is DrawerState.FAILED
    assert result.sentence.startswith("The cash drawer did not open (") and "open it with its key" in result.sentence


def test_no_drawer_tells_the_cashier_to_open_it_by_hand():
    result = CashDrawer(None, "receipts").open("cash sale")
    assert (result.state, result.sentence) == (DrawerState.NO_DRAWER, NO_DRAWER)


def test_through_the_printer_the_pulse_is_a_raw_job(capture_printer: CapturePrinter):
    before = set(capture_printer.jobs())
    result = CashDrawer("printer", capture_printer.printer).open("cash sale")
    assert result.state is DrawerState.OPENED, result.sentence
    new = wait_until(lambda: [data for job, data in capture_printer.jobs().items() if job not in before],
                     timeout=30, what="the raw job in the capture queue")
    assert new == [PULSE]


def test_a_printer_that_does_not_exist_is_a_sentence(cups_pdf):
    result = CashDrawer("printer", "no-such-printer-here").open("cash sale")
    assert result.state is DrawerState.FAILED and "no-such-printer-here" in result.sentence


@pytest.mark.parametrize("value, printer, words", [
    ("printer", None, "no printer is set"),
    ("dev/usb/lp0", None, "absolute path"),
])
def test_the_setting_is_checked(value, printer, words):
    with pytest.raises(ValueError, match=words):
        StoreConfig(base_url="http://127.0.0.1:9", cash_drawer=value, printer=printer)


def test_the_setting_comes_from_the_environment(tmp_path):
    from pos_app.config import load_config

    config = load_config({"POS_BASE_URL": "http://127.0.0.1:9", "POS_DATA_DIR": str(tmp_path),
                          "POS_CASH_DRAWER": str(tmp_path / "drawer")})
    assert config.cash_drawer == str(tmp_path / "drawer")
