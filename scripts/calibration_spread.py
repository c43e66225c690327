"""How much does the bench's calibrated capacity move from seed to seed, and with the sample size?

`scaler.sim.calibrate.saturated_throughput` keeps one replica's waiting queue full with random
draws from a sample of the workload's requests and counts the steady completions; the sample is
SAMPLE_SIZE requests drawn per seed. This probe prints, per workload, that capacity over seeds
(min-max and spread) at the bench's sample size and at `--small`, the samples' mean output, and
the seconds one calibration takes.

    python scripts/calibration_spread.py [--workload azure-code ...] [--trace FILE ...] [--seeds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.sim import calibrate  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.workload import WORKLOADS, build  # noqa: E402
from scaler.workloads import load_trace  # noqa: E402

# The sample the bench drew before SAMPLE_SIZE was raised.
SMALL = 600


def spread(values: list[float]) -> str:
    return f"{min(values):7.3f}-{max(values):7.3f} ({max(values) / min(values) - 1:4.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--trace", action="append", type=Path, default=[])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--small", type=int, default=SMALL, help=f"the smaller sample size (default {SMALL})")
    args = parser.parse_args()
    for path in args.trace:
        if not path.is_file():
            parser.error(f"--trace {path}: no such file")
    if args.seeds < 1 or args.small < 1:
        parser.error("--seeds, --small: expected positive integers")
    setup = Setup()
    sources = [(name, lambda name=name: list(build(name, setup, 0).arrivals))
               for name in args.workload or ([] if args.trace else list(WORKLOADS))]
    sources += [(path.stem, lambda path=path: load_trace(path)) for path in args.trace]
    sizes = (calibrate.SAMPLE_SIZE, args.small)
    print(f"{'workload':18s} " + " ".join(f"{f'capacity (n={n})':>24s}" for n in sizes)
          + f" {f'mean output (n={sizes[0]})':>24s} {'s per calibration':>18s}")
    for name, load in sources:
        arrivals = load()
        cells, began = [], time.perf_counter()
        for n in sizes:
            samples = [calibrate._sample(arrivals, seed, n) for seed in range(args.seeds)]
            cells.append(spread([calibrate.saturated_throughput(setup.params, sample, seed)
                                 for seed, sample in enumerate(samples)]))
            if n == sizes[0]:
                outputs = [statistics.fmean(o for _, o in sample) for sample in samples]
                seconds = (time.perf_counter() - began) / args.seeds
        print(f"{name:18s} " + " ".join(f"{c:>24s}" for c in cells)
              + f" {min(outputs):11.0f}-{max(outputs):<12.0f} {seconds:18.1f}", flush=True)


if __name__ == "__main__":
    main()
