"""A small asyncio + h11 HTTP/1.1 server for ASGI 3 apps.

It exists because the Merchant Payments Service answers statuses 901-906, which uvicorn
cannot send (its reason-phrase table stops at 599). This server sends any status
100-999 and understands one ASGI extension, ``pos.sandbox.abort``: an app that sends
``{"type": "pos.sandbox.abort"}`` instead of ``http.response.start`` gets the TCP
connection aborted with nothing sent, which is how the sandbox loses an answer after
the service has acted.

Scope, on purpose: plain HTTP/1.1 with keep-alive, request bodies read in full before
the app runs (bounded by ``MAX_BODY``), responses buffered and framed with
Content-Length. No TLS, no chunked responses, no websockets, no lifespan.
"""

from __future__ import annotations

import asyncio
import http
import logging
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote

import h11

ABORT = "pos.sandbox.abort"
"""ASGI extension message: abort the connection, send nothing."""

MAX_BODY = (25 << 20) + (1 << 16)
"""The largest request taken: an upload of 25 MB of attachments (the reference's limit
for links and subscriptions) and its multipart framing; larger ones answer 413."""
KEEPALIVE_TIMEOUT = 30.0
_READ_SIZE = 65536

ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]

_log = logging.getLogger(__name__)
_SKIPPED_HEADERS = {b"content-length", b"transfer-encoding", b"connection"}


def reason_phrase(status: int) -> bytes:
    """The reason phrase for any status: HTTP's own, the service's 901-906, or Unknown."""
    if 901 <= status <= 906:
        return b"Charge Request Error"
    try:
        return http.HTTPStatus(status).phrase.encode("ascii")
    except ValueError:
        return b"Unknown"


class HttpServer:
    """Serves one ASGI app on ``host``:``port`` (0 picks a free port) until ``close``."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_connection, self._host, self._port)

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stop listening, cancel every connection, wait until all are gone."""
        if self._server is None:
            return
        self._server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await _Connection(self._app, reader, writer).run()
        except (ConnectionError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            self._tasks.discard(task)
            writer.close()


class _Connection:
    """One TCP connection: read a request, run the app, write its answer, repeat."""

    def __init__(self, app: ASGIApp, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._app = app
        self._reader = reader
        self._writer = writer
        self._h11 = h11.Connection(h11.SERVER)
        self._client = _address(writer.get_extra_info("peername"))
        self._server = _address(writer.get_extra_info("sockname"))

    async def run(self) -> None:
        while True:
            try:
                request = await self._next_event(idle=True)
                if not isinstance(request, h11.Request):
                    return
                body = await self._read_body()
            except h11.RemoteProtocolError as exc:
                await self._refuse(exc.error_status_hint)
                return
            except TimeoutError:
                return
            if body is None:
                await self._refuse(413)
                return
            if not await self._answer(request, body):
                return
            if self._h11.our_state is not h11.DONE or self._h11.their_state is not h11.DONE:
                return
            self._h11.start_next_cycle()

    async def _next_event(self, *, idle: bool = False) -> Any:
        while True:
            event = self._h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            if self._h11.they_are_waiting_for_100_continue:
                self._writer.write(self._h11.send(h11.InformationalResponse(status_code=100, headers=[])))
            if idle and self._h11.their_state is h11.IDLE:
                data = await asyncio.wait_for(self._reader.read(_READ_SIZE), KEEPALIVE_TIMEOUT)
            else:
                data = await self._reader.read(_READ_SIZE)
            self._h11.receive_data(data)

    async def _read_body(self) -> bytes | None:
        """The whole request body, or None when it is larger than ``MAX_BODY``."""
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await self._next_event()
            if isinstance(event, h11.EndOfMessage):
                return b"".join(chunks)
            if isinstance(event, h11.Data):
                size += len(event.data)
                if size > MAX_BODY:
                    return None
                chunks.append(event.data)

    async def _refuse(self, status: int) -> None:
        """Answer a request the server itself cannot take, then close."""
        if self._h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        headers = [(b"content-length", b"0"), (b"connection", b"close")]
        self._writer.write(self._h11.send(h11.Response(status_code=status, headers=headers)))
        self._writer.write(self._h11.send(h11.EndOfMessage()))
        await self._writer.drain()

    async def _answer(self, request: h11.Request, body: bytes) -> bool:
        """Run the app for one request; False when the connection must end."""
        exchange = _Exchange(body)
        target = request.target
        path, _, query = target.partition(b"?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": request.http_version.decode("ascii"),
            "method": request.method.decode("ascii"),
            "scheme": "http",
            "path": unquote(path.decode("ascii", "replace")),
            "raw_path": path,
            "query_string": query,
            "root_path": "",
            "headers": [(name.lower(), value) for name, value in request.headers],
            "client": self._client,
            "server": self._server,
            "extensions": {ABORT: {}},
        }
        try:
            await self._app(scope, exchange.receive, exchange.send)
        except Exception:
            _log.exception("sandbox app failed on %s %s", scope["method"], scope["path"])
            if exchange.state == "idle":
                exchange.answer(500, [(b"content-type", b"text/plain")], b"Internal Server Error")
        finally:
            exchange.finished.set()
        if exchange.state == "idle":
            _log.error("sandbox app sent no answer to %s %s", scope["method"], scope["path"])
            exchange.answer(500, [(b"content-type", b"text/plain")], b"Internal Server Error")
        if exchange.state != "done":
            self._writer.transport.abort()
            return False
        return await self._write(request.method, exchange)

    async def _write(self, method: bytes, exchange: _Exchange) -> bool:
        status, body = exchange.status, exchange.body
        headers = [(k, v) for k, v in exchange.headers if k.lower() not in _SKIPPED_HEADERS]
        headers.append((b"date", formatdate(usegmt=True).encode("ascii")))
        if status < 200:
            # HTTP/1.1 has no final 1xx answer: send the status line and headers, then close.
            head = b"HTTP/1.1 %d %s\r\n" % (status, reason_phrase(status))
            self._writer.write(head + b"".join(b"%s: %s\r\n" % h for h in headers) + b"\r\n")
            await self._writer.drain()
            return False
        no_body = method == b"HEAD" or status in (204, 304)
        if status != 204:
            headers.append((b"content-length", str(len(body)).encode("ascii")))
        data = self._h11.send(h11.Response(status_code=status, headers=headers, reason=reason_phrase(status)))
        if body and not no_body:
            data += self._h11.send(h11.Data(data=body))
        data += self._h11.send(h11.EndOfMessage())
        self._writer.write(data)
        await self._writer.drain()
        return self._h11.our_state is h11.DONE


class _Exchange:
    """The ASGI ``receive``/``send`` pair of one request, buffering the answer."""

    def __init__(self, body: bytes) -> None:
        self._request_body: bytes | None = body
        self.finished = asyncio.Event()
        self.state = "idle"  # idle → started → done, or idle → aborted
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self._chunks: list[bytes] = []

    @property
    def body(self) -> bytes:
        return b"".join(self._chunks)

    def answer(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        self.status, self.headers, self._chunks, self.state = status, headers, [body], "done"

    async def receive(self) -> dict:
        if self._request_body is not None:
            body, self._request_body = self._request_body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.finished.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        kind = message["type"]
        if kind == ABORT and self.state == "idle":
            self.state = "aborted"
        elif kind == "http.response.start" and self.state == "idle":
            status = message["status"]
            if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 999:
                raise ValueError(f"status must be an int in 100-999, got {status!r}")
            self.status = status
            self.headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
            self.state = "started"
        elif kind == "http.response.body" and self.state == "started":
            self._chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                self.state = "done"
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r} while the answer is {self.state}")


def _address(info: Any) -> tuple[str, int] | None:
    return (str(info[0]), int(info[1])) if isinstance(info, tuple) and len(info) >= 2 else None
