#!/usr/bin/env python3
"""How faithfully the load generator keeps an open-loop schedule, and how fast it can go.

Starts one `slo-scaler emulate` process whose model takes no time (every step-time term 0),
then sends Poisson arrivals with `scaler.loadgen.loadtest.run_loadtest` at increasing rates:
small streamed requests (16-token prompt, 4 tokens out). For each rate it prints the achieved
send rate, how late requests left against their schedule (p50/p99/max; open loop means lateness
is the generator's own fault), errors and the client-side TTFT p50 (what emulator + client add).
The emulator shares the machine's cores with the generator, so the figures are lower bounds.

    python scripts/bench_loadgen.py [--seconds 5] [--rates 10 25 50 100 200]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path

import aiohttp
import numpy as np
from rich.console import Console
from rich.table import Table

from scaler.demo.processes import ProcessGroup, http_ok, python_command
from scaler.ports import free_port_range
from scaler.loadgen.client import OK
from scaler.loadgen.loadtest import LoadtestConfig, run_loadtest
from scaler.loadgen.retry import Backoff
from scaler.workloads import Arrival

ZERO_MODEL = ("--max-num-seqs", "1024", "--step-base-s", "0", "--prefill-s-per-token", "0",
              "--decode-s-per-seq", "0", "--kv-read-s-per-token", "0")


def arrivals(rate: float, seconds: float, seed: int) -> list[Arrival]:
    rng, t, out = random.Random(seed), 0.0, []
    while True:
        t += rng.expovariate(rate)
        if t >= seconds:
            return out
        out.append(Arrival(t, 16, 4))


async def bench(rates: list[float], seconds: float, console: Console) -> Table:
    table = Table(title=f"open-loop load generator, {seconds:g} s per rate, zero-time emulator")
    for name in ("rate asked", "sent/s", "late p50 ms", "late p99 ms", "late max ms", "errors", "TTFT p50 ms"):
        table.add_column(name, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        group = ProcessGroup(Path(tmp))
        port = free_port_range(2)
        try:
            async with aiohttp.ClientSession() as session:
                await group.start("emulator", python_command("emulate", "--port", str(port), "--replicas", "1",
                                                             "--max-replicas", "1", *ZERO_MODEL),
                                  lambda: http_ok(session, f"http://127.0.0.1:{port}/health"))
            for rate in rates:
                config = LoadtestConfig(url=f"http://127.0.0.1:{port + 1}", backoff=Backoff(max_retries=0),
                                        timeout_s=30.0)
                run = await run_loadtest(config, arrivals(rate, seconds, seed=int(rate)), console,
                                         description=f"{rate:g}/s")
                late = np.array([r.start - r.scheduled for r in run.results]) * 1000
                starts = [r.start for r in run.results]
                ttft = [r.ttft_s for r in run.results if r.outcome == OK]
                table.add_row(f"{rate:g}", f"{len(starts) / max(starts):.1f}", f"{np.percentile(late, 50):.1f}",
                              f"{np.percentile(late, 99):.1f}", f"{late.max():.1f}",
                              str(sum(r.outcome != OK for r in run.results)),
                              f"{np.median(ttft) * 1000:.1f}" if ttft else "-")
        finally:
            await group.stop_all()
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rates", type=float, nargs="+", default=[10, 25, 50, 100, 200])
    args = parser.parse_args()
    console = Console()
    console.print(asyncio.run(bench(args.rates, args.seconds, console)))


if __name__ == "__main__":
    main()
