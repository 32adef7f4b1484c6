"""System tools the tests drive (CUPS, pdftotext, Xvfb, ...): skip without them, except in CI.

``make system-deps`` installs them on Debian. On a developer's machine without a tool, the
tests that need it are skipped with the reason; under ``CI=true`` a missing tool is a
failure, so that a CI machine lacking one can never pass by skipping.
"""

from __future__ import annotations

import os
import shutil

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(condition: object, reason: str) -> None:
    """Skip the test with ``reason`` when ``condition`` is false; under CI=true, fail instead."""
    if condition:
        return
    if in_ci():
        pytest.fail(f"{reason} (CI=true: a missing system tool is a failure; `make system-deps` installs them)",
                    pytrace=False)
    pytest.skip(f"{reason} (`make system-deps` installs it)")


def require_tool(name: str, package: str | None = None) -> str:
    """The path of the command ``name``; skips (fails under CI=true) when it is not on PATH."""
    path = shutil.which(name)
    require(path, f"{name} is not installed" + (f" (Debian package {package})" if package else ""))
    assert path is not None
    return path
