"""One failure path for the app: an error nobody expected, wherever it happens (a Qt slot,
an async slot's task, a callback of the event loop, a worker thread), is logged with its
traceback and told to the cashier as one sentence on the status line; the app goes on.

Money is never at stake here: every payment is journaled before it leaves and its outcome
is kept (``pos_app.terminal.recorder``), so the sentence says where to look, not that
something was lost. ``install`` replaces ``sys.excepthook`` (qasync's async slots report
their errors there), ``threading.excepthook`` and the event loop's exception handler.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

from pos_app.i18n import _

log = logging.getLogger("pos_app.unexpected")

Tell = Callable[[str], None]


def sentence(error: BaseException) -> str:
    """What the cashier reads about an unexpected error."""
    return _("Something went wrong inside the app ({error}); it was written to the log. Payments are recorded "
             "before they are sent: if one was under way, check it in the back office (F9).").format(
        error=type(error).__name__)


def report(error: BaseException, tell: Tell, *, where: str) -> None:
    """Log ``error`` with its traceback and tell the cashier; never raises."""
    log.error("unexpected error in %s", where, exc_info=(type(error), error, error.__traceback__))
    try:
        tell(sentence(error))
    except Exception:  # noqa: BLE001 - the status line itself failed: the log has it
        log.exception("the unexpected error could not be shown")


def install(tell: Tell, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Route every unexpected error to ``report``; returns the function that puts the
    previous hooks back (the app calls it as it ends)."""
    previous = sys.excepthook, threading.excepthook, loop.get_exception_handler()

    def on_exception(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if isinstance(error, KeyboardInterrupt):
            previous[0](kind, error, trace)
            return
        report(error.with_traceback(trace), tell, where="the window")  # not for people

    def on_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            name = args.thread.name if args.thread is not None else "?"
            log.error("unexpected error in thread %s", name,
                      exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
            loop.call_soon_threadsafe(tell, sentence(args.exc_value))

    def on_loop(event_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, BaseException):
            report(error, tell, where=str(context.get("message") or "the event loop"))  # not for people
        else:
            log.error("event loop: %s", context.get("message"))

    sys.excepthook = on_exception
    threading.excepthook = on_thread
    loop.set_exception_handler(on_loop)

    def restore() -> None:
        sys.excepthook, threading.excepthook = previous[0], previous[1]
        loop.set_exception_handler(previous[2])

    return restore
