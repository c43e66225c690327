"""Bench results: the headline table per workload (GPU-seconds to hold the target on the evaluation
window, ratio to ours), the sweep, the tuned points' details, results.json and details.json."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from scaler.sim.policies import REFERENCES
from scaler.sim.setup import Setup
from scaler.sim.sweep import WINDOW_FIELDS, WINDOWS, Point, Stat

OURS = "slo-scaler"
BOUND = "fluid-bound"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1%}"


def _num(v: float | None, fmt: str = "{:,.0f}") -> str:
    return "-" if v is None else fmt.format(v)


def _range(stat: Stat, fmt) -> str:
    if stat.mean is None:
        return "-"
    if stat.low == stat.high:
        return fmt(stat.mean)
    return f"{fmt(stat.mean)} ({fmt(stat.low)}-{fmt(stat.high)})"


def _value(v: float) -> str:
    return f"{v:g}" if v < 1e6 else f"{v:.0e}"


def headline_rows(result, target: float) -> list[list[str]]:
    """policy, knob, tuned value, attainment tune, attainment eval, TTFT-only eval, GPU-s eval, x ours, holds."""
    ours = result.result(OURS)
    ours_gpu = ours.best.mean("eval", "gpu_seconds") if ours else None
    rows = []
    for r in result.policies:
        best = r.best
        gpu = best.stat("eval", "gpu_seconds")
        label = r.policy + (" (reference)" if r.policy in REFERENCES else "")
        rows.append([label, r.knob, _value(best.knob_value), _pct(best.mean("tune", "slo_attainment")),
                     _range(best.stat("eval", "slo_attainment"), _pct), _pct(best.mean("eval", "ttft_attainment")),
                     _range(gpu, _num), _num(gpu.mean / ours_gpu if ours_gpu else None, "{:.2f}"),
                     "yes" if best.holds("eval", target) else "no"])
    bound = result.bound["eval"]
    rows.append([BOUND + " (bound)", "-", "-", "-", "-", "-", _range(bound, _num),
                 _num(bound.mean / ours_gpu if ours_gpu else None, "{:.2f}"), "-"])
    return rows


HEADLINE = ("policy", "knob", "tuned value", "SLO tune", "SLO eval (min-max)", "TTFT-only eval",
            "GPU-s eval (min-max)", "x ours", "holds target")
SWEEP = ("policy", "knob value", "SLO tune", "GPU-s tune", "SLO eval", "TTFT-only eval", "GPU-s eval", "TTFT p99 eval (s)",
         "TPOT p99 eval (ms)")
FRONTIER = ("policy", "knob value", "SLO eval (min-max)", "GPU-s eval", "x ours", "tuned value", "tuned holds")
DETAILS = ("policy", "tuned value", "TTFT p50 (s)", "p95 (s)", "p99 (s)", "TPOT p99 (ms)", "SLO all", "TTFT-only",
           "refused", "GPU-s (horizon)", "recovery (s)", "scale events", "flaps")


def sweep_rows(result) -> list[list[str]]:
    rows = []
    for r in result.policies:
        for p in r.points:
            mark = " *" if p is r.best else ""
            tpot = p.mean("eval", "tpot_p99_s")
            rows.append([r.policy, _value(p.knob_value) + mark, _pct(p.mean("tune", "slo_attainment")),
                         _num(p.mean("tune", "gpu_seconds")), _pct(p.mean("eval", "slo_attainment")),
                         _pct(p.mean("eval", "ttft_attainment")), _num(p.mean("eval", "gpu_seconds")),
                         _num(p.mean("eval", "ttft_p99_s"), "{:.2f}"), _num(None if tpot is None else 1000 * tpot, "{:.0f}")])
    return rows


def cheapest_holding(points: list[Point], target: float) -> Point | None:
    """The point with the fewest evaluation-window GPU-seconds among those that hold `target` there."""
    holding = [p for p in points if p.holds("eval", target)]
    return min(holding, key=lambda p: (p.mean("eval", "gpu_seconds"), p.knob_value)) if holding else None


def frontier_rows(result, target: float) -> list[list[str]]:
    """Each policy's cheapest point that holds the target on the evaluation window, chosen on that
    window: where its frontier reaches, beside the point the protocol tuned on the first third. A
    reading of the frontier, not a headline: no knob is known to be right before the traffic comes."""
    ours = result.result(OURS)
    ours_best = cheapest_holding(ours.points, target) if ours else None
    ours_gpu = ours_best.mean("eval", "gpu_seconds") if ours_best else None
    rows = []
    for r in result.policies:
        best = cheapest_holding(r.points, target)
        tuned = [_value(r.best.knob_value), "yes" if r.best.holds("eval", target) else "no"]
        if best is None:
            rows.append([r.policy, "none holds", "-", "-", "-", *tuned])
            continue
        gpu = best.mean("eval", "gpu_seconds")
        rows.append([r.policy, _value(best.knob_value), _range(best.stat("eval", "slo_attainment"), _pct), _num(gpu),
                     _num(gpu / ours_gpu if ours_gpu else None, "{:.2f}"), *tuned])
    return rows


def _summary_mean(point: Point, name: str) -> float | None:
    values = [getattr(r.summary, name) for r in point.runs if getattr(r.summary, name) is not None]
    return statistics.fmean(values) if values else None


def details_rows(result) -> list[list[str]]:
    rows = []
    for r in result.policies:
        p = r.best
        tpot = _summary_mean(p, "tpot_p99_s")
        rows.append([r.policy, _value(p.knob_value), _num(_summary_mean(p, "ttft_p50_s"), "{:.2f}"),
                     _num(_summary_mean(p, "ttft_p95_s"), "{:.2f}"), _num(_summary_mean(p, "ttft_p99_s"), "{:.2f}"),
                     _num(None if tpot is None else 1000 * tpot, "{:.0f}"), _pct(_summary_mean(p, "slo_attainment_all")),
                     _pct(_summary_mean(p, "ttft_attainment")), _pct(_summary_mean(p, "refusal_rate")),
                     _num(_summary_mean(p, "gpu_replica_seconds")), _num(_summary_mean(p, "recovery_s")),
                     _num(_summary_mean(p, "scale_events"), "{:.1f}"), _num(_summary_mean(p, "flaps"), "{:.1f}")])
    return rows


def markdown(header: tuple[str, ...], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _stat_fields(prefix: str, stat: Stat) -> dict:
    r = (lambda v: None if v is None else round(v, 4))
    return {prefix: r(stat.mean), f"{prefix}_min": r(stat.low), f"{prefix}_max": r(stat.high)}


def json_rows(result) -> list[dict]:
    rows = []
    seeds = len(result.workloads)
    for r in result.policies:
        for p in r.points:
            kinds = ["reference"] if r.policy == "static-peak" else (["sweep", "tuned"] if p is r.best else ["sweep"])
            for kind in kinds:
                for window in WINDOWS:
                    row = {"workload": result.name, "policy": r.policy, "knob": r.knob, "knob_value": p.knob_value,
                           "point": kind, "window": window, "seeds": len(p.runs)}
                    for name in WINDOW_FIELDS:
                        row.update(_stat_fields(name, p.stat(window, name)))
                    rows.append(row)
    for window in WINDOWS:
        row = {"workload": result.name, "policy": BOUND, "knob": "-", "knob_value": None, "point": "bound",
               "window": window, "seeds": seeds}
        row.update(_stat_fields("gpu_seconds", result.bound[window]))
        rows.append(row)
    return rows


def describe(result, setup: Setup, target: float) -> str:
    w = result.workload
    tune_end = w.duration_s / 3
    parts = [w.description, w.note, "Sizing (first seed): " + w.sizing.describe() + ".",
             f"Tuning window: arrivals in [0, {tune_end:,.0f}) s; evaluation window: [{tune_end:,.0f}, "
             f"{w.duration_s + setup.tail_s:,.0f}) s (workload end + {setup.tail_s:g} s tail). Target attainment "
             f"{target:.0%} on TTFT <= {setup.ttft_slo_s:g} s and TPOT <= {1000 * setup.tpot_slo_s:g} ms; "
             f"{len(result.workloads)} seed(s)."]
    return " ".join(p for p in parts if p)


def write(out: Path, results: list, setup: Setup, target: float, sweep: bool) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    md = ["# slo-scaler bench results", ""]
    for result in results:
        md += [f"## {result.name}", "", describe(result, setup, target), "",
               "GPU-seconds to hold the target on the evaluation window (tuned on the tuning window):", "",
               markdown(HEADLINE, headline_rows(result, target)), ""]
        if sweep:
            md += ["Every point of the sweep (* = tuned):", "", markdown(SWEEP, sweep_rows(result)), "",
                   "The frontier on the evaluation window: each policy's cheapest point that holds the target there "
                   "(chosen on the scored window, so a reading of what each policy can reach, not the headline):", "",
                   markdown(FRONTIER, frontier_rows(result, target)), ""]
        md += ["Tuned points over the whole run (mean over seeds):", "", markdown(DETAILS, details_rows(result)), ""]
    md_path = out / "results.md"
    md_path.write_text("\n".join(md))
    json_path = out / "results.json"
    json_path.write_text(json.dumps([row for r in results for row in json_rows(r)], indent=2) + "\n")
    details = [{"workload": r.name, "description": r.workload.description, "note": r.workload.note,
                "sizing": r.workload.sizing.describe(), "calibration": r.workload.calibration.__dict__,
                "runs": [run.details for p in r.policies for point in p.points for run in point.runs]}
               for r in results]
    (out / "details.json").write_text(json.dumps(details, indent=2, default=str) + "\n")
    return md_path, json_path
