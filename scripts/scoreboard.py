#!/usr/bin/env python3
"""The bench's headline over many runs: per workload, ours at its tuned point against the cheapest
other tuned policy that holds the target, with a verdict, and the counts per verdict.

    python scripts/scoreboard.py OUT_DIR [OUT_DIR ...] [--target 0.99] [--frontier] [--tuned-values] [--after-traffic]
                                 [--ties] [--plots DIR] [--save DIR]

Each OUT_DIR is a `slo-scaler bench --sweep` output (its results.json); a policy scored on a
workload in more than one is taken from the last one given, so the baselines of one run and ours of
a later one make one table. Verdicts, from the ratio r = the cheapest other's
GPU-seconds / ours on the evaluation window (both tuned on the first third, as the bench does):

- won: ours holds and r >= 1.10 (or ours holds and nobody else does);
- ahead: ours holds, 1.015 <= r < 1.10;
- level: ours holds, 0.985 <= r < 1.015;
- lost: ours holds, r < 0.985;
- missed: ours misses the target and another policy holds it;
- nobody holds: no policy, ours included, holds it.

The references (static-peak, the clairvoyant) and the fluid bound are not "others"; ours' cost
over the clairvoyant's is shown beside, as the headline's second bound (at most 1.5x). With
--frontier, the same comparison on the evaluation window's frontier too: each policy's cheapest
point that holds there, a reading of what each can reach, not a verdict. With --after-traffic, how
many of ours' and the other's GPU-seconds fall after the workload's last arrival, in the bench's
tail where nothing arrives ("-" for runs written before the bench reported it). With --plots DIR,
each workload's frontier as the bench draws it (DIR/frontier-WORKLOAD.png), from the rows merged
across the runs: a frontier whose policies ran apart is drawn too. With --ties, where ours' values
tie on the tuning window (the lowest is taken) and what each tied value costs on the evaluation
window. With --save DIR, the merged rows
as DIR/results.json, one directory that scores the same (docs/simulator/scoreboard holds the
headline's): a later run of ours given after it is scored against the baselines it keeps.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

OURS = "slo-scaler"
NOT_OTHERS = {OURS, "static-peak", "clairvoyant", "fluid-bound"}
VERDICTS = ("won", "ahead", "level", "lost", "missed", "nobody holds")


def load(dirs: list[Path]) -> dict[str, list[dict]]:
    """results.json rows by workload; a later directory replaces an earlier one's rows of each
    (workload, policy) it holds, and keeps the rest."""
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for directory in dirs:
        path = directory / "results.json"
        if not path.is_file():
            raise SystemExit(f"{directory}: no results.json (expected a `slo-scaler bench --sweep` output directory)")
        rows = json.loads(path.read_text())
        for pair in dict.fromkeys((r["workload"], r["policy"]) for r in rows):
            by_pair[pair] = [r for r in rows if (r["workload"], r["policy"]) == pair]
    by_workload: dict[str, list[dict]] = {}
    for (name, _), rows in by_pair.items():
        by_workload.setdefault(name, []).extend(rows)
    return by_workload


def save(by_workload: dict[str, list[dict]], directory: Path) -> Path:
    """The merged rows as directory/results.json, one row a line (a later run's diff shows the rows
    it moved), written whole or not at all."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "results.json"
    rows = [r for name in sorted(by_workload) for r in by_workload[name]]
    partial = path.with_name(path.name + ".partial")
    partial.write_text("[\n" + ",\n".join(json.dumps(r, sort_keys=True) for r in rows) + "\n]\n")
    partial.replace(path)
    return path


def frontier_lines(rows: list[dict]) -> tuple[list, float | None]:
    """One workload's rows as the bench's frontier plot draws them: each policy's swept points (or
    its one reference point) on the evaluation window with its tuned point, and the fluid bound."""
    from scaler.sim.plots import FrontierLine  # matplotlib only when plots are asked for

    def at(r):
        return (r["gpu_seconds"], 100 * r["slo_attainment"], 100 * r["slo_attainment_min"], 100 * r["slo_attainment_max"])
    lines, bound = [], None
    for policy in dict.fromkeys(r["policy"] for r in rows):
        mine = [r for r in rows if r["policy"] == policy and r["window"] == "eval"]
        if policy == "fluid-bound":
            bound = mine[0]["gpu_seconds"] if mine else None
            continue
        swept = [r for r in mine if r["point"] in ("sweep", "reference")]
        tuned = next((r for r in mine if r["point"] in ("tuned", "reference")), None)
        if swept and tuned is not None:
            lines.append(FrontierLine(policy, tuple(at(r) for r in swept), at(tuned)[:2]))
    return lines, bound


def _holds(row: dict, target: float) -> bool:
    return row["slo_attainment"] >= target - 1e-9


def _tuned(rows: list[dict], policy: str) -> dict | None:
    return next((r for r in rows if r["policy"] == policy and r["point"] == "tuned" and r["window"] == "eval"), None)


def _cheapest(rows: list[dict], target: float) -> dict | None:
    holding = [r for r in rows if _holds(r, target)]
    return min(holding, key=lambda r: (r["gpu_seconds"], r["policy"])) if holding else None


def verdict(ours: dict | None, other: dict | None, target: float) -> tuple[str, float | None]:
    """The verdict and the ratio (the cheapest other's GPU-seconds over ours'; None without both)."""
    ours_holds = ours is not None and _holds(ours, target)
    if not ours_holds:
        return ("missed" if other is not None else "nobody holds"), None
    if other is None:
        return "won", None
    ratio = other["gpu_seconds"] / ours["gpu_seconds"]
    if ratio >= 1.10:
        return "won", ratio
    if ratio >= 1.015:
        return "ahead", ratio
    return ("level" if ratio >= 0.985 else "lost"), ratio


def score(rows: list[dict], target: float) -> dict:
    """One workload: ours' tuned row, the cheapest other tuned row that holds, the verdict and the ratios."""
    ours = _tuned(rows, OURS)
    others = [r for r in rows if r["policy"] not in NOT_OTHERS and r["point"] == "tuned" and r["window"] == "eval"]
    other = _cheapest(others, target)
    name, ratio = verdict(ours, other, target)
    clairvoyant = _tuned(rows, "clairvoyant")
    over_clairvoyant = (ours["gpu_seconds"] / clairvoyant["gpu_seconds"]
                        if ours and clairvoyant and clairvoyant["gpu_seconds"] > 0 else None)
    return {"ours": ours, "other": other, "verdict": name, "ratio": ratio, "over_clairvoyant": over_clairvoyant}


def frontier(rows: list[dict], target: float) -> tuple[dict | None, dict | None]:
    """Ours' and the cheapest other's cheapest sweep point that holds on the evaluation window."""
    sweep = [r for r in rows if r["window"] == "eval" and r["point"] == "sweep"]
    return (_cheapest([r for r in sweep if r["policy"] == OURS], target),
            _cheapest([r for r in sweep if r["policy"] not in NOT_OTHERS], target))


def tuned_values(by_workload: dict[str, list[dict]], target: float) -> dict[str, dict[float, list[int]]]:
    """Per swept policy, per knob value: on how many workloads the protocol tuned it there, and on how
    many of those it holds on the evaluation window (static, sized by its search, left out)."""
    counts: dict[str, dict[float, list[int]]] = {}
    for rows in by_workload.values():
        for r in rows:
            if r["point"] == "tuned" and r["window"] == "eval" and r["policy"] not in ("static", "static-peak"):
                tally = counts.setdefault(r["policy"], {}).setdefault(r["knob_value"], [0, 0])
                tally[0] += 1
                tally[1] += _holds(r, target)
    return counts


def ties(by_workload: dict[str, list[dict]], target: float, policy: str = OURS) -> dict[str, list[dict]]:
    """Per workload where `policy`'s tuning-window GPU-seconds are equal at two knob values or more
    among those that hold there (the bench takes the lowest: scaler.sim.sweep.tuned), the tied
    values' evaluation-window rows, lowest value first."""
    out = {}
    for name, rows in by_workload.items():
        sweep = [r for r in rows if r["policy"] == policy and r["point"] == "sweep"]
        holding = [r for r in sweep if r["window"] == "tune" and _holds(r, target)]
        if not holding:
            continue
        cheapest = min(r["gpu_seconds"] for r in holding)
        tied = {r["knob_value"] for r in holding if r["gpu_seconds"] - cheapest < 1e-6}
        evaluated = sorted((r for r in sweep if r["window"] == "eval" and r["knob_value"] in tied),
                           key=lambda r: r["knob_value"])
        if len(evaluated) > 1:
            out[name] = evaluated
    return out


def _point(row: dict | None, with_policy: bool = False) -> str:
    if row is None:
        return "-"
    name = f"{row['policy']} {row['knob_value']:g}" if with_policy else f"{row['knob_value']:g}"
    return f"{name}: {row['slo_attainment']:.2%} / {row['gpu_seconds']:,.0f}"


def _after_traffic(row: dict | None) -> str:
    if row is None or "gpu_seconds_after_traffic" not in row:
        return "-"
    return f"{row['gpu_seconds_after_traffic']:,.0f} of {row['gpu_seconds']:,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="`slo-scaler bench --sweep` output directories")
    parser.add_argument("--target", type=float, default=0.99, help="attainment to hold on the evaluation window")
    parser.add_argument("--frontier", action="store_true", help="also compare the evaluation window's frontiers")
    parser.add_argument("--tuned-values", action="store_true",
                        help="also count, per policy, the knob values the protocol tuned to and how many of them hold")
    parser.add_argument("--after-traffic", action="store_true",
                        help="also show the GPU-seconds each spent after the workload's last arrival")
    parser.add_argument("--plots", type=Path, metavar="DIR",
                        help="also draw each workload's frontier, merged across the runs, as DIR/frontier-WORKLOAD.png")
    parser.add_argument("--ties", action="store_true",
                        help="also list where ours' values tie on the tuning window, with each tied value's evaluation")
    parser.add_argument("--save", type=Path, metavar="DIR",
                        help="also write the merged rows as DIR/results.json, a directory this script scores the same")
    args = parser.parse_args(argv)
    if not 0 < args.target <= 1:
        parser.error(f"--target: expected a share in (0, 1], got {args.target:g}")
    for name in ("plots", "save"):
        path = getattr(args, name)
        if path is not None and path.exists() and not path.is_dir():
            parser.error(f"--{name}: expected a directory, got the file {path}")
    by_workload = load(args.dirs)
    if args.save is not None:
        print(f"saved: {save(by_workload, args.save)}")
    counts: Counter[str] = Counter()
    print(f"{'workload':18s} {'ours, tuned':28s} {'cheapest other that holds':40s} {'ratio':>6s} {'x clairv.':>9s}  verdict")
    for name in sorted(by_workload):
        s = score(by_workload[name], args.target)
        counts[s["verdict"]] += 1
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.2f}x"
        over = "-" if s["over_clairvoyant"] is None else f"{s['over_clairvoyant']:.2f}"
        holds = s["verdict"] in ("won", "ahead", "level", "lost")
        flag = " (over 1.5x the clairvoyant)" if holds and s["over_clairvoyant"] and s["over_clairvoyant"] > 1.5 else ""
        print(f"{name:18s} {_point(s['ours']):28s} {_point(s['other'], True):40s} {ratio:>6s} {over:>9s}  "
              f"{s['verdict']}{flag}")
        if args.after_traffic:
            print(f"{'  after traffic':18s} {_after_traffic(s['ours']):28s} {_after_traffic(s['other']):40s}")
        if args.frontier:
            ours, other = frontier(by_workload[name], args.target)
            ratio = f"{other['gpu_seconds'] / ours['gpu_seconds']:.2f}x" if ours and other else "-"
            print(f"{'  frontier':18s} {_point(ours):28s} {_point(other, True):40s} {ratio:>6s}")
    print(f"{len(by_workload)} workloads: " + ", ".join(f"{v} {counts[v]}" for v in VERDICTS))
    if args.plots is not None:
        from scaler.sim.plots import draw_frontier
        for name in sorted(by_workload):
            lines, bound = frontier_lines(by_workload[name])
            if not lines or bound is None:
                print(f"no plot for {name}: its runs hold no swept policy or no fluid bound", file=sys.stderr)
                continue
            print(f"plot: {draw_frontier(args.plots / f'frontier-{name}.png', name, lines, bound, args.target)}")
    if args.ties:
        tied = ties(by_workload, args.target)
        for name, rows in sorted(tied.items()):
            print(f"tie {name}: " + ", ".join(_point(r) for r in rows))
        apart = sum(len({r["gpu_seconds"] for r in rows}) > 1 for rows in tied.values())
        tuned = sum(any(r["policy"] == OURS and r["point"] == "tuned" for r in rows) for rows in by_workload.values())
        print(f"ties on the tuning window decide {len(tied)} of ours' {tuned} tuned values; on {apart} the tied "
              f"values cost differently on the evaluation window")
    if args.tuned_values:
        for policy, values in sorted(tuned_values(by_workload, args.target).items()):
            print(f"{policy} tuned to: " + ", ".join(f"{value:g} on {n} ({held} hold)"
                                                     for value, (n, held) in sorted(values.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
