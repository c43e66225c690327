"""How well does the policy's TTFT predictor (scaler.policy.predict) match the replica model?

Replays workloads in the simulator (scaler/engine replicas) with fixed fleets and with ours, and at
every 1 s tick predicts the TTFT of a request arriving now from what a scrape shows (running,
waiting, ready, in-flight prompt tokens). Each request is paired with the prediction of the tick
it arrived in; per 10 s window the p95 of the predictions is compared with the p95 of the measured
TTFTs (requests admitted at their first attempt). Printed per run: the overall p95 measured and
predicted, the mean absolute error of the window p95s, and how often the window's "p95 over the
SLO" verdict agrees; the same for the request-count predictor (queue wait + expected prefill,
no batch) for comparison.

    python scripts/ttft_predictor.py [--workload standard-burst --workload azure-code] [--trace FILE ...] [--seed 0]

`--trace` adds trace files as `slo-scaler bench --trace` reads them (scripts/unseen_traces.py
writes three a set).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.policy.predict import predict_ttft  # noqa: E402
from scaler.sim.metrics import percentile  # noqa: E402
from scaler.sim.policies import PolicyContext, make  # noqa: E402
from scaler.sim.policies.base import Policy  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.simulation import simulate  # noqa: E402
from scaler.sim.sweep import context  # noqa: E402
from scaler.sim.workload import WORKLOADS, build, trace_file  # noqa: E402

WINDOW_S = 10


class Fixed(Policy):
    """A fixed fleet of `replicas` (the predictor is judged where queues do form)."""

    name = "fixed"

    def __init__(self, ctx: PolicyContext, replicas: int):
        self.ctx, self.replicas = ctx, replicas

    def initial_replicas(self) -> int:
        return self.replicas

    def control(self, now, view):
        return None


class Recorded(Policy):
    """Runs `inner` and predicts at every control tick."""

    def __init__(self, inner: Policy, scale_up_s: float):
        self.inner, self.ctx, self.name = inner, inner.ctx, inner.name
        self.max_ongoing_per_replica, self.max_queued = inner.max_ongoing_per_replica, inner.max_queued
        self.scale_up_s = scale_up_s
        self.batch: dict[int, float] = {}
        self.counts: dict[int, float] = {}

    def initial_replicas(self) -> int:
        return self.inner.initial_replicas()

    def admit(self, now, request):
        return self.inner.admit(now, request)

    def control(self, now, view):
        cal = self.ctx.calibration
        ready = view.ready
        landings = sorted(max(0.0, self.scale_up_s - age) for age in view.starting_ages())
        common = dict(waiting=float(view.waiting), running=float(view.running), ready=ready,
                      drain_rps=ready * cal.capacity_rps, step_rps=cal.capacity_rps, landings=landings,
                      expected_prefill_s=cal.median_prefill_s)
        in_flight = float(sum(m.prefill_tokens for m in view.scraped))
        self.batch[int(now)] = predict_ttft(**common, slots=float(cal.safe_concurrency),
                                            prompt_tokens_in_flight=in_flight,
                                            prefill_tps=cal.prefill_velocity).ttft_s
        self.counts[int(now)] = predict_ttft(**{**common, "waiting": float(view.waiting)}, slots=None,
                                             prompt_tokens_in_flight=None, prefill_tps=None).ttft_s
        return self.inner.control(now, view)


def judge(record, predicted: dict[int, float], slo: float) -> dict:
    windows: dict[int, tuple[list[float], list[float]]] = {}
    for r in record.requests:
        if r.ttft is None or r.refusals:
            continue
        second = int(r.arrival.time)
        guess = predicted.get(second)
        if guess is None:
            continue
        measured, guessed = windows.setdefault(second // WINDOW_S, ([], []))
        measured.append(r.ttft)
        guessed.append(guess)
    pairs = [(percentile(sorted(m), 0.95), percentile(sorted(g), 0.95)) for m, g in windows.values() if len(m) >= 5]
    finite = [(m, g) for m, g in pairs if math.isfinite(g)]
    everything = sorted(x for m, _ in windows.values() for x in m)
    guesses = sorted(x for _, g in windows.values() for x in g)
    return {
        "windows": len(pairs),
        "p95_measured": percentile(everything, 0.95),
        "p95_predicted": percentile(guesses, 0.95),
        "window_mae": sum(abs(m - g) for m, g in finite) / max(1, len(finite)),
        "verdict_agrees": sum((m > slo) == (g > slo) for m, g in pairs) / max(1, len(pairs)),
        "over_slo_windows": sum(m > slo for m, _ in pairs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--trace", action="append", type=Path, default=[],
                        help="an Azure CSV or Mooncake JSONL trace, as `slo-scaler bench --trace` reads it (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for path in args.trace:
        if not path.is_file():
            parser.error(f"--trace {path}: no such file")
    sources = [(name, lambda setup, name=name: build(name, setup, args.seed))
               for name in args.workload or ([] if args.trace else ["standard-burst", "azure-code"])]
    sources += [(path.stem, lambda setup, path=path: trace_file(path, setup, args.seed)) for path in args.trace]
    setup = Setup(seed=args.seed)
    print(f"{'workload':15s} {'fleet':12s} {'windows':>7s} {'over SLO':>8s} | {'measured p95':>12s} | "
          f"{'batch-aware: p95':>16s} {'MAE':>6s} {'verdict':>7s} | {'count-only: p95':>15s} {'MAE':>6s} {'verdict':>7s}")
    for name, load in sources:
        workload = load(setup)
        ctx = context(workload, setup, args.seed)  # as the bench builds it (tuning window, clock phases)
        initial = workload.sizing.initial
        fleets = [(f"fixed-{n}", Fixed(ctx, n)) for n in sorted({initial, initial + 1, 2 * initial})]
        fleets.append(("slo-scaler", make("slo-scaler", ctx)))
        for label, inner in fleets:
            recorded = Recorded(inner, setup.cold_start.median_s)
            record = simulate(workload, recorded, setup)
            batch = judge(record, recorded.batch, setup.ttft_slo_s)
            counts = judge(record, recorded.counts, setup.ttft_slo_s)
            print(f"{name:15s} {label:12s} {batch['windows']:7d} {batch['over_slo_windows']:8d} | "
                  f"{batch['p95_measured']:12.2f} | {batch['p95_predicted']:16.2f} {batch['window_mae']:6.2f} "
                  f"{batch['verdict_agrees']:7.0%} | {counts['p95_predicted']:15.2f} {counts['window_mae']:6.2f} "
                  f"{counts['verdict_agrees']:7.0%}", flush=True)


if __name__ == "__main__":
    main()
