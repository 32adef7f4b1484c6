"""The cash drawer: the pulse reaches a real file, device or CUPS queue byte for byte, and a
drawer that cannot be reached is a sentence for the cashier, never an exception."""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import time

import pytest

from pos_app.config import StoreConfig
from pos_app.drawer import PULSE, CashDrawer, DrawerKind, DrawerState

BASE_URL = "https://payments.example.com"


def drawer(**settings: str) -> CashDrawer:
    return CashDrawer.from_config(StoreConfig(base_url=BASE_URL, **settings))


def test_the_pulse_is_esc_p_on_pin_2():
    assert PULSE == bytes.fromhex("1B 70 00 19 FA")


def test_a_device_drawer_gets_the_pulse_appended_at_each_open(tmp_path):
    device = tmp_path / "lp0"
    device.write_bytes(b"earlier")
    cash_drawer = drawer(cash_drawer=str(device))
    assert (cash_drawer.kind, cash_drawer.target) == (DrawerKind.DEVICE, str(device))
    first, second = cash_drawer.open("cash sale"), cash_drawer.open("no sale")
    assert first.state == second.state == DrawerState.OPENED
    assert "signalled to open" in first.message
    assert device.read_bytes() == b"earlier" + PULSE + PULSE


@pytest.mark.parametrize("where", ["no-such-folder/lp0", "lp0"])
def test_a_device_that_is_not_there_fails_with_a_sentence_and_is_not_created(tmp_path, where):
    device = tmp_path / where
    result = drawer(cash_drawer=str(device)).open("cash sale")
    assert result.state == DrawerState.FAILED
    assert result.message == (f"The cash drawer did not open ({device} does not exist: is the drawer plugged in and "
                              "the setting cash_drawer right?): open it with the key.")
    assert not device.exists()


def test_a_path_that_cannot_be_written_fails_with_a_sentence(tmp_path):
    result = drawer(cash_drawer=str(tmp_path)).open("cash sale")  # a folder: no one, not even root, writes it
    assert result.state == DrawerState.FAILED
    assert result.message.startswith(f"The cash drawer did not open ({tmp_path} cannot be written: ")
    assert result.message.endswith("): open it with the key.")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.alone  # it bounds the failure's time
def test_a_device_no_one_reads_fails_at_once_instead_of_hanging(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # a device whose other end is not there: a blocking open would wait forever
    started = time.monotonic()
    result = drawer(cash_drawer=str(pipe)).open("cash sale")
    assert result.state == DrawerState.FAILED and "cannot be written" in result.message
    assert time.monotonic() - started < 2


def test_without_a_drawer_the_cashier_opens_it_by_hand(tmp_path):
    result = drawer().open("cash sale")
    assert result.state == DrawerState.NO_DRAWER
    assert "open the drawer by hand" in result.message and result.job_id is None


def test_a_printer_drawer_sends_exactly_the_pulse_as_a_raw_job(raw_printer):
    cash_drawer = drawer(printer=raw_printer.printer, cash_drawer="printer")
    assert (cash_drawer.kind, cash_drawer.target) == (DrawerKind.PRINTER, raw_printer.printer)
    result = cash_drawer.open("cash sale")
    assert result.state == DrawerState.OPENED, result.message
    assert result.job_id is not None and result.job_id.startswith(f"{raw_printer.printer}-")
    assert raw_printer.printed(result.job_id) == PULSE


def test_a_printer_that_does_not_exist_fails_with_a_sentence(raw_printer):
    result = drawer(printer="front-desk-epson", cash_drawer="printer").open("cash sale")
    assert result.state == DrawerState.FAILED
    assert result.message.startswith("The cash drawer did not open (printer 'front-desk-epson' is not set up in this "
                                     "computer's print system")
    assert raw_printer.printer in result.message  # what can be chosen instead
    assert result.message.endswith("): open it with the key.")


def test_a_paused_printer_is_refused_so_that_the_drawer_never_springs_open_later(raw_printer):
    paused = f"{raw_printer.printer}-paused"
    env = {**os.environ, "PATH": os.environ["PATH"] + ":/usr/sbin:/sbin", "LC_ALL": "C"}
    added = subprocess.run(["lpadmin", "-p", paused, "-E", "-v", f"{raw_printer.printer}:/"], capture_output=True,
                           text=True, env=env)
    assert added.returncode == 0, added.stderr
    try:
        subprocess.run(["cupsdisable", "-r", "out of paper", paused], capture_output=True, env=env, check=True)
        result = drawer(printer=paused, cash_drawer="printer").open("cash sale")
        assert result.state == DrawerState.FAILED and result.job_id is None
        assert f"printer {paused!r} is paused in the print system (" in result.message
        queued = subprocess.run(["lpstat", "-o", paused], capture_output=True, text=True, env=env).stdout
        assert queued.strip() == ""  # nothing left to open the drawer once the printer is resumed
    finally:
        subprocess.run(["lpadmin", "-x", paused], capture_output=True, env=env)


async def test_aopen_opens_on_a_worker_thread_and_logs_the_attempt(tmp_path, caplog):
    device = tmp_path / "lp0"
    device.touch()
    with caplog.at_level(logging.INFO, logger="pos_app.drawer"):
        result = await drawer(cash_drawer=str(device)).aopen("cash sale")
    assert result.state == DrawerState.OPENED and device.read_bytes() == PULSE
    attempts = [record for record in caplog.records if "opening (cash sale)" in record.getMessage()]
    assert len(attempts) == 1 and attempts[0].thread != threading.get_ident()


async def test_aopen_answers_in_time_when_the_device_hangs(tmp_path, monkeypatch, caplog):
    """A device that never answers (a fault a real file cannot produce on demand): the
    cashier hears within the timeout; the stuck write is left to its thread."""
    release = threading.Event()
    monkeypatch.setattr("pos_app.drawer._write", lambda path: release.wait(10))
    cash_drawer = CashDrawer(DrawerKind.DEVICE, str(tmp_path / "lp0"), timeout=0.2)
    try:
        result = await cash_drawer.aopen("cash sale")
    finally:
        release.set()
    assert result.state == DrawerState.FAILED
    assert result.message == "The cash drawer did not answer within 0.2 s: open it with the key."
    assert "no answer within 0.2 s" in caplog.text


def test_an_unexpected_error_is_a_sentence_not_an_exception(tmp_path, monkeypatch, caplog):
    def broken(path: str) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("pos_app.drawer._write", broken)
    result = drawer(cash_drawer=str(tmp_path / "lp0")).open("cash sale")
    assert (result.state, result.message) == (DrawerState.FAILED,
                                              "The cash drawer did not open (RuntimeError): open it with the key.")
    assert "a bug" in caplog.text  # the traceback is in the log


@pytest.mark.parametrize("kind, target", [(DrawerKind.PRINTER, None), (DrawerKind.DEVICE, None),
                                          (DrawerKind.NONE, "/dev/usb/lp0")])
def test_a_drawer_is_built_with_a_target_exactly_when_it_has_one(kind, target):
    with pytest.raises(ValueError, match="target"):
        CashDrawer(kind, target)
