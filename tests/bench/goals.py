"""Issue 21's goals, read from one ``make bench`` run: each goal's value, limit and whether
it is met, for ``build/bench.json``. A goal whose benchmark did not measure it (no bundle
built, a bench that failed) has ``value`` null and is not met."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Results = Mapping[str, Any]


@dataclass(frozen=True)
class Goal:
    name: str
    limit: float
    read: Callable[[Results], float | None]
    minimum: bool = False
    """True when ``limit`` is a floor (``chaos_sales``), not a ceiling."""

    def judged(self, results: Results) -> dict[str, Any]:
        try:
            value = self.read(results)
        except (KeyError, TypeError, ValueError):
            value = None
        met = value is not None and (value >= self.limit if self.minimum else value <= self.limit)
        return {"value": value, "limit": self.limit, "met": met}


def _cashier_wait(results: Results) -> float:
    return float(results["startup"]["cashier_wait_over_bare"])


def _qt_stall(results: Results) -> float:
    return float(results["catalog"]["sync"]["client_sync_100k_in_process"]["event_loop_worst_lag_ms"])


def _bundle(results: Results) -> float | None:
    value = results["bundle"]["sizes_mb"]["unpacked_mb"]
    return None if value is None else float(value)


GOALS = (
    Goal("cashier_wait_over_bare", 1.3, _cashier_wait),
    Goal("qt_stall_ms", 50.0, _qt_stall),
    Goal("back_office_10k_cold_ms", 200.0, lambda r: float(r["history"]["open_first_page_ms"])),
    Goal("four_lanes_result_p95_s", 1.5, lambda r: float(r["polling"]["four_lanes"]["p95_s"])),
    Goal("cash_to_receipt_p95_ms", 300.0, lambda r: round(float(r["cash"]["f8_to_receipt_p95_s"]) * 1000, 1)),
    Goal("bundle_unpacked_mb", 120.0, _bundle),
    Goal("chaos_sales", 1000, lambda r: float(r["chaos"]["sales"]), minimum=True),
    Goal("chaos_problems", 0, lambda r: float(len(r["chaos"]["problems"]))),
)


def goals(results: Results) -> dict[str, dict[str, Any]]:
    """``{name: {"value", "limit", "met"}}`` for every goal of issue 21."""
    return {goal.name: goal.judged(results) for goal in GOALS}
