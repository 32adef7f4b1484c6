"""Sending a PDF, or raw bytes for the printer itself, to the OS print system; no Qt.

On POSIX the receipt goes to ``lp -d PRINTER`` (CUPS), which queues it and answers a job
id. Every failure is a ``PrintError`` whose message a cashier can act on; nothing here
raises a traceback at a cashier. (Windows prints receipts through Qt's QPrinter in the UI.)

``print_raw`` queues bytes the printer reads as they are (ESC/POS commands such as a cash
drawer's pulse): ``lp -o raw`` on POSIX, the spooler's RAW datatype (``win32print``, from
pywin32 when it is installed) on Windows.

``lp`` returns once CUPS has queued the job: a printer that later jams shows in CUPS,
not here. A printer CUPS has paused (it pauses one whose device failed) is refused
before anything is queued, so that a receipt is not queued to print unexpectedly later.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from pos_app.i18n import N_, _

LP_TIMEOUT = 30.0
"""Seconds ``lp``/``lpstat`` may take (a scheduler that hangs) before ``PrintError``."""
_JOB = re.compile(r"request id is (?P<job>\S+)")
# CUPS's own words (its messages are read in English: ``_env``)
_NO_CUPS = ("scheduler not responding", "unable to connect", "connection refused",  # not for people
            "no such file or directory", "bad file descriptor", "is not running")  # not for people


class PrintError(Exception):
    """The PDF was not sent to the printer; the message says what to do."""


@dataclass(frozen=True)
class PrintJob:
    """A job CUPS accepted: ``job_id`` as ``lp`` names it (``PRINTER-123``), its printer and number."""

    job_id: str
    printer: str | None
    number: int | None


def _env() -> dict[str, str]:
    """English messages from CUPS, whatever the station's language, so that they can be read here."""
    return {**os.environ, "LC_ALL": "C", "LANG": "C", "LANGUAGE": "C"}


_SILENT = {
    "list": N_("the print system did not answer within {seconds} s while listing the printers; check that the "
               "printer and the computer's print service (CUPS) are on, then try again"),
    "default": N_("the print system did not answer within {seconds} s while reading the default printer; check "
                  "that the printer and the computer's print service (CUPS) are on, then try again"),
    "check": N_("the print system did not answer within {seconds} s while checking printer {printer}; check that "
                "the printer and the computer's print service (CUPS) are on, then try again"),
    "receipt": N_("the print system did not answer within {seconds} s while sending the receipt to the printer; "
                  "check that the printer and the computer's print service (CUPS) are on, then try again"),
    "job": N_("the print system did not answer within {seconds} s while sending the job to the printer; check "
              "that the printer and the computer's print service (CUPS) are on, then try again"),
}
"""What a print command that timed out says, by what it was doing (shown through ``_()``)."""
_NOT_STARTED = {
    "list": N_("the print command could not be started while listing the printers: {error}"),
    "default": N_("the print command could not be started while reading the default printer: {error}"),
    "check": N_("the print command could not be started while checking printer {printer}: {error}"),
    "receipt": N_("the print command could not be started while sending the receipt to the printer: {error}"),
    "job": N_("the print command could not be started while sending the job to the printer: {error}"),
}
"""What a print command that could not start says, by what it was doing (shown through ``_()``)."""


def _run(command: list[str], what: str, data: bytes | None = None, timeout: float = LP_TIMEOUT,
         printer: str = "") -> subprocess.CompletedProcess[bytes]:
    """``command`` run; ``what``: a key of ``_SILENT`` (what it does, for the sentence)."""
    try:
        return subprocess.run(command, input=data, capture_output=True, timeout=timeout, env=_env(), check=False)
    except subprocess.TimeoutExpired:
        raise PrintError(_(_SILENT[what]).format(seconds=f"{timeout:g}", printer=repr(printer))) from None
    except OSError as error:
        raise PrintError(_(_NOT_STARTED[what]).format(printer=repr(printer), error=error.strerror or error)) from None


def _message(done: subprocess.CompletedProcess[bytes]) -> str:
    text = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    return text.splitlines()[-1] if text else _("exit status {code}").format(code=done.returncode)


def _no_cups(message: str) -> bool:
    return any(words in message.lower() for words in _NO_CUPS)


NO_CUPS_TEXT = N_("this computer's print service (CUPS) is not running; ask a manager to start it "
                  "(or restart the computer), then print again")
"""Marked only: raised through ``_()``."""


def list_printers() -> list[str]:
    """The print system's printers (``lpstat -e``); empty when there is no ``lpstat`` at all.
    ``PrintError`` when CUPS is installed but does not answer."""
    lpstat = shutil.which("lpstat")
    if lpstat is None:
        return []
    done = _run([lpstat, "-e"], "list")
    if done.returncode != 0:
        message = _message(done)
        if "no destinations added" in message.lower():
            return []
        raise PrintError(_(NO_CUPS_TEXT) if _no_cups(message)
                         else _("the printers cannot be listed: {message}").format(message=message))
    return [line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines() if line.strip()]


def default_printer() -> str | None:
    """The print system's default printer (``lpstat -d``), or None."""
    lpstat = shutil.which("lpstat")
    if lpstat is None:
        return None
    done = _run([lpstat, "-d"], "default")
    match = re.search(r"system default destination:\s*(\S+)", done.stdout.decode("utf-8", "replace"))
    return match.group(1) if done.returncode == 0 and match else None


def _not_set_up(printer: str) -> PrintError:
    try:
        known = list_printers()
    except PrintError:
        known = []
    if known:
        return PrintError(_("printer {printer} is not set up in this computer's print system; choose one of: "
                            "{printers} (a manager picks the receipt printer in the settings)").format(
            printer=repr(printer), printers=", ".join(known)))
    return PrintError(_("printer {printer} is not set up in this computer's print system; no printer is set up at "
                        "all (a manager picks the receipt printer in the settings)").format(printer=repr(printer)))


def _refuse_paused(printer: str, timeout: float) -> None:
    lpstat = shutil.which("lpstat")
    if lpstat is None:
        return
    done = _run([lpstat, "-p", printer], "check", timeout=timeout, printer=printer)
    output = done.stdout.decode("utf-8", "replace")
    if done.returncode != 0:
        message = _message(done)
        if _no_cups(message):
            raise PrintError(_(NO_CUPS_TEXT))
        if "invalid destination" in message.lower() or "does not exist" in message.lower() or not output:
            raise _not_set_up(printer)
        return
    if re.search(rf"printer {re.escape(printer)} disabled", output):
        reason = " ".join(output.splitlines()[1:]).strip()
        if reason:
            raise PrintError(_("printer {printer} is paused in the print system ({reason}); check its power, paper "
                               "and cable, then resume it (cupsenable {name}) and print again").format(
                printer=repr(printer), reason=reason, name=printer))
        raise PrintError(_("printer {printer} is paused in the print system; check its power, paper and cable, then "
                           "resume it (cupsenable {name}) and print again").format(printer=repr(printer), name=printer))


def print_pdf(pdf: bytes, printer: str | None = None, *,
              title: str = "pos-app receipt") -> PrintJob:  # not for people: the CUPS job's name
    """Queue ``pdf`` on ``printer`` (None: the print system's default) with ``lp``; the job.

    ``PrintError`` when there is no print system (no ``lp``: CUPS is not installed), CUPS is
    not running, the printer is not set up or is paused, or ``lp`` refuses the job.
    ``ValueError`` when ``pdf`` is not a PDF.
    """
    if not pdf.startswith(b"%PDF"):
        raise ValueError("print_pdf needs PDF bytes (they start with %PDF)")  # not for people
    if os.name != "posix":
        raise PrintError(_("printing from here needs the CUPS print system; on Windows the app prints through Qt"))
    return _lp(pdf, printer, title=title, options=(), what="receipt", timeout=LP_TIMEOUT)


def print_raw(data: bytes, printer: str, *, title: str, timeout: float = LP_TIMEOUT) -> PrintJob:
    """Queue ``data`` on ``printer`` as a raw job (the printer reads the bytes as they are); the job.

    POSIX: ``lp -d PRINTER -o raw``, each command given ``timeout`` seconds. Windows: the
    spooler's RAW datatype through ``win32print`` (pywin32). ``PrintError`` as ``print_pdf``,
    and on Windows when pywin32 is missing or the spooler refuses the job.
    """
    if os.name == "nt":
        return _spool_raw(data, printer, title)
    return _lp(data, printer, title=title, options=("-o", "raw"), what="job", timeout=timeout)


def _lp(data: bytes, printer: str | None, *, title: str, options: tuple[str, ...], what: str,
        timeout: float) -> PrintJob:
    """``data`` queued with ``lp``; every refusal a sentence about what was sent (``what``:
    ``receipt`` or ``job``)."""
    receipt = what == "receipt"
    if printer is not None and (not printer or printer.startswith("-")
                                or any(c.isspace() or c in "/#" for c in printer)):
        raise PrintError(_("{printer} is not a printer name; a manager picks the receipt printer in the "
                           "settings").format(printer=repr(printer)))
    lp = shutil.which("lp")
    if lp is None:
        raise PrintError(_("this computer has no print system command (lp): CUPS is not installed; ask a manager "
                           "to install it (Debian: apt-get install cups cups-client) and set up the receipt printer"))
    if printer is not None:
        _refuse_paused(printer, timeout)
    command = [lp, *(("-d", printer) if printer else ()), *options, "-t", title, "-"]
    done = _run(command, what, data, timeout)
    if done.returncode != 0:
        message = _message(done)
        lowered = message.lower()
        if _no_cups(message):
            raise PrintError(_(NO_CUPS_TEXT))
        if printer and ("does not exist" in lowered or "not found" in lowered or "unknown" in lowered):
            raise _not_set_up(printer)
        if "no default destination" in lowered:
            raise PrintError(_("no default printer is set up on this computer; a manager picks the receipt printer "
                               "in the settings"))
        if "not accepting jobs" in lowered:
            raise PrintError(_("printer {printer} is not accepting jobs; a manager can turn it back on (cupsaccept "
                               "{name}), then print again").format(printer=printer or _("(default)"),
                                                                  name=printer or "PRINTER"))
        refused = (_("the printer refused the receipt ({message}); check the printer, then print again") if receipt
                   else _("the printer refused the job ({message}); check the printer, then print again"))
        raise PrintError(refused.format(message=message))
    output = done.stdout.decode("utf-8", "replace")
    match = _JOB.search(output)
    if match is None:
        odd = (_("the print system answered something unexpected ({output}); check whether the receipt printed "
                 "before printing again") if receipt
               else _("the print system answered something unexpected ({output}); check whether the job printed "
                      "before printing again"))
        raise PrintError(odd.format(output=output.strip() or _("nothing")))
    job_id = match.group("job")
    queue, __, number = job_id.rpartition("-")
    return PrintJob(job_id, queue or printer, int(number) if number.isdigit() else None)


def _spool_raw(data: bytes, printer: str, title: str) -> PrintJob:
    """``data`` as a RAW job of the Windows spooler (pywin32's ``win32print``)."""
    try:
        import win32print  # type: ignore[import-untyped, import-not-found, unused-ignore]  # pywin32: optional
    except ImportError:
        raise PrintError(_("raw jobs cannot be sent to a Windows printer from this installation (pywin32's "
                           "win32print is missing)")) from None
    try:
        handle = win32print.OpenPrinter(printer)
        try:
            number = int(win32print.StartDocPrinter(handle, 1, (title, None, "RAW")))
            try:
                win32print.StartPagePrinter(handle)
                win32print.WritePrinter(handle, data)
                win32print.EndPagePrinter(handle)
            finally:
                win32print.EndDocPrinter(handle)
        finally:
            win32print.ClosePrinter(handle)
    except Exception as error:  # pywintypes.error: (code, function, message)
        message = getattr(error, "strerror", None) or str(error)
        raise PrintError(_("the Windows print spooler refused the job for printer {printer} ({message}); check that "
                           "the printer is set up and on, then try again").format(printer=repr(printer),
                                                                                message=message)) from None
    return PrintJob(f"{printer}-{number}", printer, number)
