"""The process's log: one rotating file per kind of process under <data dir>/logs/, on the
root logger (asyncio's and httpx's records land in it), the key-hash redacted from every
record, its traceback included."""

from __future__ import annotations

import asyncio
import gc
import logging

from pos_app import logs
from pos_app.api.secrets import RedactingFilter, Redactor
from pos_app.logs import ProcessKind, configure_logging
from tests.terminal.cli_runner import cli_env, run_cli

SECRET = "k3y-hash-never-in-a-log-0123"


def test_a_terminal_command_logs_httpx_requests_into_cli_log_without_the_key(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path)
    run = run_cli(env, "terminal", "list")
    assert run.code == 0, run.payload
    text = (tmp_path / "logs" / "cli.log").read_text(encoding="utf-8")
    assert "INFO httpx: HTTP Request: GET http://127.0.0.1:" in text  # a library's record, through the root
    assert sandbox.keys["B"] not in text
    assert sorted(path.name for path in (tmp_path / "logs").iterdir()) == ["cli.log"]


def test_an_asyncio_record_lands_in_the_apps_file_with_the_secret_out_of_its_traceback(tmp_path, root_logging):
    path = configure_logging(tmp_path, ProcessKind.APP, RedactingFilter(Redactor([SECRET])))
    logging.getLogger("pos_app.test").info("sent with %s", SECRET)

    async def refused() -> None:
        raise RuntimeError(f"the service echoed {SECRET}")

    async def forgotten_task() -> None:
        task = asyncio.ensure_future(refused())
        await asyncio.sleep(0)
        assert task.done()
        del task
        gc.collect()  # the task's exception was never retrieved: asyncio logs it

    asyncio.run(forgotten_task())
    text = path.read_text(encoding="utf-8")
    assert path == tmp_path / "logs" / "app.log"
    assert "ERROR asyncio: Task exception was never retrieved" in text
    assert "RuntimeError: the service echoed [redacted]" in text and "sent with [redacted]" in text
    assert SECRET not in text


def test_the_file_rotates_and_a_second_set_up_replaces_the_first(tmp_path, root_logging, monkeypatch):
    monkeypatch.setattr(logs, "MAX_BYTES", 2_000)
    path = configure_logging(tmp_path / "one", ProcessKind.CLI)
    for number in range(400):
        logging.getLogger("pos_app.test").info("record %d of a busy day", number)
    assert sorted(p.name for p in path.parent.iterdir()) == ["cli.log", *(f"cli.log.{n}" for n in range(1, 10))]
    assert "record 399 of a busy day" in path.read_text(encoding="utf-8")
    again = configure_logging(tmp_path / "two", ProcessKind.CLI, verbose=True)
    logging.getLogger("pos_app.test").debug("only in the second")
    assert "only in the second" in again.read_text() and "only in the second" not in path.read_text()
    assert sum(isinstance(h, logging.handlers.RotatingFileHandler) for h in root_logging.handlers) == 1
