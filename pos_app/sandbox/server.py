"""``SandboxServer``: the sandbox service on a loopback port, in a thread for tests and
the app, or in the caller's event loop for the command line.

It refuses a non-loopback host unless ``allow_remote`` is set: the sandbox has no real
security and fixed, published keys.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import httpx

from pos_app.api.address import is_loopback
from pos_app.api.wire import decode_json, encode_json
from pos_app.sandbox.app import build_app
from pos_app.sandbox.config import SandboxConfig
from pos_app.sandbox.http_server import HttpServer
from pos_app.sandbox.state import Sandbox

__all__ = ["SandboxConfig", "SandboxServer"]

_NO_BODY = object()


class SandboxServer:
    """The sandbox service. ``start``/``stop`` (or ``with``) run it in a daemon thread."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()
        if not self.config.allow_remote and not is_loopback(self.config.host):
            raise ValueError(
                f"refusing to serve the sandbox on {self.config.host!r}: it is reachable from other machines "
                "and its keys are public; use a loopback host (127.0.0.1) or set allow_remote"
            )
        if not 0 <= self.config.port <= 65535:
            raise ValueError(f"port must be from 0 (any free port) to 65535, got {self.config.port}")
        if self.config.key_s == self.config.key_b or not self.config.key_s or not self.config.key_b:
            raise ValueError("key_s and key_b must be two different non-empty keys")
        self.keys = {"S": self.config.key_s, "B": self.config.key_b}
        self.sandbox = Sandbox(self.config)
        self.app = build_app(self.sandbox)
        self.base_url = ""
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    # in a thread -------------------------------------------------------------------------

    def start(self) -> str:
        """Serve in a daemon thread with its own event loop; returns the base URL once listening."""
        if self._thread is not None:
            raise RuntimeError("sandbox server already started")
        ready = threading.Event()
        failure: list[BaseException] = []
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._run_thread(ready, failure)), name="pos-sandbox", daemon=True
        )
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            self._thread = None
            raise failure[0]
        return self.base_url

    async def _run_thread(self, ready: threading.Event, failure: list[BaseException]) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        server = HttpServer(self.app, self.config.host, self.config.port)
        try:
            await server.start()
        except BaseException as exc:
            failure.append(exc)
            ready.set()
            return
        self.base_url = self._url(server.port)
        ready.set()
        try:
            await self._stopping.wait()
        finally:
            await server.close()

    def stop(self) -> None:
        """Stop serving and wait for the thread; safe to call twice."""
        thread, loop, stopping = self._thread, self._loop, self._stopping
        if thread is None or loop is None or stopping is None:
            return
        loop.call_soon_threadsafe(stopping.set)
        thread.join()
        self._thread = self._loop = self._stopping = None

    def __enter__(self) -> SandboxServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # in the caller's loop --------------------------------------------------------------------

    async def serve(self, ready: Callable[[str], None] | None = None) -> None:
        """Serve in the current event loop until cancelled; ``ready(base_url)`` once listening."""
        server = HttpServer(self.app, self.config.host, self.config.port)
        await server.start()
        try:
            self.base_url = self._url(server.port)
            if ready is not None:
                ready(self.base_url)
            await asyncio.Event().wait()
        finally:
            await server.close()

    # state ------------------------------------------------------------------------------------

    def stats(self) -> dict:
        """Snapshot of request counts, payments and messages (same JSON as GET /_sandbox/stats)."""
        return self.sandbox.stats()

    def set_faults(self, **knobs: int | float) -> dict:
        """Set knobs (same as POST /_sandbox/faults); returns all knob values."""
        return self.sandbox.set_faults(knobs)

    def inject(self, route: str, status: int, *, count: int = 1, code: int | str | None = None,
               text: str | None = None, body: Any = _NO_BODY) -> dict:
        """Same as POST /_sandbox/inject: the next ``count`` requests to ``route`` answer
        ``status``, with ``body`` exactly when given. Returns the pending injections."""
        request: dict[str, Any] = {"route": route, "status": status, "count": count}
        request.update({k: v for k, v in (("code", code), ("text", text)) if v is not None})
        if body is not _NO_BODY:
            request["body"] = body
        answer = httpx.post(f"{self.base_url}/_sandbox/inject", json=request, timeout=5)
        if answer.status_code != 200:
            raise ValueError(f"injection refused: {answer.text}")
        return answer.json()

    def set_taxes(self, merchant: str, taxes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Same as POST /_sandbox/taxes: ``merchant``'s ``GET /public/tax`` answers ``taxes``
        as given from now on (JSON values; ``Decimal`` for fractions). Returns the list."""
        return self._admin("taxes", {"merchant": merchant, "taxes": taxes})["taxes"]

    def set_item_fields(self, merchant: str, item_id: str, **fields: Any) -> dict[str, Any]:
        """Same as POST /_sandbox/item-fields: the item's answers carry ``fields`` as given
        (``salesPrice="NaN"``). Returns the item as the list now shows it."""
        return self._admin("item-fields", {"merchant": merchant, "id": item_id, "fields": fields})["data"]

    def _admin(self, path: str, request: dict[str, Any]) -> Any:
        answer = httpx.post(f"{self.base_url}/_sandbox/{path}", content=encode_json(request),
                            headers={"content-type": "application/json"}, timeout=5)
        if answer.status_code != 200:
            raise ValueError(f"the sandbox refused /_sandbox/{path}: {answer.text}")
        return decode_json(answer.content)

    def settle(self) -> int:
        """Settle every captured, unsettled payment of both merchants (same as POST
        /_sandbox/settle); returns how many were settled."""
        return self.sandbox.settle()

    def _url(self, port: int) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.config.host, self.config.host)
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
