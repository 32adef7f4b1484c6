"""Showing a dialog from a coroutine without a nested event loop.

``QDialog.exec()`` inside an asyncio task would run a second Qt loop under qasync's and
re-enter tasks; ``shown`` opens the dialog window-modal and awaits its ``finished``."""

from __future__ import annotations

import asyncio

from pos_app.ui.qt import QDialog


async def shown(dialog: QDialog) -> int:
    """Open ``dialog`` and wait for it to close; returns its result code."""
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def done(code: int) -> None:
        if not finished.done():
            finished.set_result(code)

    dialog.finished.connect(done)
    dialog.open()
    return await finished
