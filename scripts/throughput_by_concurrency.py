"""How does one replica's throughput grow with the requests it holds, against the saturated rate?

`slo-scaler calibrate` gives `perReplicaCapacity` from a saturated level; until stop 36 it gave the
throughput at the safe concurrency. This probe prints, per trace and seed, the bench's calibrated
saturated throughput c, the safe concurrency S, and the closed-loop throughput (the replica holding
exactly that many requests, random draws from the bench's sample, `scaler.sim.calibrate.
throughput_in_flight`) at shares of S and at S itself, each as a multiple of c.

    python scripts/throughput_by_concurrency.py --trace FILE [--trace FILE ...] [--seeds 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.sim import calibrate  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.workloads import load_trace  # noqa: E402

SHARES = (0.5, 0.7, 0.9, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="append", type=Path, required=True)
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    setup = Setup()
    print(f"{'trace':16} seed {'c':>6} {'S':>4}  " + "  ".join(f"X({share:g} S)/c" for share in SHARES))
    for path in args.trace:
        arrivals = load_trace(path)
        for seed in range(args.seeds):
            cal = calibrate.calibrate(setup.params, arrivals, seed, setup.ttft_slo_s, setup.tpot_slo_s)
            sample = calibrate._sample(arrivals, seed)
            ratios = [calibrate.throughput_in_flight(setup.params, sample, max(1, int(share * cal.safe_concurrency)), seed)
                      / cal.capacity_rps for share in SHARES]
            print(f"{path.stem:16} {seed:4d} {cal.capacity_rps:6.2f} {cal.safe_concurrency:4d}  "
                  + "  ".join(f"{r:11.2f}" for r in ratios), flush=True)


if __name__ == "__main__":
    main()
