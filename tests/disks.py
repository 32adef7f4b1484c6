"""A real small disk for the tests of a full or read-only disk: a tmpfs of a few megabytes
mounted on a folder of the test (root only: mount(8); skipped elsewhere, failed under
CI=true). ``fill`` takes every free byte and ``free`` gives them back: the kernel then
refuses writes exactly as a full disk does."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.system import require, require_tool

FILLER = ".filler"


class SmallDisk:
    def __init__(self, root: Path) -> None:
        self.root = root

    def fill(self) -> None:
        """Write until the disk says it is full (ENOSPC)."""
        block = b"\0" * 65536
        with open(self.root / FILLER, "ab", buffering=0) as filler:
            while True:
                try:
                    filler.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
        for size in (4096, 512, 1):  # the last partial pages too
            with contextlib.suppress(OSError), open(self.root / FILLER, "ab", buffering=0) as filler:
                while True:
                    filler.write(b"\0" * size)

    def free(self) -> None:
        (self.root / FILLER).unlink(missing_ok=True)


@contextlib.contextmanager
def small_disk(root: Path, megabytes: int = 8) -> Iterator[SmallDisk]:
    require(os.geteuid() == 0, "mounting a small disk needs root")
    require_tool("mount", "mount")
    root.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(root)],
                             capture_output=True, text=True)
    require(mounted.returncode == 0, f"a tmpfs cannot be mounted here: {mounted.stderr.strip()}")
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], capture_output=True)
