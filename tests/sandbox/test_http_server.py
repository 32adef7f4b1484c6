"""The asyncio + h11 server: any status, keep-alive, bodies, the abort extension."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
import pytest_asyncio

from pos_app.sandbox.http_server import ABORT, MAX_BODY, HttpServer, reason_phrase


async def app(scope, receive, send):
    """/status/N answers N; /echo echoes the body; /client names the client port;
    /abort drops the connection; /boom raises; /silent answers nothing."""
    message = await receive()
    path = scope["path"]
    if path == "/abort":
        await send({"type": ABORT})
        return
    if path == "/boom":
        raise RuntimeError("boom")
    if path == "/silent":
        return
    if path.startswith("/status/"):
        status, payload = int(path.rsplit("/", 1)[1]), b'{"statusCode": %s}' % path.rsplit("/", 1)[1].encode()
    elif path == "/echo":
        status, payload = 200, message["body"]
    elif path == "/client":
        status, payload = 200, str(scope["client"][1]).encode()
    else:
        status, payload = 404, b"no"
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": payload[:3], "more_body": True})
    await send({"type": "http.response.body", "body": payload[3:]})


@pytest_asyncio.fixture
async def server():
    http_server = HttpServer(app, "127.0.0.1", 0)
    await http_server.start()
    yield http_server
    await http_server.close()


@pytest_asyncio.fixture
async def client(server):
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=5) as http_client:
        yield http_client


async def raw_exchange(port: int, data: bytes) -> bytes:
    """Send raw bytes, read until the server closes (or 2 s pass)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    chunks = []
    try:
        while chunk := await asyncio.wait_for(reader.read(65536), 2):
            chunks.append(chunk)
    except TimeoutError:
        pass
    writer.close()
    return b"".join(chunks)


def test_reason_phrases():
    assert reason_phrase(200) == b"OK"
    assert reason_phrase(904) == b"Charge Request Error"
    assert reason_phrase(901) == b"Charge Request Error"
    assert reason_phrase(999) == b"Unknown"
    assert reason_phrase(429) == b"Too Many Requests"


@pytest.mark.asyncio
async def test_statuses_outside_the_standard_range_arrive_with_their_body(client):
    response = await client.get("/status/904")
    assert response.status_code == 904
    assert response.reason_phrase == "Charge Request Error"
    assert response.json() == {"statusCode": 904}
    response = await client.get("/status/999")
    assert (response.status_code, response.reason_phrase) == (999, "Unknown")
    assert (await client.get("/status/201")).status_code == 201


@pytest.mark.asyncio
async def test_keep_alive_reuses_one_connection(client):
    ports = {(await client.get("/client")).text for _ in range(5)}
    assert len(ports) == 1


@pytest.mark.asyncio
async def test_pipelined_requests_on_one_socket_are_answered_in_order(server):
    request = b"GET /status/%d HTTP/1.1\r\nHost: x\r\n\r\n"
    last = b"GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    data = await raw_exchange(server.port, request % 201 + request % 904 + last)
    assert data.count(b"HTTP/1.1 ") == 3
    assert data.index(b"HTTP/1.1 201 Created") < data.index(b"HTTP/1.1 904 Charge Request Error")
    assert b"content-length: 19" in data.lower()


@pytest.mark.asyncio
async def test_request_body_is_passed_to_the_app(client):
    payload = b"x" * 200_000
    response = await client.post("/echo", content=payload)
    assert response.content == payload
    assert response.headers["content-length"] == str(len(payload))


@pytest.mark.asyncio
async def test_too_large_body_is_refused(server):
    head = b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (MAX_BODY + 1)
    data = await raw_exchange(server.port, head + b"x" * (MAX_BODY + 1))
    assert data.startswith(b"HTTP/1.1 413 ")


@pytest.mark.asyncio
async def test_abort_drops_the_connection_without_an_answer(client):
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        await client.get("/abort")
    assert (await client.get("/status/200")).status_code == 200


@pytest.mark.asyncio
async def test_app_failures_answer_500_and_the_server_goes_on(client, caplog):
    assert (await client.get("/boom")).status_code == 500
    assert (await client.get("/silent")).status_code == 500
    assert (await client.get("/status/200")).status_code == 200


@pytest.mark.asyncio
async def test_head_has_length_but_no_body(server):
    data = await raw_exchange(server.port, b"HEAD /status/200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, rest = data.partition(b"\r\n\r\n")
    assert b"content-length: 19" in head.lower()
    assert rest == b""


@pytest.mark.asyncio
async def test_informational_status_is_sent_then_the_connection_closes(server):
    data = await raw_exchange(server.port, b"GET /status/150 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 150 Unknown\r\n")


@pytest.mark.asyncio
async def test_malformed_request_gets_400(server):
    data = await raw_exchange(server.port, b"NOT HTTP\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 400 ")


@pytest.mark.asyncio
@pytest.mark.alone  # it bounds the close's time
async def test_close_ends_idle_keep_alive_connections_promptly():
    http_server = HttpServer(app, "127.0.0.1", 0)
    await http_server.start()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_server.port}") as http_client:
        assert (await http_client.get("/status/200")).status_code == 200
        started = time.monotonic()
        await http_server.close()
        assert time.monotonic() - started < 1
        with pytest.raises(httpx.TransportError):
            await http_client.get("/status/200")
