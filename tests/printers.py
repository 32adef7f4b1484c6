"""A real CUPS printer that writes PDFs, for the printing tests (receipts and the app).

``cups_pdf`` (session): makes sure the CUPS scheduler runs (starting ``cupsd`` as root when
it does not), adds the ``pos-test-pdf`` queue on the cups-pdf backend once, and finds the
folders cups-pdf writes into (its ``Out`` setting, ``${HOME}/PDF`` by default: ``/root/PDF``
for root; anonymous jobs go to ``AnonDirName``). Without CUPS, cups-pdf or root, the
printing tests skip; under CI=true they fail (``tests.system.require``).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from pos_app.receipts import PrintJob
from tests.system import require, require_tool
from tests.waiting import wait_until

PRINTER = "pos-test-pdf"
CUPS_PDF_CONF = Path("/etc/cups/cups-pdf.conf")
CUPS_PDF_BACKEND = Path("/usr/lib/cups/backend/cups-pdf")
SBIN = "/usr/sbin:/sbin"


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


@pytest.fixture(scope="session")
def cups_pdf() -> CupsPdf:
    for tool, package in (("lp", "cups-client"), ("lpstat", "cups-client"), ("pdftotext", "poppler-utils"),
                          ("pdfinfo", "poppler-utils")):
        require_tool(tool, package)
    require(CUPS_PDF_BACKEND.exists(), "cups-pdf is not installed (Debian package printer-driver-cups-pdf)")
    if not _scheduler_running():
        _start_cups()
    if _run("lpstat", "-p", PRINTER).returncode != 0:
        require(shutil.which("lpadmin", path=os.environ.get("PATH", "") + ":" + SBIN), "lpadmin is not installed")
        models = _run("lpinfo", "-m").stdout.splitlines()
        ranked = sorted((line.split()[0] for line in models if "cups-pdf" in line.lower()),
                        key=lambda model: "CUPS-PDF_opt" not in model)
        require(ranked, "CUPS has no cups-pdf printer model (lpinfo -m)")
        added = _run("lpadmin", "-p", PRINTER, "-E", "-v", "cups-pdf:/", "-m", ranked[0],
                     "-o", "pdftops-renderer-default=pdftocairo", "-o", "Label=2")
        require(added.returncode == 0, f"cannot add the {PRINTER} printer: {added.stderr.strip()}")
    return CupsPdf(PRINTER, tuple(output_dirs()))


CAPTURE_PRINTER = "pos-test-capture"
CAPTURE_BACKEND = Path("/usr/lib/cups/backend/pos-test-capture")
CAPTURE_DIR = Path("/var/spool/pos-test-capture")
CAPTURE_SCRIPT = f"""#!/bin/sh
# pos-app's tests: a CUPS backend that keeps each job's bytes as they arrived (a raw queue)
if [ $# -eq 0 ]; then echo 'direct pos-test-capture "Unknown" "pos-app test capture"'; exit 0; fi
mkdir -p {CAPTURE_DIR}
if [ -n "$6" ]; then cat "$6" > {CAPTURE_DIR}/job_$1.part; else cat > {CAPTURE_DIR}/job_$1.part; fi
mv {CAPTURE_DIR}/job_$1.part {CAPTURE_DIR}/job_$1.bin
exit 0
"""


@dataclass(frozen=True)
class CapturePrinter:
    """A raw CUPS queue whose backend keeps each job's bytes (``jobs``): what a printer
    would have been sent, exactly."""

    printer: str

    def jobs(self) -> dict[int, bytes]:
        found = {}
        for path in CAPTURE_DIR.glob("job_*.bin") if CAPTURE_DIR.is_dir() else ():
            found[int(path.stem.removeprefix("job_"))] = path.read_bytes()
        return found


@pytest.fixture(scope="session")
def capture_printer(cups_pdf: CupsPdf) -> CapturePrinter:
    """The raw capture queue, added once (as root: its backend runs as root, mode 0700)."""
    require(os.geteuid() == 0, "only root can add the capture backend to CUPS")
    if not CAPTURE_BACKEND.exists() or CAPTURE_BACKEND.read_text() != CAPTURE_SCRIPT:
        CAPTURE_BACKEND.write_text(CAPTURE_SCRIPT)
        CAPTURE_BACKEND.chmod(0o700)
    if _run("lpstat", "-p", CAPTURE_PRINTER).returncode != 0:
        added = _run("lpadmin", "-p", CAPTURE_PRINTER, "-E", "-v", "pos-test-capture:/")
        require(added.returncode == 0, f"cannot add the {CAPTURE_PRINTER} printer: {added.stderr.strip()}")
    return CapturePrinter(CAPTURE_PRINTER)
