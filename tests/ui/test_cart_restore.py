"""The sale in progress survives a crash: a process that added items and was killed
leaves its cart, and the next start shows the same cart (same order key)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

from tests.waiting import wait_until

WORKER = textwrap.dedent("""
    import asyncio, json, sys
    from pathlib import Path
    from pos_app.config import StoreConfig
    from pos_app.station.counter import Counter
    from pos_app.station.station import Station

    async def main():
        config = StoreConfig(base_url=sys.argv[1], data_dir=Path(sys.argv[3]), terminal_id="ts-1001")
        station = await Station.open(config, sys.argv[2], training=True)
        counter = await Counter.open(config, station.events, training=True)
        counter.attach(station)
        await counter.sync_catalog()
        for item in (await counter.search("apples"))[:2]:
            await counter.add(item)
        print(json.dumps({"order_key": counter.cart.order_key, "units": counter.cart.units}), flush=True)
        await asyncio.Event().wait()  # the cashier is still ringing up when the power goes

    asyncio.run(main())
""")


def test_a_cart_is_restored_after_the_app_is_killed(qtbot, run, open_app, ui_config, sandbox):
    process = subprocess.Popen([sys.executable, "-c", WORKER, sandbox.base_url, sandbox.keys["S"],
                                str(ui_config.data_dir)], stdout=subprocess.PIPE, text=True)
    try:
        line = wait_until(process.stdout.readline, timeout=30, what="the cart saved")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    saved = json.loads(line)
    app = open_app(ui_config, "S", sync=False)
    assert app.counter.cart.order_key == saved["order_key"] and app.counter.cart.units == saved["units"] == 2
    from tests.ui.helpers import sign_in

    sign_in(qtbot, app.window)
    assert app.window.sale.cart_model.rowCount() == 2
