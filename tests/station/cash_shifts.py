"""A station's drawer shift with every kind of cash movement, for the X/Z tests."""

from __future__ import annotations

from pos_app.config import StoreConfig
from pos_app.journal import CashKind
from pos_app.station import Station

TERMINAL = "tb-2001"


def config_for(sandbox, tmp_path, **settings) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-7",
                       terminal_id=TERMINAL, poll_wait_limit=20.0, data_dir=tmp_path / "data", **settings)


def close_requests(sandbox) -> int:
    return sandbox.stats()["requests"].get("B", {}).get("terminal.close_batch", 0)


async def every_movement(station: Station) -> None:
    """A cash sale with change, cash in, cash out, cash given back, a no sale."""
    await station.journal.record_order("o-cash", subtotal=1553, tax=0, taxes={})
    sale = await station.take_cash("o-cash", 2000, cashier="Ann")
    assert (sale.amount, sale.change) == (1553, 447)
    await station.move_cash(CashKind.CASH_IN, 500, reason="coins from the bank", by="Mo")
    await station.move_cash(CashKind.CASH_OUT, 300, reason="to the safe", by="Mo")
    await station.move_cash(CashKind.RETURN, 553, reason="goods returned", by="Mo", order_key="o-cash")
    await station.move_cash(CashKind.NO_SALE, 0, reason="change for a note", by="Mo")
