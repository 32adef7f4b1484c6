"""Real CUPS printers for the printing tests (receipts, the app, the cash drawer).

``cups_pdf`` (session): makes sure the CUPS scheduler runs (starting ``cupsd`` as root when
it does not), adds the ``pos-test-pdf`` queue on the cups-pdf backend once, and finds the
folders cups-pdf writes into (its ``Out`` setting, ``${HOME}/PDF`` by default: ``/root/PDF``
for root; anonymous jobs go to ``AnonDirName``). Without CUPS, cups-pdf or root, the
printing tests skip; under CI=true they fail (``tests.system.require``).

``raw_printer`` (session): a raw queue, ``pos-test-drawer``, whose device keeps each job's
bytes exactly as CUPS hands them to a printer (a small backend installed as root, so that
cupsd's configuration is left as it is: no ``FileDevice``, no restart), for the raw jobs
of the cash drawer.

Each pytest worker (``make test`` runs two) sets them up under one lock: two ``cupsd``
started at once, or two ``lpadmin`` adding one queue, would trip over each other.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from pos_app.receipts import PrintJob
from tests.system import require, require_tool
from tests.waiting import wait_until

PRINTER = "pos-test-pdf"
CUPS_PDF_CONF = Path("/etc/cups/cups-pdf.conf")
CUPS_PDF_BACKEND = Path("/usr/lib/cups/backend/cups-pdf")
SBIN = "/usr/sbin:/sbin"
SET_UP_LOCK = Path(tempfile.gettempdir()) / f"pos-app-tests-cups-{os.getuid()}.lock"
"""Held while a worker starts the scheduler or adds a queue (this machine's CUPS is shared)."""
SET_UP_WAIT_S = 120


def _run(*command: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C", "PATH": os.environ.get("PATH", "") + ":" + SBIN}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def _scheduler_running() -> bool:
    return _run("lpstat", "-r").stdout.strip() == "scheduler is running"


def _start_cups() -> None:
    cupsd = shutil.which("cupsd", path=os.environ.get("PATH", "") + ":" + SBIN)
    require(cupsd, "cupsd is not installed (Debian package cups)")
    require(os.geteuid() == 0, "the CUPS scheduler is not running and only root can start it here")
    assert cupsd is not None
    started = _run(cupsd)  # forks into the background; stays up for later tests
    if started.returncode != 0 and shutil.which("service"):
        _run("service", "cups", "start")
    wait_until(_scheduler_running, timeout=20, interval=0.1, what="the CUPS scheduler to start")


def _conf_value(key: str, default: str) -> str:
    try:
        text = CUPS_PDF_CONF.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return default
    values = re.findall(rf"^\s*{key}\s+(.+?)\s*$", text, flags=re.MULTILINE)
    return values[-1] if values else default


def output_dirs() -> list[Path]:
    """Where cups-pdf writes this user's jobs (``Out``), then anonymous jobs (``AnonDirName``)."""
    user = pwd.getpwuid(os.geteuid())
    out = _conf_value("Out", "/var/spool/cups-pdf/${USER}")
    out = out.replace("${HOME}", user.pw_dir).replace("${USER}", user.pw_name)
    anonymous = _conf_value("AnonDirName", "/var/spool/cups-pdf/ANONYMOUS")
    return [Path(out), Path(anonymous)]


@dataclass(frozen=True)
class CupsPdf:
    printer: str
    folders: tuple[Path, ...]

    def wait_for(self, job: PrintJob, *, timeout: float = 60.0) -> Path:
        """The PDF cups-pdf wrote for ``job`` (``...job_N.pdf``), once it is complete."""
        assert job.number is not None, job
        suffix = f"job_{job.number}.pdf"

        def finished() -> Path | None:
            for folder in self.folders:
                for path in (folder.glob(f"*{suffix}") if folder.is_dir() else ()):
                    probe = subprocess.run(["pdfinfo", str(path)], capture_output=True, timeout=10)
                    if probe.returncode == 0:  # complete, not still being written
                        return path
            return None

        try:
            return wait_until(finished, timeout=timeout, interval=0.1, what=f"cups-pdf's file for {job.job_id}")
        except AssertionError as error:
            log = Path(f"/var/log/cups/cups-pdf-{self.printer}_log")
            tail = log.read_text(errors="replace").splitlines()[-15:] if log.exists() else []
            raise AssertionError(f"{error}; looked in {', '.join(map(str, self.folders))}; "
                                 f"cups-pdf log: {tail}") from None


def _require_tools(*tools: tuple[str, str]) -> None:
    for tool, package in (("lp", "cups-client"), ("lpstat", "cups-client"), *tools):
        require_tool(tool, package)


def _ensure_scheduler() -> None:
    if not _scheduler_running():
        _start_cups()


@pytest.fixture(scope="session")
def cups_pdf() -> CupsPdf:
    return add_pdf_printer()


def add_pdf_printer() -> CupsPdf:
    """The ``pos-test-pdf`` queue, added when missing (``cups_pdf``; the benchmarks print on
    it too). Skips (fails under CI=true) without CUPS or cups-pdf."""
    _require_tools(("pdftotext", "poppler-utils"), ("pdfinfo", "poppler-utils"))
    require(CUPS_PDF_BACKEND.exists(), "cups-pdf is not installed (Debian package printer-driver-cups-pdf)")
    with FileLock(SET_UP_LOCK, timeout=SET_UP_WAIT_S):
        _add_pdf_queue()
    return CupsPdf(PRINTER, tuple(output_dirs()))


def _add_pdf_queue() -> None:
    _ensure_scheduler()
    if _run("lpstat", "-p", PRINTER).returncode != 0:
        require(shutil.which("lpadmin", path=os.environ.get("PATH", "") + ":" + SBIN), "lpadmin is not installed")
        models = _run("lpinfo", "-m").stdout.splitlines()
        ranked = sorted((line.split()[0] for line in models if "cups-pdf" in line.lower()),
                        key=lambda model: "CUPS-PDF_opt" not in model)
        require(ranked, "CUPS has no cups-pdf printer model (lpinfo -m)")
        added = _run("lpadmin", "-p", PRINTER, "-E", "-v", "cups-pdf:/", "-m", ranked[0],
                     "-o", "pdftops-renderer-default=pdftocairo", "-o", "Label=2")
        require(added.returncode == 0, f"cannot add the {PRINTER} printer: {added.stderr.strip()}")


RAW_PRINTER = "pos-test-drawer"
RAW_BACKEND = Path("/usr/lib/cups/backend") / RAW_PRINTER
RAW_SPOOL = Path("/var/spool") / RAW_PRINTER
RAW_BACKEND_SCRIPT = f"""#!/bin/sh
# pos-app's tests (tests/printers.py): keeps each job's bytes exactly as CUPS hands them over
if [ $# -eq 0 ]; then echo 'direct {RAW_PRINTER} "Unknown" "pos-app test raw capture"'; exit 0; fi
mkdir -p {RAW_SPOOL} || exit 1
if [ -n "$6" ]; then cat "$6"; else cat; fi > {RAW_SPOOL}/job-$1.part || exit 1
mv {RAW_SPOOL}/job-$1.part {RAW_SPOOL}/job-$1.bin
"""


@dataclass(frozen=True)
class RawPrinter:
    printer: str
    spool: Path

    def printed(self, job_id: str, *, timeout: float = 30.0) -> bytes:
        """The bytes the queue's device received for ``job_id`` (``pos-test-drawer-N``)."""
        number = job_id.rpartition("-")[2]
        path = self.spool / f"job-{number}.bin"
        try:
            wait_until(path.exists, timeout=timeout, interval=0.05, what=f"the bytes of {job_id}")
        except AssertionError as error:
            jobs = _run("lpstat", "-W", "all", "-o", self.printer).stdout.strip()
            raise AssertionError(f"{error}; the queue's jobs: {jobs or 'none'}") from None
        return path.read_bytes()


def _backend_current() -> bool:
    try:
        return RAW_BACKEND.read_text() == RAW_BACKEND_SCRIPT
    except OSError:  # missing, or not readable by this user (mode 0700)
        return False


@pytest.fixture(scope="session")
def raw_printer() -> RawPrinter:
    """The raw capture queue, added once (its backend is mode 0700, which cupsd runs as root)."""
    _require_tools()
    with FileLock(SET_UP_LOCK, timeout=SET_UP_WAIT_S):
        _add_raw_queue()
    return RawPrinter(RAW_PRINTER, RAW_SPOOL)


def _add_raw_queue() -> None:
    _ensure_scheduler()
    if not _backend_current():
        require(os.geteuid() == 0, f"only root can add the {RAW_PRINTER} backend to CUPS")
        staged = RAW_BACKEND.with_name(f".{RAW_PRINTER}.{os.getpid()}")
        staged.write_text(RAW_BACKEND_SCRIPT)
        staged.chmod(0o700)
        staged.replace(RAW_BACKEND)  # whole, for a cupsd that runs it meanwhile
    if _run("lpstat", "-p", RAW_PRINTER).returncode != 0:
        require(shutil.which("lpadmin", path=os.environ.get("PATH", "") + ":" + SBIN), "lpadmin is not installed")
        added = _run("lpadmin", "-p", RAW_PRINTER, "-E", "-v", f"{RAW_PRINTER}:/",
                     "-o", "printer-error-policy=abort-job")
        require(added.returncode == 0, f"cannot add the {RAW_PRINTER} printer: {added.stderr.strip()}")
    for command in ("cupsenable", "cupsaccept"):  # a queue left paused by an earlier run
        _run(command, RAW_PRINTER)
