#!/usr/bin/env python3
"""Where shedding helps and where it costs: ours with and without shedding on the same run, request by request.

    python scripts/shed_flips.py --workload tenant-mix --seed 3 [--knob 0.8] [--by 5]
    python scripts/shed_flips.py --trace DIR/ramp-and-spikes.csv --seed 0 --knob 0.8

Both runs see the same arrivals (the bench's protocol: scaler.sim.sweep's workload and context for
the seed). Each request's outcome is paired across them, and three counts are printed per window of
--by seconds of arrival time, for the evaluation window and the whole run:
- refused, would have made it: refused with shedding (served late or never), within the SLO without;
- admitted and missed: never refused, a miss with shedding and within the SLO without (shedding
  changed what it met: the fleet it scaled, or the retries of what it refused);
- saved: within the SLO with shedding, a miss without.
Each window where any count is not zero also gets ours' decisions that shed: how many seconds it
spent in RED, their reasons, and how full the batches were (running over ready x slots).

With --episodes, the same counts per RED episode instead (consecutive RED decisions, extended by
--by seconds): a refused request counts for the episode it arrived in, a saved one for the first
episode its stay overlapped (RED protects the batch's members, which arrived before it). Each
episode shows what started it (its first decision's reason, batch fill and sentence); a total per
starting reason says which REDs pay; the requests never refused that missed only with shedding
belong to no episode and are counted apart.

    python scripts/shed_flips.py --workload tenant-mix --seed 3 --knob 0.8 --episodes
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from one_run import DecisionLog, add_run_arguments, build_run, check_run_arguments  # noqa: E402
from scaler.sim.metrics import meets  # noqa: E402
from scaler.sim.policies.slo_scaler import SloScaler  # noqa: E402
from scaler.sim.simulation import simulate  # noqa: E402
from scaler.sim.sweep import window_bounds  # noqa: E402


class _Logged(DecisionLog, SloScaler):
    """Ours, keeping each new decision."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser, by_s=5.0)
    parser.add_argument("--episodes", action="store_true", help="count per RED episode, not per window")
    args = parser.parse_args()
    check_run_arguments(parser, args)

    setup, workload, ctx = build_run(args)
    runs = {}
    for shedding in (True, False):
        policy = _Logged(ctx, args.knob, shedding=shedding)
        runs[shedding] = ({r.index: r for r in simulate(workload, policy, setup).requests}, policy.decisions)
    knob = policy.knob_value
    (shed, decisions), (unshed, _) = runs[True], runs[False]

    def ok(request) -> bool:
        return meets(request, setup.ttft_slo_s, setup.tpot_slo_s)

    if args.episodes:
        _print_episodes(workload.name, args, knob, decisions, shed, unshed, ok)
        return
    start, end = window_bounds(workload, setup)["eval"]
    flips = {kind: Counter() for kind in ("lost", "admitted", "saved")}
    totals = {name: Counter() for name in ("eval", "run")}
    for index, a in shed.items():
        kind = _flip(a, unshed[index], ok)
        if kind is None:
            continue
        flips[kind][int(a.arrival.time // args.by)] += 1
        totals["run"][kind] += 1
        if start <= a.arrival.time < end:
            totals["eval"][kind] += 1

    print(f"{workload.name} seed {args.seed} knob {knob:g}: "
          f"SLO TTFT <= {setup.ttft_slo_s:g} s, TPOT <= {setup.tpot_slo_s:g} s; evaluation window {start:.0f}-{end:.0f} s")
    for name, counts in totals.items():
        print(f"  {name:4s}: refused, would have made it {counts['lost']:5d}   admitted and missed, made it without "
              f"{counts['admitted']:5d}   saved {counts['saved']:5d}")
    lost, admitted, saved = flips["lost"], flips["admitted"], flips["saved"]
    print(f"{'arrivals (s)':>14s} {'refused-ok':>10s} {'admitted-lost':>13s} {'saved':>6s}  RED s  reasons; batch fill (R / N x S)")
    for window in sorted(set(lost) | set(admitted) | set(saved)):
        t0, t1 = window * args.by, (window + 1) * args.by
        red = [d for d in decisions if t0 <= d.time < t1 and d.state.value == "RED"]
        reasons = ", ".join(f"{reason} x{n}" for reason, n in Counter(d.reason for d in red).items())
        fills = [d.running / (d.ready_replicas * d.slots) for d in red if d.slots and d.ready_replicas]
        fill = f"{min(fills):.2f}-{max(fills):.2f}" if fills else "-"
        print(f"{t0:7.0f}-{t1:<6.0f} {lost[window]:10d} {admitted[window]:13d} {saved[window]:6d}  {len(red):5d}  "
              f"{reasons or '-'}; {fill}")


def _flip(shed, unshed, ok) -> str | None:
    """"lost": refused with shedding and a miss, within the SLO without; "admitted": never refused, a
    miss with shedding and within the SLO without (shedding changed the fleet or the queue it met);
    "saved": within the SLO with shedding, a miss without."""
    if not ok(shed) and ok(unshed):
        return "lost" if shed.refusals else "admitted"
    return "saved" if ok(shed) and not ok(unshed) else None


def _fill(decision) -> float | None:
    if decision.slots and decision.ready_replicas:
        return decision.running / (decision.ready_replicas * decision.slots)
    return None


def _episodes(decisions) -> list[list]:
    """Runs of consecutive RED decisions."""
    out, current = [], []
    for d in decisions:
        if d.state.value == "RED":
            current.append(d)
        elif current:
            out.append(current)
            current = []
    return out + ([current] if current else [])


def _print_episodes(name, args, knob, decisions, shed, unshed, ok) -> None:
    episodes = _episodes(decisions)
    spans = [(e[0].time, e[-1].time + args.by) for e in episodes]
    counts = [Counter() for _ in episodes]
    admitted = 0
    for index, a in shed.items():
        kind = _flip(a, unshed[index], ok)
        if kind == "admitted":
            admitted += 1  # no episode refused it: counted apart
        if kind not in ("lost", "saved"):
            continue
        # A refused request counts for the episode it arrived in; a saved one for the first episode
        # its stay overlapped (the batch members RED protects arrived before it).
        until = a.arrival.time if kind == "lost" else (a.finished if a.finished is not None else a.arrival.time)
        for i, (t0, t1) in enumerate(spans):
            if a.arrival.time < t1 and until >= t0:
                counts[i][kind] += 1
                break
    print(f"{name} seed {args.seed} knob {knob:g}: {len(episodes)} RED episodes")
    print(f"{'start (s)':>10s} {'RED s':>6s} {'refused-ok':>10s} {'saved':>6s}  started by; batch fill then")
    by_reason: dict[str, Counter] = {}
    for episode, count in zip(episodes, counts):
        first = episode[0]
        fill = _fill(first)
        total = by_reason.setdefault(first.reason, Counter())
        total.update(count)
        total["episodes"] += 1
        if count:
            print(f"{first.time:10.0f} {len(episode):6d} {count['lost']:10d} {count['saved']:6d}  "
                  f"{first.reason}; {'-' if fill is None else f'{fill:.2f}'}; {first.detail}")
    for reason, total in sorted(by_reason.items()):
        print(f"  started by {reason}: {total['episodes']} episodes, refused-ok {total['lost']}, saved {total['saved']}")
    print(f"  never refused, a miss with shedding and within the SLO without (the run): {admitted}")


if __name__ == "__main__":
    main()
