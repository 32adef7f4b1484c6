"""Client fixtures: one PaymentsClient per merchant against the sandbox, and a canned
loopback server that answers whatever body a test sets (odd shapes the sandbox never sends)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import pytest_asyncio

from pos_app.api.client import Identity, PaymentsClient, RetryPolicy

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)


@pytest_asyncio.fixture
async def clients(sandbox):
    made = {m: PaymentsClient(sandbox.base_url, key, identity=Identity("s1", "lane-1", "c7"), retry=FAST_RETRY)
            for m, key in sandbox.keys.items()}
    yield made
    for client in made.values():
        await client.aclose()


class CannedServer:
    """An HTTP server on 127.0.0.1 answering ``answers[(method, path)]`` = (status, JSON value)."""

    def __init__(self) -> None:
        self.answers: dict[tuple[str, str], tuple[int, Any]] = {}
        self.requests: list[tuple[str, str]] = []
        canned = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                path = self.path.split("?", 1)[0]
                canned.requests.append((self.command, path))
                status, value = canned.answers.get((self.command, path), (404, {"message": "not canned"}))
                payload = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="canned-http", daemon=True
        )

    def answer(self, method: str, path: str, value: Any, status: int = 200) -> None:
        self.answers[(method, path)] = (status, value)

    def __enter__(self) -> CannedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture
def canned() -> Iterator[CannedServer]:
    with CannedServer() as server:
        yield server


@pytest_asyncio.fixture
async def canned_client(canned):
    async with PaymentsClient(canned.base_url, "canned-key", retry=FAST_RETRY) as client:
        yield client
