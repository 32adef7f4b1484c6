"""Child process of the kill -9 test of parked orders: the app's station and counter on the
sandbox with the link watcher, a cart parked on a payment link, said on stdout; it then
waits to be killed (SIGKILL: no close, no finally, no Python shutdown).

``python -m tests.station.parked_worker BASE_URL KEY DATA_DIR``; it says
``parked ORDER_KEY LINK_ID TOTAL``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace

from tests.counters import cart_over
from tests.parking import PHONE, lane


async def main(base_url: str, key: str, data_dir: str) -> None:
    sandbox = SimpleNamespace(base_url=base_url, keys={"B": key})  # what ``lane`` reads of the sandbox fixture
    async with lane(sandbox, Path(data_dir), every=0.2) as it:
        total = await cart_over(it.counter, 1000)
        parking = await it.parked.park(PHONE)
        print("parked", parking.order_key, parking.link_id, total, flush=True)
        await asyncio.to_thread(sys.stdin.read)  # blocks until the parent kills this process


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
