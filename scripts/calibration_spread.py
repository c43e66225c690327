"""How much does the bench's calibrated capacity move from seed to seed, and with the sample size?

`scaler.sim.calibrate.saturated_throughput` keeps one replica's waiting queue full with random
draws from a sample of the workload's requests and counts the steady completions; the sample is
SAMPLE_SIZE requests drawn per seed. This probe prints, per workload, that capacity over seeds
(min-max and spread) at the bench's sample size and at `--small`, the samples' mean output, the
seconds one calibration takes, and how far the first seed's figure is from one counted over
`--long` completions (does MEASURED_COMPLETIONS converge?).

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

# The sample the bench drew before SAMPLE_SIZE was raised; a run long enough to converge.
SMALL, LONG = 600, 12_000


def spread(values: list[float]) -> str:
    return f"{min(values):7.3f}-{max(values):7.3f} ({max(values) / min(values) - 1:4.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--trace", action="append", type=Path, default=[])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--small", type=int, default=SMALL, help=f"the smaller sample size (default {SMALL})")
    parser.add_argument("--long", type=int, default=LONG, help=f"completions of the convergence check (default {LONG})")
    args = parser.parse_args()
    for path in args.trace:
        if not path.is_file():
            parser.error(f"--trace {path}: no such file")
    if args.seeds < 1 or args.small < 1 or args.long < 2:
        parser.error("--seeds, --small: expected positive integers; --long: at least 2")
    setup = Setup()
    sources = [(name, lambda name=name: list(build(name, setup, 0).arrivals))
               for name in args.workload or ([] if args.trace else list(WORKLOADS))]
    sources += [(path.stem, lambda path=path: load_trace(path)) for path in args.trace]
    print(f"{'workload':18s} " + " ".join(f"{f'capacity (n={n})':>24s}" for n in (calibrate.SAMPLE_SIZE, args.small))
          + f" {'mean output':>16s} {'s per calibration':>18s} {f'seed 0 vs {args.long}':>16s}")
    for name, load in sources:
        arrivals = load()
        samples = [calibrate._sample(arrivals, seed) for seed in range(args.seeds)]
        began = time.perf_counter()
        bench = [calibrate.saturated_throughput(setup.params, sample, seed) for seed, sample in enumerate(samples)]
        seconds = (time.perf_counter() - began) / args.seeds
        small = [calibrate.saturated_throughput(setup.params, calibrate._sample(arrivals, seed, args.small), seed)
                 for seed in range(args.seeds)]
        long = calibrate.saturated_throughput(setup.params, samples[0], 0, completions=args.long)
        outputs = [statistics.fmean(o for _, o in sample) for sample in samples]
        print(f"{name:18s} {spread(bench):>24s} {spread(small):>24s} {min(outputs):7.0f}-{max(outputs):<8.0f} "
              f"{seconds:18.1f} {bench[0] / long - 1:+16.1%}", flush=True)


if __name__ == "__main__":
    main()
