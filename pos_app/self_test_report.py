"""What both halves of ``pos-app --self-test`` use (``pos_app.self_test`` drives it,
``pos_app.ui.self_test`` runs its Qt steps): the report of the steps, a step's failure,
and the receipt PDF's check."""

from __future__ import annotations

import re
import sys
import time
from typing import Any

from pos_app.i18n import _


class SelfTestFailed(Exception):
    """A step did not do what it must; the message says which and what was seen."""


class Report:
    """The steps as they pass: a line each on stdout at once, then the JSON summary."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.steps: dict[str, float] = {}
        self.facts: dict[str, Any] = {}
        self.current = "start"

    def begin(self, step: str) -> None:
        self.current = step

    def passed(self, step: str, detail: str = "") -> None:
        elapsed = round(time.monotonic() - self.started, 3)
        self.steps[step] = elapsed
        # not for people: the line's start is read by scripts (bench_bundle); its detail is translated
        sys.stdout.write(f"self-test: {step} ({elapsed:.2f} s){' ' + detail if detail else ''}\n")  # not for people
        sys.stdout.flush()

    def summary(self, error: str | None = None) -> dict[str, Any]:
        from pos_app import __version__

        result: dict[str, Any] = {"outcome": "failed" if error else "ok", "version": __version__,
                                  "bundled": bool(getattr(sys, "frozen", False)), "steps": self.steps, **self.facts}
        if error:
            result.update(failed_step=self.current, error=error)
        return result


def check_pdf(pdf: bytes) -> int:
    """The PDF's page count after the checks any PDF reader makes first (header, trailer);
    ``SelfTestFailed`` when the bytes are not a whole PDF."""
    if not pdf.startswith(b"%PDF-"):
        raise SelfTestFailed(_("the receipt is not a PDF (it starts with {start!r})").format(start=pdf[:8]))
    if b"%%EOF" not in pdf[-64:]:
        raise SelfTestFailed(_("the receipt PDF is cut short (no %%EOF at its end)"))
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    if pages < 1:
        raise SelfTestFailed(_("the receipt PDF has no page"))
    return pages
