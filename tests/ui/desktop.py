"""The real app on a real X server, driven as a person would: xdotool keys, windows found by
title, what CUPS printed read back with pdftotext, the saved cart counted."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.waiting import wait_until


def xdotool(env: dict[str, str], *args: str) -> str:
    """Run xdotool on the display of ``env``; its output ("" when it failed)."""
    done = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else ""


def window_named(env: dict[str, str], name: str) -> str:
    """The id of the first visible window whose title holds ``name``, once there is one."""
    return wait_until(lambda: xdotool(env, "search", "--onlyvisible", "--name", name).split("\n")[0],
                      timeout=30, what=f"a window named {name!r}")


def printed_texts(cups_pdf: Any, since: float, *words: str) -> list[str]:
    """The texts (pdftotext -layout) of the PDFs cups-pdf wrote since ``since`` that hold every
    one of ``words``."""
    texts = []
    for folder in cups_pdf.folders:
        for path in sorted(folder.glob("*.pdf")) if folder.is_dir() else ():
            if path.stat().st_mtime >= since - 1:
                text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                                      text=True).stdout
                if all(word in text for word in words):
                    texts.append(text)
    return texts


def printed_receipt(cups_pdf: Any, since: float, *words: str, copies: int = 1) -> str:
    """The text of a PDF cups-pdf wrote since ``since`` that holds every one of ``words``,
    once ``copies`` such PDFs are there."""
    found = wait_until(lambda: (texts := printed_texts(cups_pdf, since, *words)) and len(texts) >= copies and texts,
                       timeout=60, interval=0.2, what=f"{copies} PDF(s) printed by CUPS with {words}")
    return found[0]


def cart_lines(data_dir: Path) -> int:
    """Lines of the cart the app saved (-1 while there is no readable cart file)."""
    try:
        return len(json.loads((data_dir / "cart.json").read_text())["lines"])
    except (OSError, ValueError, KeyError):
        return -1
