"""SandboxServer's life cycle, the loopback guard, and the ``sandbox serve`` command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import httpx
import pytest

from pos_app.api.address import is_loopback
from pos_app.cli import main
from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.sandbox.helpers import B_TERMINAL, body, call, pay


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_non_loopback_hosts_are_refused(host):
    with pytest.raises(ValueError, match="loopback"):
        SandboxServer(SandboxConfig(host=host))
    SandboxServer(SandboxConfig(host=host, allow_remote=True))  # allowed when asked for; not started


def test_loopback_hosts():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0")


def test_keys_must_differ():
    with pytest.raises(ValueError):
        SandboxServer(SandboxConfig(key_s="same", key_b="same"))


def test_start_stop_and_restart():
    server = SandboxServer(SandboxConfig(key_s="ks", key_b="kb"))
    assert server.keys == {"S": "ks", "B": "kb"}
    url = server.start()
    assert url == server.base_url and url.startswith("http://127.0.0.1:")
    with pytest.raises(RuntimeError):
        server.start()
    assert httpx.get(url + "/public/tax", headers={"key-hash": "kb"}).status_code == 200
    server.stop()
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/public/tax", headers={"key-hash": "kb"})
    server.start()
    server.stop()


def test_port_in_use_fails_start(sandbox):
    port = int(sandbox.base_url.rsplit(":", 1)[1])
    with pytest.raises(OSError):
        SandboxServer(SandboxConfig(port=port)).start()


def test_stats_from_another_thread_while_serving(b_client, sandbox):
    errors: list[BaseException] = []

    def read_stats() -> None:
        try:
            for _ in range(100):
                sandbox.stats()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=read_stats)
    reader.start()
    for _ in range(30):
        assert pay(b_client, B_TERMINAL, 1000).status_code == 201
    reader.join()
    assert not errors and len(sandbox.stats()["payments"]) == 30


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "--allow-remote"),
        (["--fault", "bogus=1"], "unknown fault knob"),
        (["--fault", "drop_next=x"], "must be a number"),
        (["--fault", "drop_next"], "NAME=VALUE"),
        (["--fault", "settle_hour=24"], "at most 23"),
        (["--s-delay", "3", "1"], "s_delay_min"),
    ],
)
def test_serve_refuses_bad_options(capsys, args, message):
    assert main(["sandbox", "serve", *args]) == 1
    assert message in capsys.readouterr().err


def test_serve_prints_url_and_keys_and_stops_on_ctrl_c(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "POS_DATA_DIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "pos_app", "sandbox", "serve", "--key-s", "cli-s", "--fault", "latency_ms=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = process.stdout.readline()
        base_url = first.split()[-1]
        assert base_url.startswith("http://127.0.0.1:")
        keys = process.stdout.readline() + process.stdout.readline()
        assert "cli-s" in keys and "sandbox-key-type-b" in keys
        with httpx.Client(base_url=base_url, headers={"key-hash": "cli-s"}) as client:
            assert len(body(call(client, "tax.list"))) == 3
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "Traceback" not in err and "stopped" in out
    assert (tmp_path / "logs" / "sandbox.log").is_file()  # its own kind's log, under the data folder
