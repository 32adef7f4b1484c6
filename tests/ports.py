"""A loopback port that refuses connections, for the tests of an unreachable service."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses every connection while the block runs: bound but never
    listening, so it stays this test's (a port merely found free and closed again could be
    taken meanwhile by another pytest worker's server, which would then answer)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]
