#!/usr/bin/env python3
"""Where shedding helps and where it costs: ours with and without shedding on the same run, request by request.

    python scripts/shed_flips.py --workload tenant-mix --seed 3 [--knob 0.8] [--by 5]
    python scripts/shed_flips.py --trace DIR/ramp-and-spikes.csv --seed 0 --knob 0.8

Both runs see the same arrivals (the bench's protocol: scaler.sim.sweep's workload and context for
the seed). Each request's outcome is paired across them, and two counts are printed per window of
--by seconds of arrival time, for the evaluation window and the whole run:
- refused, would have made it: refused with shedding (served late or never), within the SLO without;
- saved: within the SLO with shedding, a miss without.
Each window where either count is not zero also gets ours' decisions that shed: how many seconds it
spent in RED, their reasons, and how full the batches were (running over ready x slots).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.sim.metrics import meets  # noqa: E402
from scaler.sim.policies.slo_scaler import SloScaler  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.simulation import simulate  # noqa: E402
from scaler.sim.sweep import context, window_bounds  # noqa: E402
from scaler.sim.workload import WORKLOADS, build, trace_file  # noqa: E402


class _Logged(SloScaler):
    """Ours, keeping each new decision (the simulator asks for one per control tick)."""

    def __init__(self, ctx, knob_value, shedding):
        super().__init__(ctx, knob_value, shedding=shedding)
        self.decisions = []

    def control(self, now, view):
        replicas = super().control(now, view)
        if self.decision is not None and (not self.decisions or self.decisions[-1] is not self.decision):
            self.decisions.append(self.decision)
        return replicas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--workload", choices=WORKLOADS)
    where.add_argument("--trace", type=Path, help="an Azure CSV or Mooncake JSONL trace")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--knob", type=float, help="targetUtilization (default: ours' default)")
    parser.add_argument("--by", type=float, default=5.0, help="seconds of arrival time per printed window")
    args = parser.parse_args()
    if args.trace is not None and not args.trace.is_file():
        parser.error(f"--trace {args.trace}: no such file")
    if args.knob is not None and not 0 < args.knob <= 1:
        parser.error(f"--knob: expected a targetUtilization in (0, 1], got {args.knob:g}")
    if not args.by > 0:
        parser.error(f"--by: expected seconds > 0, got {args.by:g}")

    setup = replace(Setup(), seed=args.seed)
    workload = trace_file(args.trace, setup, args.seed) if args.trace else build(args.workload, setup, args.seed)
    ctx = context(workload, setup, args.seed)
    runs = {}
    for shedding in (True, False):
        policy = _Logged(ctx, args.knob, shedding)
        runs[shedding] = ({r.index: r for r in simulate(workload, policy, setup).requests}, policy.decisions)
    knob = policy.knob_value
    (shed, decisions), (unshed, _) = runs[True], runs[False]

    def ok(request) -> bool:
        return meets(request, setup.ttft_slo_s, setup.tpot_slo_s)

    start, end = window_bounds(workload, setup)["eval"]
    lost, saved = Counter(), Counter()
    totals = {name: Counter() for name in ("eval", "run")}
    for index, a in shed.items():
        b = unshed[index]
        kind = "lost" if a.refusals and not ok(a) and ok(b) else "saved" if ok(a) and not ok(b) else None
        if kind is None:
            continue
        window = int(a.arrival.time // args.by)
        (lost if kind == "lost" else saved)[window] += 1
        totals["run"][kind] += 1
        if start <= a.arrival.time < end:
            totals["eval"][kind] += 1

    print(f"{workload.name} seed {args.seed} knob {knob:g}: "
          f"SLO TTFT <= {setup.ttft_slo_s:g} s, TPOT <= {setup.tpot_slo_s:g} s; evaluation window {start:.0f}-{end:.0f} s")
    for name, counts in totals.items():
        print(f"  {name:4s}: refused, would have made it {counts['lost']:5d}   saved {counts['saved']:5d}")
    print(f"{'arrivals (s)':>14s} {'refused-ok':>10s} {'saved':>6s}  RED s  reasons; batch fill (R / N x S)")
    for window in sorted(set(lost) | set(saved)):
        t0, t1 = window * args.by, (window + 1) * args.by
        red = [d for d in decisions if t0 <= d.time < t1 and d.state.value == "RED"]
        reasons = ", ".join(f"{reason} x{n}" for reason, n in Counter(d.reason for d in red).items())
        fills = [d.running / (d.ready_replicas * d.slots) for d in red if d.slots and d.ready_replicas]
        fill = f"{min(fills):.2f}-{max(fills):.2f}" if fills else "-"
        print(f"{t0:7.0f}-{t1:<6.0f} {lost[window]:10d} {saved[window]:6d}  {len(red):5d}  {reasons or '-'}; {fill}")


if __name__ == "__main__":
    main()
