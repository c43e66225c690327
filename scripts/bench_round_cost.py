#!/usr/bin/env python3
"""CPU of one poll round's policy work as each model's history fills (in-process, no I/O).

A real ModelRegistry with N models is fed one observation per model per simulated second (the
registry's clock is simulated, so 400 s take a few seconds) and 500 RLS arrivals a second spread
over the models; the time of the 300 `ModelEntry.apply` calls (window push, arrival check,
decide) is printed at several ages. A poll round does this work on serve's loop, between KEDA's
calls: a round that costs more stretches the GetMetrics tail (docs/shedding.md, "Tails under load").

    python scripts/bench_round_cost.py                  # 300 models, 400 s of history, bench_tails' inputs
    python scripts/bench_round_cost.py --inputs draining --models 100 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.server.registry import ModelRegistry  # noqa: E402
from scaler.sources.base import Observation  # noqa: E402

AGES_S = (5, 30, 60, 120, 180, 240, 399)
ROUNDS_PER_LINE = 5
INPUTS = ("stalled", "draining")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=300)
    parser.add_argument("--rls-rps", type=float, default=500.0)
    parser.add_argument("--inputs", choices=INPUTS, default="stalled",
                        help="stalled: bench_tails.py's exporter page (completions never move, so models with a "
                             "queue are stalled and RED, as in the soak); draining: completions at 2/s (default stalled)")
    parser.add_argument("--profile", action="store_true", help="then profile 5 rounds at the last age")
    args = parser.parse_args()
    logging.getLogger("scaler.server").setLevel(logging.ERROR)  # the arrival checks' warnings, 300 of them

    now = [1000.0]
    registry = ModelRegistry(clock=lambda: now[0])
    entries = [registry.ensure({"model": f"bench-{i:03d}", "ttftSloSeconds": "2", "perReplicaCapacity": "4",
                                "source": "prometheus", "prometheusAddress": "http://127.0.0.1:9"}, "bench")
               for i in range(args.models)]
    per_tick = max(1, len(entries) // 10)

    def second(age: int) -> float:
        for tick in range(10):  # arrivals reach serve in batches, as from the RLS process
            now[0] += 0.1
            for entry in entries[tick * per_tick:(tick + 1) * per_tick]:
                entry.record_arrivals(args.rls_rps / len(entries), admitted=True, at=now[0])
        started = time.perf_counter()
        for i, entry in enumerate(entries):
            entry.apply(Observation(time=now[0] - 0.5, waiting=i % 7, running=i % 5, ready_replicas=1,
                                    completed_total=100.0 + (i if args.inputs == "stalled" else 2.0 * age)),
                        None, now[0], 0.01)
        return time.perf_counter() - started

    print(f"{len(entries)} models, one observation each per second ({args.inputs}), {args.rls_rps:g} RLS arrivals/s; "
          f"each line: the median and the least of the last {ROUNDS_PER_LINE} rounds (a shared machine adds to "
          "some) and this process's RSS (the histories' growth)")
    costs = []
    for age in range(AGES_S[-1] + 1):
        costs.append(second(age))
        if age in AGES_S:
            recent = costs[-ROUNDS_PER_LINE:]
            median = statistics.median(recent)
            print(f"history {age:3d} s: a round's policy work {1000 * median:5.1f} ms (least {1000 * min(recent):5.1f}; "
                  f"{1e6 * median / len(entries):.0f} us a model); RSS {rss_mb():.1f} MB", flush=True)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for age in range(AGES_S[-1] + 1, AGES_S[-1] + 6):
            second(age)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
