"""Drive a service with requests: open loop (a schedule of arrivals) or closed loop (fixed concurrency).

Open loop is what production traffic does: requests arrive on their own schedule whether or not
the service keeps up, so queues and refusals show. Closed loop keeps exactly N requests in
flight, which is how calibration finds the concurrency one replica sustains.

Time runs on the emulator's `ModelClock`: with speed F one wall second counts as F seconds, so a
load test against an emulator started with `--speed F` reports latencies in the emulator's model
seconds and sends a 10-minute trace in 10/F minutes.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable, Sequence

import aiohttp

from scaler.emulator.clock import ModelClock
from scaler.loadgen.client import Client, Result


def new_session(timeout_s: float) -> aiohttp.ClientSession:
    # No connection limit: an open-loop generator must not queue on the client side.
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout_s))


async def discover_model(session: aiohttp.ClientSession, models_url: str) -> str:
    """The first model the server lists at /v1/models (vLLM's served model name)."""
    async with session.get(models_url) as resp:
        if resp.status != 200:
            raise ValueError(f"model: GET {models_url} answered HTTP {resp.status}; pass --model")
        listing = await resp.json()
    data = listing.get("data") or []
    if not data or not isinstance(data[0].get("id"), str):
        raise ValueError(f"model: {models_url} lists no model; pass --model")
    return data[0]["id"]


def _result(index: int, arrival) -> Result:
    return Result(
        id=f"r{index}",
        request_class=arrival.request_class,
        tenant=arrival.tenant,
        prompt_tokens=arrival.prompt_tokens,
        max_tokens=arrival.max_tokens,
        scheduled=arrival.time,
    )


async def open_loop(
    client: Client,
    arrivals: Iterable,
    clock: ModelClock,
    on_done: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Send each arrival at its `time` (seconds from now on `clock`), never waiting for answers."""
    client.t0 = clock.now()
    tasks: list[asyncio.Task] = []

    async def one(result: Result) -> Result:
        await client.send(result)
        if on_done:
            on_done(result)
        return result

    for index, arrival in enumerate(arrivals):
        await clock.sleep_until(client.t0 + arrival.time)
        tasks.append(asyncio.create_task(one(_result(index, arrival))))
    return list(await asyncio.gather(*tasks))


async def closed_loop(
    client: Client,
    concurrency: int,
    requests: Sequence,
    clock: ModelClock,
    on_done: Callable[[Result], None] | None = None,
    stagger_s: float = 0.0,
    rng: random.Random | None = None,
) -> list[Result]:
    """Keep `concurrency` requests in flight until every one of `requests` has been sent.

    Each worker first waits a uniform draw in [0, stagger_s): requests that all start together
    also finish together and keep arriving in waves, which is not the steady state we measure.
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency: expected an integer >= 1, got {concurrency!r}")
    rng = rng or random.Random(0)
    client.t0 = clock.now()
    queue = list(enumerate(requests))
    queue.reverse()
    results: list[Result] = []

    async def worker(delay: float) -> None:
        await clock.sleep_until(client.t0 + delay)
        while queue:
            index, planned = queue.pop()
            result = _result(index, planned)
            result.scheduled = clock.now() - client.t0
            await client.send(result)
            results.append(result)
            if on_done:
                on_done(result)

    await asyncio.gather(*(worker(rng.uniform(0.0, stagger_s)) for _ in range(concurrency)))
    return sorted(results, key=lambda r: r.start)
