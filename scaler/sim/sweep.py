"""The tuning protocol every policy goes through, and the points it reports.

Each workload is split by time: the first third tunes, the rest evaluates. Every policy runs
over the whole workload once per knob value and seed; a run is scored on each window
separately. A policy's tuned value is the cheapest (mean GPU-seconds on the tuning window) that
meets the target attainment on the tuning window, else the one with the highest attainment; its
score is the evaluation window's. Seeds vary cold-start draws, sampled request lengths and the
phase of every periodic clock; points report the mean over seeds and the min-max.

The fluid bound is the GPU-seconds no policy can go below: the window's offered requests over
one replica's saturated throughput (work conserving, never idle, no cold start, no batch limit).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace

from scaler.sim.clocks import Phases
from scaler.sim.metrics import Summary, Timeline, WindowScore, summarize, timeline, window_score
from scaler.sim.policies import PolicyContext, make, policy_class
from scaler.sim.setup import Setup
from scaler.sim.simulation import conservation, simulate
from scaler.sim.workload import Workload

TUNE_SHARE = 1.0 / 3.0
WINDOWS = ("tune", "eval")
# What a window reports, averaged over seeds with its min and max.
WINDOW_FIELDS = ("slo_attainment", "ttft_attainment", "gpu_seconds", "gpu_seconds_after_traffic", "ttft_p99_s",
                 "tpot_p99_s", "refusal_rate")


def tune_end(workload: Workload) -> float:
    return workload.duration_s * TUNE_SHARE


def window_bounds(workload: Workload, setup: Setup) -> dict[str, tuple[float, float]]:
    """tune = [0, a third of the workload); eval = the rest, to the horizon (workload end + tail)."""
    split = tune_end(workload)
    last = workload.arrivals[-1].time if workload.arrivals else 0.0
    return {"tune": (0.0, split), "eval": (split, max(last, workload.duration_s) + setup.tail_s)}


def context(workload: Workload, setup: Setup, seed: int, phases: bool = True) -> PolicyContext:
    return PolicyContext(setup, workload.sizing, workload.calibration, workload.arrivals, seed,
                         Phases.for_seed(seed) if phases else Phases(), tune_end(workload))


@dataclass(frozen=True)
class RunScore:
    policy: str
    knob_value: float
    seed: int
    windows: dict[str, WindowScore]
    summary: Summary  # the whole run, for the details table
    details: dict
    timeline: Timeline | None = None


def run_point(workload: Workload, policy: str, knob_value: float | None, setup: Setup, seed: int,
              keep_timeline: bool = False) -> RunScore:
    """One run of `policy` at `knob_value` on the workload built for `seed`."""
    setup = replace(setup, seed=seed)
    ctx = context(workload, setup, seed)
    instance = make(policy, ctx, knob_value)
    record = simulate(workload, instance, setup)
    windows = {name: window_score(record, a, b, setup.ttft_slo_s, setup.tpot_slo_s)
               for name, (a, b) in window_bounds(workload, setup).items()}
    summary = summarize(record, setup.ttft_slo_s, workload.burst, workload.duration_s, setup.tpot_slo_s)
    details = {"policy": policy, "knob_value": instance.knob_value, "seed": seed, "outcomes": conservation(record),
               "engine_steps": record.engine_steps, "simulated_s": record.end_time,
               "policy_summary": record.policy_summary, "scale_events": record.scale_events}
    return RunScore(policy, instance.knob_value, seed, windows, summary, details,
                    timeline(record) if keep_timeline else None)


@dataclass(frozen=True)
class Stat:
    mean: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, values: list[float | None]) -> Stat:
        known = [v for v in values if v is not None]
        if not known:
            return cls(None, None, None)
        return cls(statistics.fmean(known), min(known), max(known))


@dataclass
class Point:
    """One knob value of one policy, over seeds."""

    policy: str
    knob: str
    knob_value: float
    runs: list[RunScore] = field(default_factory=list)

    def stat(self, window: str, name: str) -> Stat:
        return Stat.of([getattr(r.windows[window], name) for r in self.runs])

    def mean(self, window: str, name: str) -> float:
        return self.stat(window, name).mean

    def holds(self, window: str, target: float) -> bool:
        return self.mean(window, "slo_attainment") >= target - 1e-12


def tuned(points: list[Point], target: float) -> Point:
    """The cheapest point (tuning-window GPU-seconds) meeting `target` on the tuning window, else the
    one with the highest tuning-window attainment (then the cheapest of those)."""
    if not points:
        raise ValueError("points: expected at least one point to tune over")
    meeting = [p for p in points if p.holds("tune", target)]
    if meeting:
        return min(meeting, key=lambda p: (p.mean("tune", "gpu_seconds"), p.knob_value))
    return max(points, key=lambda p: (p.mean("tune", "slo_attainment"), -p.mean("tune", "gpu_seconds")))


def fluid_bound(workload: Workload, start: float, end: float) -> float:
    """GPU-seconds below every policy's: the window's offered requests at one replica's saturated rate."""
    offered = sum(1 for a in workload.arrivals if start <= a.time < end)
    return offered / workload.sizing.capacity_rps


def grid(policy: str, workload: Workload, setup: Setup, sweep: bool) -> tuple[float | None, ...]:
    """The knob values to run: the policy's grid with --sweep, its default otherwise (static is
    defined by its search, so it always runs its grid)."""
    cls = policy_class(policy)
    if sweep or policy == "static":
        return cls.grid(context(workload, setup, 0, phases=False)) or (None,)
    return (None,)


@dataclass
class PolicyResult:
    policy: str
    knob: str
    points: list[Point]
    best: Point


def collect(policy: str, runs: list[RunScore], target: float) -> PolicyResult:
    by_value: dict[float, Point] = {}
    knob = policy_class(policy).knob
    for run in runs:
        by_value.setdefault(run.knob_value, Point(policy, knob, run.knob_value)).runs.append(run)
    points = [by_value[v] for v in sorted(by_value)]
    for p in points:
        p.runs.sort(key=lambda r: r.seed)
    return PolicyResult(policy, knob, points, tuned(points, target))
