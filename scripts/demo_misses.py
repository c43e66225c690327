"""Where the demo's admitted requests missed the TTFT SLO: before the scaler's first RED, during
RED, after it; and per second of the burst, what was admitted, what completed and the worst TTFT.

    python scripts/demo_misses.py demo-out [demo-out-2 ...]

Reads what `slo-scaler demo` wrote: comparison.json (the scaler's state changes) and
slo-scaler.json (every request; an admitted request is dated at its admitted attempt: its first
attempt plus the Retry-After waits before it).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def admitted_at(request: dict) -> float:
    return request["start"] + sum(request["waits"])


def red_periods(changes: list, end: float) -> list[tuple[float, float]]:
    periods, since = [], None
    for t, state in sorted(changes) + [[end, ""]]:
        if state == "RED" and since is None:
            since = t
        elif state != "RED" and since is not None:
            periods.append((since, t))
            since = None
    return periods


def report(out: Path) -> None:
    comparison = json.loads((out / "comparison.json").read_text())
    arm, scenario = comparison["arms"]["slo-scaler"], comparison["scenario"]
    slo = scenario["ttft_slo_s"]
    end = scenario["low_s"] + scenario["burst_s"] + scenario["after_s"]
    requests = json.loads((out / "slo-scaler.json").read_text())["requests"]
    served = [r for r in requests if r["outcome"] == "ok"]
    misses = sorted((r for r in served if r["ttft_s"] > slo), key=admitted_at)
    reds = red_periods(arm.get("state_changes") or [], end)
    first_red = reds[0][0] if reds else None
    print(f"{out}: {len(served)} admitted, {len(misses)} over the {slo:g} s SLO "
          f"(p99 {arm['admitted_ttft_p99_s']:.2f} s, {arm['admitted_within_slo']:.1%} within); "
          f"RED {', '.join(f'{a:.1f}-{b:.1f} s' for a, b in reds) or 'never'}")

    def phase(t: float) -> str:
        if first_red is None or t < first_red:
            return "before the first RED"
        return "in RED" if any(a <= t < b for a, b in reds) else "outside RED, after it"

    by_phase = Counter(phase(admitted_at(r)) for r in misses)
    for name in ("before the first RED", "in RED", "outside RED, after it"):
        print(f"  admitted {name}: {by_phase[name]} misses")
    for r in misses:
        print(f"    {admitted_at(r):6.2f} s  {r['request_class']:<11} prompt {r['prompt_tokens']:>5}  "
              f"TTFT {r['ttft_s']:.2f} s  ({phase(admitted_at(r))})")
    ready = arm.get("first_new_replica_ready_s")
    if first_red is not None and ready and ready > first_red + 2:
        done = sum(1 for r in served if first_red + 1 <= admitted_at(r) + r["e2e_s"] < ready)
        print(f"  completed with one ready replica, {first_red + 1:.1f}-{ready:.1f} s (RED's first second left out): "
              f"{done / (ready - first_red - 1):.2f}/s (perReplicaCapacity {scenario['capacity_rps']:g})")
    start, stop = int(scenario["low_s"]) - 2, int(min(end, scenario["low_s"] + scenario["burst_s"] + 2))
    admitted = Counter(int(admitted_at(r)) for r in served)
    completed = Counter(int(admitted_at(r) + r["e2e_s"]) for r in served)
    worst: dict[int, float] = {}
    for r in served:
        worst[int(admitted_at(r))] = max(worst.get(int(admitted_at(r)), 0.0), r["ttft_s"])
    print("  second   admitted  completed  worst TTFT")
    for second in range(start, stop):
        print(f"  {second:6d}   {admitted[second]:8d}  {completed[second]:9d}  {worst.get(second, 0.0):9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="+", type=Path, help="a directory `slo-scaler demo --out` wrote")
    for out in parser.parse_args().out:
        report(out)


if __name__ == "__main__":
    main()
