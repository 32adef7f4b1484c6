"""Printing through CUPS: a real queue on the cups-pdf backend, and lp's failures as sentences."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from pos_app.receipts import PrintError, list_printers, print_pdf, print_raw, render_receipt
from tests.receipts.conftest import pdf_text, sample_receipt


def test_a_receipt_prints_to_a_real_cups_printer(cups_pdf):
    pdf = render_receipt(sample_receipt(training=True))
    job = print_pdf(pdf, cups_pdf.printer)
    assert job.printer == cups_pdf.printer and job.number is not None and job.job_id.endswith(f"-{job.number}")
    printed = cups_pdf.wait_for(job)
    text = pdf_text(printed)
    for expected in ("Corner Market", "Sourdough loaf", "TOTAL", "$17.68", "Visa **** 4242", "NO MONEY MOVED"):
        assert expected in text, f"{expected!r} missing from the printed PDF {printed}:\n{text}"


def test_the_test_printer_is_listed(cups_pdf):
    assert cups_pdf.printer in list_printers()


def test_an_unknown_printer_is_a_sentence_not_a_traceback(cups_pdf):
    with pytest.raises(PrintError) as caught:
        print_pdf(render_receipt(sample_receipt()), "front-desk-epson")
    message = str(caught.value)
    assert "printer 'front-desk-epson' is not set up in this computer's print system" in message
    assert cups_pdf.printer in message  # what can be chosen instead


def test_a_paused_printer_is_refused_before_anything_is_queued(cups_pdf):
    paused = "pos-test-paused"
    added = subprocess.run(["lpadmin", "-p", paused, "-v", "cups-pdf:/", "-m", "raw"], capture_output=True, text=True,
                           env={**os.environ, "PATH": os.environ["PATH"] + ":/usr/sbin:/sbin"})
    if added.returncode != 0:  # "raw" models are deprecated; any model will do
        added = subprocess.run(["lpadmin", "-p", paused, "-v", "cups-pdf:/", "-m",
                                "lsb/usr/cups-pdf/CUPS-PDF_noopt.ppd"], capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    subprocess.run(["cupsdisable", "-r", "out of paper", paused], capture_output=True,
                   env={**os.environ, "PATH": os.environ["PATH"] + ":/usr/sbin:/sbin"})
    try:
        with pytest.raises(PrintError, match="is paused in the print system") as caught:
            print_pdf(render_receipt(sample_receipt()), paused)
        assert "cupsenable" in str(caught.value)
    finally:
        subprocess.run(["lpadmin", "-x", paused], capture_output=True,
                       env={**os.environ, "PATH": os.environ["PATH"] + ":/usr/sbin:/sbin"})


def test_without_a_print_system_lp_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PrintError, match=r"no print system command \(lp\)"):
        print_pdf(b"%PDF-1.4 x", "pos-test-pdf")
    assert list_printers() == []


def fake_tools(folder: Path, *, lp: str, lpstat: str = "echo 'printer X is idle.'") -> None:
    for name, body in (("lp", lp), ("lpstat", lpstat)):
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize("lp, words", [
    ("echo 'lp: Error - Scheduler not responding.' >&2; exit 1", "print service (CUPS) is not running"),
    ("echo 'lp: Error - No default destination.' >&2; exit 1", "no default printer"),
    ("echo 'lp: Error - Destination \"X\" is not accepting jobs.' >&2; exit 1", "not accepting jobs"),
    ("echo 'lp: Error - something odd.' >&2; exit 1", "refused the receipt (lp: Error - something odd.)"),
    ("echo 'queued, probably'", "check whether the receipt printed"),
])
def test_lp_failures_become_sentences(monkeypatch, tmp_path, lp, words):
    fake_tools(tmp_path, lp=lp)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PrintError) as caught:
        print_pdf(b"%PDF-1.4 x", None)
    assert words in str(caught.value)


def test_a_raw_job_lp_refuses_is_a_sentence_about_the_job(monkeypatch, tmp_path):
    fake_tools(tmp_path, lp="cat >/dev/null; echo 'lp: Error - something odd.' >&2; exit 1")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PrintError, match=r"^the printer refused the job \(lp: Error - something odd.\)"):
        print_raw(b"\x1bp\x00\x19\xfa", "lane-1-printer", title="drawer")


def test_the_job_id_is_read_from_lp(monkeypatch, tmp_path):
    fake_tools(tmp_path, lp="cat >/dev/null; echo 'request id is lane-1-printer-42 (1 file(s))'")
    monkeypatch.setenv("PATH", str(tmp_path))
    job = print_pdf(b"%PDF-1.4 x", "lane-1-printer")
    assert (job.job_id, job.printer, job.number) == ("lane-1-printer-42", "lane-1-printer", 42)


@pytest.mark.parametrize("name", ["", "-d", "two words", "a/b"])
def test_a_printer_name_that_cannot_be_one_is_refused(name):
    with pytest.raises(PrintError, match="not a printer name"):
        print_pdf(b"%PDF-1.4 x", name)


def test_only_pdf_bytes_are_printed():
    with pytest.raises(ValueError, match="PDF"):
        print_pdf(b"hello", "pos-test-pdf")
