"""How much does the bench's calibrated capacity move from seed to seed, and would a closed loop move less?

`scaler.sim.calibrate.saturated_throughput` starts every sampled request at once and counts the
completions over their middle 60%; its sample is SAMPLE_SIZE requests drawn per seed. This probe
prints, per workload, that capacity over seeds (min-max and spread) beside a closed-loop one: the
replica kept full by replacing each finished request with the next of the same sample (cycled),
completions/s after the first `--warm` (what the policy core learns as mu / N while a queue
stands), at the same sample size and at `--large`. Nothing in the bench reads the closed loop.

    python scripts/calibration_spread.py [--workload azure-code ...] [--trace FILE ...] [--seeds 5]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.engine import EngineParams, Replica, Request  # noqa: E402
from scaler.sim import calibrate  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.workload import WORKLOADS, build  # noqa: E402
from scaler.workloads import load_trace  # noqa: E402


def closed_loop(params: EngineParams, sample: list[tuple[int, int]], completions: int, warm: int) -> float:
    """Completions per second of one replica holding len(sample) requests, each finished one replaced."""
    replica, now, issued, done = Replica(params), 0.0, 0, []

    def issue() -> None:
        nonlocal issued
        prompt, output = calibrate._fits(params, *sample[issued % len(sample)])
        replica.add(Request(id=str(issued), prompt_tokens=prompt, max_tokens=output, arrival_time=now), now)
        issued += 1

    for _ in sample:
        issue()
    while len(done) < completions:
        outcome = replica.step(now)
        now = outcome.end
        for _ in outcome.finished:
            done.append(now)
            issue()
    return (len(done) - 1 - warm) / (done[-1] - done[warm])


def spread(values: list[float]) -> str:
    return f"{min(values):7.3f}-{max(values):7.3f} ({max(values) / min(values) - 1:4.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--trace", action="append", type=Path, default=[])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--large", type=int, default=2400, help="the larger sample size (default 2400)")
    parser.add_argument("--completions", type=int, default=3000)
    parser.add_argument("--warm", type=int, default=600)
    args = parser.parse_args()
    for path in args.trace:
        if not path.is_file():
            parser.error(f"--trace {path}: no such file")
    if args.warm >= args.completions - 1:
        parser.error(f"--warm: expected fewer than --completions - 1 ({args.completions - 1}), got {args.warm}")
    setup = Setup()
    sources = [(name, lambda name=name: list(build(name, setup, 0).arrivals))
               for name in args.workload or ([] if args.trace else list(WORKLOADS))]
    sources += [(path.stem, lambda path=path: load_trace(path)) for path in args.trace]
    small = calibrate.SAMPLE_SIZE
    print(f"{'workload':18s} {'bench (n=' + str(small) + ')':>24s} {'closed loop (n=' + str(small) + ')':>24s} "
          f"{'closed loop (n=' + str(args.large) + ')':>24s}")
    for name, load in sources:
        arrivals = load()
        seeds = range(args.seeds)
        bench = [calibrate.capacity_rps(setup.params, arrivals, s) for s in seeds]
        loops = {}
        for n in (small, args.large):
            loops[n] = [closed_loop(setup.params, _sample(arrivals, s, n), args.completions, args.warm) for s in seeds]
        print(f"{name:18s} {spread(bench):>24s} {spread(loops[small]):>24s} {spread(loops[args.large]):>24s}", flush=True)


def _sample(arrivals, seed: int, size: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    chosen = rng.sample(arrivals, size) if len(arrivals) > size else arrivals
    return [(a.prompt_tokens, a.max_tokens) for a in chosen]


if __name__ == "__main__":
    main()
