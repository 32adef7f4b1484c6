"""Child process of the kill -9 tests of the till: the app's station and counter on the
sandbox, a cart paid in part (a card part, then cash), each step said on stdout; it then
waits to be killed (SIGKILL: no close, no finally, no Python shutdown).

``python -m tests.station.till_worker BASE_URL KEY DATA_DIR`` (a type B terminal,
``tb-2001``); it says ``cart ORDER_KEY TOTAL``, ``card CENTS``, ``cash CENTS``, ``ready``,
each next step only once the parent sends a line (``killing.run_until_killed(paced=True)``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from pos_app.config import StoreConfig
from pos_app.station import Station
from tests.counters import cart_over, counter_for


async def main(base_url: str, key: str, data_dir: str) -> None:
    config = StoreConfig(base_url=base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                         poll_wait_limit=20.0, data_dir=Path(data_dir))
    station = await Station.open(config, key, training=True)
    counter = await counter_for(station)
    total = await cart_over(counter, 1000)
    print("cart", counter.cart.order_key, total, flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    card = await counter.pay(amount=400)
    print("card", card.charged, flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    taken = await counter.pay_cash(300)
    print("cash", taken.entry.amount, flush=True)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.read)  # blocks until the parent kills this process


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
