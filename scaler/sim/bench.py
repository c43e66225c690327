"""Run policies against workloads and collect summaries, timelines and plots.

Runs are independent and deterministic for a seed, so they are spread over worker processes;
results are put back in the order asked for.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from scaler.sim import metrics, plots, report
from scaler.sim.policies import ABLATIONS, POLICIES, PolicyContext, make
from scaler.sim.setup import Setup
from scaler.sim.simulation import conservation, simulate
from scaler.sim.workload import Workload


@dataclass(frozen=True)
class RunResult:
    summary: metrics.Summary
    timeline: metrics.Timeline
    details: dict


def run_one(workload: Workload, policy: str, setup: Setup) -> RunResult:
    started = time.perf_counter()
    ctx = PolicyContext(setup, workload.sizing, workload.calibration, workload.arrivals, setup.seed)
    record = simulate(workload, make(policy, ctx), setup)
    wall = time.perf_counter() - started
    summary = metrics.summarize(record, setup.ttft_slo_s, workload.burst, workload.duration_s)
    details = {
        "workload": workload.name, "policy": policy, "outcomes": conservation(record),
        "refused_attempts": len(record.refused_attempts), "engine_steps": record.engine_steps,
        "simulated_s": record.end_time, "wall_s": round(wall, 3), "policy_summary": record.policy_summary,
        "scale_events": record.scale_events,
    }
    return RunResult(summary, metrics.timeline(record), details)


def _run_packed(args) -> RunResult:
    return run_one(*args)


@dataclass
class WorkloadResult:
    workload: Workload
    results: list[RunResult] = field(default_factory=list)
    plot: Path | None = None


def run_bench(workloads: list[Workload], policies: list[str], setup: Setup, out: Path, jobs: int = 1,
              on_done: Callable[[str, str], None] | None = None) -> list[WorkloadResult]:
    for name in policies:
        if name not in POLICIES and name not in ABLATIONS:
            raise ValueError(f"policies: expected names among {', '.join([*POLICIES, *ABLATIONS])}, got {name!r}")
    tasks = [(w, p, setup) for w in workloads for p in policies]
    results: list[RunResult] = []
    if jobs <= 1:
        for task in tasks:
            results.append(run_one(*task))
            if on_done:
                on_done(task[0].name, task[1])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_run_packed, task) for task in tasks]
            for task, future in zip(tasks, futures):
                results.append(future.result())
                if on_done:
                    on_done(task[0].name, task[1])
    grouped = []
    for i, workload in enumerate(workloads):
        chunk = results[i * len(policies):(i + 1) * len(policies)]
        entry = WorkloadResult(workload, chunk)
        entry.plot = plots.plot_workload(out / f"timeline-{workload.name}.png", workload.name,
                                         [r.timeline for r in chunk], setup.ttft_slo_s, workload.burst)
        grouped.append(entry)
    sections = [(g.workload.name, _describe(g.workload), [r.summary for r in g.results]) for g in grouped]
    details = [{"workload": g.workload.name, "description": g.workload.description, "note": g.workload.note,
                "sizing": g.workload.sizing.describe(), "calibration": g.workload.calibration.__dict__,
                "runs": [r.details for r in g.results]} for g in grouped]
    report.write(out, sections, details)
    return grouped


def _describe(workload: Workload) -> str:
    parts = [workload.description, workload.note, "Sizing: " + workload.sizing.describe() + "."]
    return " ".join(p for p in parts if p)


def default_jobs() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8))
