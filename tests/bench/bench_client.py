"""Client overhead per call vs a bare httpx GET to the same sandbox, and sandbox GET throughput.

Targets (issue 2): client/bare ratio <= 1.3; sandbox >= 500 GET/s on loopback, 2 cores.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import httpx

from pos_app.api.client import PaymentsClient
from tests.bench.sandbox_process import sandbox_process

KEY = "sandbox-key-type-b"
CALLS = 300
ROUNDS = 5


async def _per_call(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        await fn()
    return (time.perf_counter() - start) / calls


async def overhead(base_url: str) -> dict:
    bare = httpx.AsyncClient(base_url=base_url, headers={"key-hash": KEY})
    client = PaymentsClient(base_url, KEY)

    async def bare_get():
        response = await bare.get("/public/terminal")
        response.raise_for_status()
        response.json()

    async def client_get():
        await client.list_terminals()

    await _per_call(bare_get, 50)
    await _per_call(client_get, 50)
    ratios, bare_times, client_times = [], [], []
    for _ in range(ROUNDS):  # interleaved rounds: drift hits both sides alike
        b = await _per_call(bare_get, CALLS)
        c = await _per_call(client_get, CALLS)
        bare_times.append(b)
        client_times.append(c)
        ratios.append(c / b)
    await bare.aclose()
    await client.aclose()
    return {
        "bare_ms_per_call": round(statistics.median(bare_times) * 1000, 3),
        "client_ms_per_call": round(statistics.median(client_times) * 1000, 3),
        "client_over_bare_ratio": round(statistics.median(ratios), 3),
        "target_ratio_max": 1.3,
    }


async def throughput(base_url: str, seconds: float = 3.0, connections: int = 8) -> dict:
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker():
        nonlocal done
        async with httpx.AsyncClient(base_url=base_url, headers={"key-hash": KEY}) as http:
            while time.perf_counter() < deadline:
                (await http.get("/public/tax")).raise_for_status()
                done += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.perf_counter() - start
    return {"sandbox_get_per_s": round(done / elapsed), "connections": connections, "target_min": 500}


def main() -> dict:
    with sandbox_process() as base_url:
        result = asyncio.run(overhead(base_url))
        result.update(asyncio.run(throughput(base_url)))
    print("client:", result)
    return result


if __name__ == "__main__":
    main()
