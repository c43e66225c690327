"""How much does the bench's calibrated capacity move from seed to seed, and would a closed loop move less?

`scaler.sim.calibrate.saturated_throughput` starts every sampled request at once and counts the
completions over their middle 60%; its sample is SAMPLE_SIZE requests drawn per seed. This probe
prints, per workload, that capacity over seeds (min-max and spread) at the bench's sample size and
at `--large`, beside a closed-loop one at both sizes: the replica kept full by replacing each
finished request with the next of the same sample (cycled), completions/s after the first
`--warm` (what the policy core learns as mu / N while a queue stands); and the mean output of the
bench's samples. Nothing in the bench reads the closed loop.

    python scripts/calibration_spread.py [--workload azure-code ...] [--trace FILE ...] [--seeds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.engine import EngineParams, Replica, Request  # noqa: E402
from scaler.sim import calibrate  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.workload import WORKLOADS, build  # noqa: E402
from scaler.workloads import load_trace  # noqa: E402

# The closed loop's defaults: a sample four times the bench's, completions counted after the first
# WARM (the batch turned over once).
LARGE, COMPLETIONS, WARM = 2400, 3000, 600


def closed_loop(params: EngineParams, sample: list[tuple[int, int]], completions: int = COMPLETIONS,
                warm: int = WARM) -> float:
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
    parser.add_argument("--large", type=int, default=LARGE, help=f"the larger sample size (default {LARGE})")
    parser.add_argument("--completions", type=int, default=COMPLETIONS)
    parser.add_argument("--warm", type=int, default=WARM)
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
    sizes = (calibrate.SAMPLE_SIZE, args.large)
    columns = [f"{method} (n={n})" for method in ("bench", "closed loop") for n in sizes]
    print(f"{'workload':18s} " + " ".join(f"{c:>24s}" for c in columns) + f" {'mean output (n=' + str(sizes[0]) + ')':>22s}")
    for name, load in sources:
        arrivals = load()
        samples = {n: [calibrate._sample(arrivals, s, n) for s in range(args.seeds)] for n in sizes}
        bench = [[calibrate.saturated_throughput(setup.params, sample) for sample in samples[n]] for n in sizes]
        loops = [[closed_loop(setup.params, sample, args.completions, args.warm) for sample in samples[n]] for n in sizes]
        outputs = [statistics.fmean(o for _, o in sample) for sample in samples[sizes[0]]]
        cells = " ".join(f"{spread(values):>24s}" for values in (*bench, *loops))
        print(f"{name:18s} {cells} {min(outputs):10.0f}-{max(outputs):<11.0f}", flush=True)


if __name__ == "__main__":
    main()
