#!/usr/bin/env python3
"""Write traces the policy was never designed on, for `slo-scaler bench --trace FILE --sweep`.

Each is a seeded, non-homogeneous Poisson process written in the Azure trace format
(`TIMESTAMP,ContextTokens,GeneratedTokens`), with lognormal lengths unlike the built-in
workloads' (prompts around 1,500 tokens, outputs around 250):

- `recurring-bursts.csv`: 20 minutes at 10 requests/s with a 30 s burst to 45 requests/s every
  4 minutes (the fleet that never releases is hard to beat there);
- `ramp-and-spikes.csv`: 30 minutes whose rate climbs from 3 to 30 requests/s and back (half a
  sine), with a 10 s spike to twice the current rate every 3 minutes at a random offset;
- `steps.csv`: 30 minutes at 8 requests/s that steps to 25 for 8 minutes (from minute 6) and to 40
  for 5 (from minute 20): rises that last, which a policy sizing on short bursts meets late.

    python scripts/unseen_traces.py --out DIR [--seed N]
    slo-scaler bench --trace DIR/recurring-bursts.csv --sweep --seeds 3
"""

from __future__ import annotations

import argparse
import math
import random
from datetime import datetime, timedelta
from pathlib import Path

START = datetime(2024, 5, 13, 9, 0, 0)


def recurring_bursts(t: float) -> float:
    return 45.0 if t % 240.0 >= 210.0 else 10.0


def steps(t: float) -> float:
    if 360.0 <= t < 840.0:
        return 25.0
    return 40.0 if 1200.0 <= t < 1500.0 else 8.0


def ramp_and_spikes(offsets: list[float]):
    def rate(t: float) -> float:
        base = 3.0 + 27.0 * math.sin(math.pi * t / 1800.0)
        spike = any(o <= t < o + 10.0 for o in offsets)
        return base * (2.0 if spike else 1.0)
    return rate


def write(path: Path, rate, seconds: float, rng: random.Random, peak: float) -> int:
    """Thinning: candidates at the peak rate, each kept with probability rate(t) / peak."""
    lines, t = ["TIMESTAMP,ContextTokens,GeneratedTokens"], 0.0
    while True:
        t += rng.expovariate(peak)
        if t >= seconds:
            break
        if rng.random() * peak > rate(t):
            continue
        prompt = min(7000, max(16, int(rng.lognormvariate(math.log(1500), 0.8))))
        output = min(1000, max(2, int(rng.lognormvariate(math.log(250), 0.7))))
        stamp = (START + timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S.%f")
        lines.append(f"{stamp},{prompt},{output}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)  # no half-written trace
    return len(lines) - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    offsets = [k * 180.0 + rng.uniform(0, 170) for k in range(10)]
    for name, rate, seconds, peak in (("recurring-bursts", recurring_bursts, 1200.0, 45.0),
                                      ("ramp-and-spikes", ramp_and_spikes(offsets), 1800.0, 60.0),
                                      ("steps", steps, 1800.0, 40.0)):
        n = write(args.out / f"{name}.csv", rate, seconds, rng, peak)
        print(f"{args.out / name}.csv: {n} requests over {seconds / 60:.0f} minutes")


if __name__ == "__main__":
    main()
