"""Run every policy over its knob values and seeds on each workload, tune, and report.

Runs are independent and deterministic for a seed, so they are spread over worker processes
(forked after the workloads are built, so no workload is pickled); results are put back in
order. The longest workload's runs go first so the workers finish together.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from scaler.sim import plots, report
from scaler.sim.policies import ABLATIONS, POLICIES
from scaler.sim.setup import Setup
from scaler.sim.sweep import WINDOWS, PolicyResult, RunScore, Stat, collect, fluid_bound, grid, run_point, window_bounds
from scaler.sim.workload import Workload

DEFAULT_SEEDS = 5
DEFAULT_TARGET = 0.99

_WORKLOADS: dict[str, list[Workload]] = {}  # what forked workers read: one workload per seed


@dataclass
class WorkloadResult:
    name: str
    workloads: list[Workload]  # one per seed
    policies: list[PolicyResult]
    bound: dict[str, Stat]  # fluid bound per window
    plots: list[Path] = field(default_factory=list)

    @property
    def workload(self) -> Workload:
        return self.workloads[0]

    def result(self, policy: str) -> PolicyResult | None:
        return next((p for p in self.policies if p.policy == policy), None)


def _run(task: tuple[str, int, str, float | None, Setup]) -> RunScore:
    name, index, policy, knob_value, setup = task
    workload = _WORKLOADS[name][index]
    return run_point(workload, policy, knob_value, setup, seed=setup.seed + index, keep_timeline=index == 0)


def plan(workloads: dict[str, list[Workload]], policies: list[str], setup: Setup, sweep: bool):
    tasks = []
    for name in sorted(workloads, key=lambda n: -len(workloads[n][0].arrivals)):
        first = workloads[name][0]
        for policy in policies:
            for value in grid(policy, first, setup, sweep):
                for index in range(len(workloads[name])):
                    tasks.append((name, index, policy, value, setup))
    return tasks


def run_bench(workloads: dict[str, list[Workload]], policies: list[str], setup: Setup, out: Path, *,
              sweep: bool = False, target: float = DEFAULT_TARGET, jobs: int = 1,
              on_done: Callable[[str, str, int, int], None] | None = None) -> list[WorkloadResult]:
    """`workloads`: name -> one workload per seed (seed = setup.seed + index)."""
    for name in policies:
        if name not in POLICIES and name not in ABLATIONS:
            raise ValueError(f"policies: expected names among {', '.join([*POLICIES, *ABLATIONS])}, got {name!r}")
    if not 0 < target <= 1:
        raise ValueError(f"target attainment: expected a share in (0, 1], got {target!r}")
    global _WORKLOADS
    _WORKLOADS = workloads
    tasks = plan(workloads, policies, setup, sweep)
    runs: dict[tuple[str, str], list[RunScore]] = {}
    done = 0

    def keep(task, score: RunScore) -> None:
        nonlocal done
        runs.setdefault((task[0], task[2]), []).append(score)
        done += 1
        if on_done:
            on_done(task[0], task[2], done, len(tasks))

    if jobs <= 1:
        for task in tasks:
            keep(task, _run(task))
    else:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {pool.submit(_run, task): task for task in tasks}
            for future in as_completed(futures):
                keep(futures[future], future.result())
    results = []
    for name, per_seed in workloads.items():
        collected = [collect(p, runs.get((name, p), []), target) for p in policies]
        bounds = {w: Stat.of([fluid_bound(wl, *window_bounds(wl, setup)[w]) for wl in per_seed]) for w in WINDOWS}
        entry = WorkloadResult(name, per_seed, collected, bounds)
        entry.plots = [plots.plot_frontier(out / f"frontier-{name}.png", entry, target),
                       plots.plot_workload(out / f"timeline-{name}.png", name,
                                           [r.best.runs[0].timeline for r in collected if r.best.runs[0].timeline],
                                           setup.ttft_slo_s, per_seed[0].burst)]
        results.append(entry)
    report.write(out, results, setup, target, sweep)
    return results


def default_jobs() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8))
