#!/usr/bin/env python3
"""Ours' decisions beside what the requests met, per window of arrival time: one run of the bench.

    python scripts/decision_timeline.py --trace DIR/micro-batches.csv --seed 0 --knob 0.6 --variant ours-floor-one --by 20
    python scripts/decision_timeline.py --workload azure-code --seed 0 --knob 0.5 --by 30 --requests 2160 2190

One run of ours on the workload built for the seed (the bench's protocol: scaler.sim.sweep's
workload and context), or of one of `scripts/policy_ablation.py`'s variants (`--variant
ours-floor-one`: without `render`'s floor; `--variant ours-no-prefill-bursts`: without the prompt-token
burst history). Per window of
--by seconds: the requests that arrived and their prompt tokens (thousands), those that missed the TTFT
SLO and those that met it but missed the TPOT SLO; and ours' decisions in the window: the ready
replicas (min-max), the most starting, the need (min-max), the largest demand, the burst window that
set the need (0: none) and the longest half-life in minutes such a burst was remembered with (5 while seen
once, up to 20 once it came back; 0: none), the most deferred, the prompt-token burst's replicas, and the states (G, Y, R).

Then the evaluation window's replica-seconds (the bench's GPU-seconds) and how many of them were
spent on replicas still starting (asked for, not yet ready: cancelled ones and the start of those
that became ready); and those of replicas asked for while ours' forecast stood above the arrival
rate, with the part of them in replicas gone within 90 s (what a rise that stopped cost).

With --requests FROM TO, the requests that arrived in [FROM, TO) and finished: how many met the TPOT
SLO and how many missed it, with the median output tokens, prompt tokens and TPOT of each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from bisect import bisect_right
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from one_run import DecisionLog, add_run_arguments, build_run, check_run_arguments  # noqa: E402
from policy_ablation import VARIANTS  # noqa: E402
from scaler.sim.policies.slo_scaler import SloScaler  # noqa: E402
from scaler.sim.metrics import gpu_seconds  # noqa: E402
from scaler.sim.simulation import simulate  # noqa: E402
from scaler.sim.sweep import window_bounds  # noqa: E402


POLICIES = {SloScaler.name: SloScaler, **{variant.name: variant for variant in VARIANTS}}
# A replica gone this soon after it was asked for served little or nothing: cancelled while starting, or released
# within half a minute of becoming ready at the bench's 60 s cold start.
SHORT_LIVED_S = 90.0


def _span(values, fmt: str = "{:.1f}") -> str:
    return f"{fmt.format(min(values))}-{fmt.format(max(values))}"


def starting_seconds(samples, start: float, end: float) -> float:
    """Replica-seconds of replicas still starting in [start, end), from the run's control-tick samples
    (time, queued, running, ready, starting, desired), each held until the next."""
    return sum(now[4] * max(0.0, min(after[0], end) - max(now[0], start)) for now, after in zip(samples, samples[1:]))


def trended_seconds(lifetimes, decisions, start: float, end: float, short_s: float = SHORT_LIVED_S) -> tuple[float, float]:
    """Replica-seconds in [start, end) of replicas asked for while ours' forecast stood above the arrival rate (the
    trend's rise), and of those the ones gone within `short_s` of being asked for: the replicas a rise that stopped
    started. A replica is dated by the last decision at or before it was asked for."""
    times = [d.time for d in decisions]
    trended = short = 0.0
    for asked, gone in lifetimes:
        held = min(gone, end) - max(asked, start)
        at = bisect_right(times, asked) - 1
        if held <= 0 or at < 0 or not decisions[at].arrival_forecast_rps > decisions[at].arrival_rps:
            continue
        trended += held
        short += held if gone - asked < short_s else 0.0
    return trended, short


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser, by_s=20.0)
    parser.add_argument("--variant", choices=POLICIES, default=SloScaler.name,
                        help="ours, or one of scripts/policy_ablation.py's variants")
    parser.add_argument("--requests", type=float, nargs=2, metavar=("FROM", "TO"),
                        help="summarise the TPOT of the requests that arrived in [FROM, TO)")
    args = parser.parse_args(argv)
    check_run_arguments(parser, args)
    if args.requests is not None and not args.requests[0] < args.requests[1]:
        parser.error(f"--requests: expected FROM < TO, got {args.requests[0]:g} {args.requests[1]:g}")

    setup, workload, ctx = build_run(args)
    policy = type("Logged", (DecisionLog, POLICIES[args.variant]), {})(ctx, args.knob)
    record = simulate(workload, policy, setup)
    requests = record.requests
    ttft_slo, tpot_slo = setup.ttft_slo_s, setup.tpot_slo_s
    print(f"{workload.name}, {args.variant}, seed {args.seed}, targetUtilization {policy.knob_value:g}, minReplicas "
          f"{policy.min_replicas}, burstReplicas {policy.config.burst_replicas:g}; capacity {ctx.calibration.capacity_rps:.2f} req/s, safe concurrency "
          f"{ctx.calibration.safe_concurrency}, prefill {ctx.calibration.prefill_velocity:,.0f} tokens/s; "
          f"tuning window ends at {ctx.tune_end_s:.0f} s")

    arrived = defaultdict(lambda: [0, 0, 0, 0])  # requests, prompt tokens, TTFT misses, TPOT-only misses
    for r in requests:
        row = arrived[int(r.arrival.time // args.by)]
        ttft_miss = r.ttft is None or r.ttft > ttft_slo
        row[0] += 1
        row[1] += r.arrival.prompt_tokens
        row[2] += ttft_miss
        row[3] += not ttft_miss and tpot_slo is not None and r.tpot is not None and r.tpot > tpot_slo
    decided = defaultdict(list)
    for d in policy.decisions:
        decided[int(d.time // args.by)].append(d)
    print(f"{'from s':>7} {'req':>5} {'ktok':>6} {'TTFT miss':>9} {'TPOT miss':>9} | {'ready':>5} {'start':>5} "
          f"{'need':>10} {'demand':>6} {'floor':>5} {'burst w':>7} {'mem':>4} {'defer':>5} {'prefill':>7} states")
    for b in sorted(set(arrived) | set(decided)):
        n, tokens, ttft_missed, tpot_missed = arrived.get(b, (0, 0, 0, 0))
        left = f"{b * args.by:7.0f} {n:5d} {tokens / 1000:6.0f} {ttft_missed:9d} {tpot_missed:9d}"
        ds = decided.get(b)
        if not ds:
            print(left + " | -")
            continue
        states = "".join(s for s in "GYR" if any(d.state.value.startswith(s) for d in ds))
        print(f"{left} | {_span([d.ready_replicas for d in ds], '{:d}'):>5} {max(d.starting_replicas for d in ds):5d} "
              f"{_span([d.need for d in ds]):>10} {max(d.demand for d in ds):6.1f} {max(d.burst_floor for d in ds):5.1f} "
              f"{max(d.burst_window_s for d in ds):7.0f} {max(d.burst_half_life_s for d in ds) / 60:4.0f} "
              f"{max(d.deferred for d in ds):5.1f} "
              f"{max(d.prefill_burst for d in ds):7.1f} {states}")

    start, end = window_bounds(workload, setup)["eval"]
    held = gpu_seconds(record, start, end)
    starting = starting_seconds(record.samples, start, end)
    print(f"evaluation window [{start:.0f}, {end:.0f}) s: {held:,.0f} replica-seconds, {starting:,.0f} of them "
          f"({starting / held if held else 0.0:.1%}) in replicas still starting")
    trended, short = trended_seconds(record.lifetimes, policy.decisions, start, end)
    print(f"  asked for while the forecast stood above the rate: {trended:,.0f} replica-seconds, {short:,.0f} of "
          f"them in replicas gone within {SHORT_LIVED_S:.0f} s")

    if args.requests is not None:
        low, high = args.requests
        done = [r for r in requests if low <= r.arrival.time < high and r.tpot is not None]
        print(f"requests that arrived in [{low:g}, {high:g}) s and finished: {len(done)}")
        for label, group in (("met the TPOT SLO", [r for r in done if r.tpot <= tpot_slo]),
                             ("missed it", [r for r in done if r.tpot > tpot_slo])):
            if group:
                outputs = [r.arrival.max_tokens for r in group]
                print(f"  {label}: {len(group)}, output {statistics.median(outputs):g} tokens (median; "
                      f"{_span(outputs, '{:d}')}), prompt {statistics.median(r.arrival.prompt_tokens for r in group):g}, TPOT "
                      f"{statistics.median(r.tpot for r in group):.3f} s (range {_span([r.tpot for r in group], '{:.3f}')})")
            else:
                print(f"  {label}: 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
