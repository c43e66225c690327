"""Observations of one model and the windowed rates the policy needs.

A Snapshot is what a source saw at one instant, summed over the model's ready replicas. The
SignalWindow keeps the snapshots of the last `rate_window_s` seconds and turns counters into
rates, treating a counter that went down as a reset (a replica restarted), never as negative work.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass


# How many standard deviations of Poisson noise a change in arrival rate must exceed to count.
TREND_MIN_Z = 3.0
# Consecutive snapshots with a non-empty queue before the batch counts as full.
SUSTAINED_SNAPSHOTS = 3
# The output token rate describes the batch as it is now: over the last few seconds only.
RECENT_S = 5.0


@dataclass(frozen=True)
class Snapshot:
    time: float
    waiting: float
    running: float
    ready_replicas: int
    # vllm:request_success_total summed over replicas (a counter); None when the source lacks it.
    completed_total: float | None = None
    # Requests the rate-limit service admitted (a counter); exact arrivals when Envoy is wired.
    arrivals_total: float | None = None
    # Seconds each replica still starting has been starting; None when the source cannot see pods.
    starting_ages: tuple[float, ...] | None = None
    # Prompt tokens of requests not yet at their first token (llm-d EPP's in-flight tokens);
    # None when the source lacks it (the predictor then counts waiting requests).
    prompt_tokens_in_flight: float | None = None
    # vllm:generation_tokens_total summed over replicas (a counter); None when the source lacks it.
    generation_tokens_total: float | None = None

    def __post_init__(self):
        for name in ("time", "waiting", "running"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"Snapshot.{name}: expected a finite number >= 0, got {value!r}")
        if self.ready_replicas < 0:
            raise ValueError(f"Snapshot.ready_replicas: expected >= 0, got {self.ready_replicas!r}")


@dataclass(frozen=True)
class Rates:
    completion_rps: float  # mu
    arrival_rps: float  # lambda
    arrival_trend_rps2: float  # d lambda / dt, for the forecast over the scale-up horizon
    span_s: float  # how much history the rates rest on
    arrivals_exact: bool  # counted by the RLS rather than inferred from the queue
    generation_tps: float | None = None  # output tokens per second over the last RECENT_S (or the last two readings); None without the counter


def _counter_increase(values: list[tuple[float, float]]) -> float:
    total = 0.0
    for (_, prev), (_, cur) in zip(values, values[1:]):
        total += cur - prev if cur >= prev else cur  # a drop is a reset: the new value is all new
    return total


class SignalWindow:
    """The snapshots of the last `span_s` seconds of one model, oldest first."""

    def __init__(self, span_s: float):
        self.span_s = span_s
        self._snapshots: deque[Snapshot] = deque()

    def push(self, snapshot: Snapshot) -> None:
        if self._snapshots and snapshot.time <= self._snapshots[-1].time:
            return  # the same scrape seen twice (a cached source): no new information
        self._snapshots.append(snapshot)
        while len(self._snapshots) > 2 and snapshot.time - self._snapshots[1].time >= self.span_s:
            self._snapshots.popleft()

    @property
    def latest(self) -> Snapshot | None:
        return self._snapshots[-1] if self._snapshots else None

    def __len__(self) -> int:
        return len(self._snapshots)

    def queue_sustained(self, n: int = SUSTAINED_SNAPSHOTS) -> bool:
        """Requests waited in each of the last `n` snapshots: the batch is full, not merely
        between two scheduler steps (vLLM shows a request as waiting until the next step)."""
        recent = list(self._snapshots)[-n:]
        return len(recent) == n and all(s.waiting > 0 for s in recent)

    def rates(self) -> Rates | None:
        snaps = list(self._snapshots)
        if len(snaps) < 2:
            return None
        return _rates(snaps)


def _completion_rate(snaps: list[Snapshot]) -> float:
    done = [(s.time, s.completed_total) for s in snaps if s.completed_total is not None]
    span = snaps[-1].time - snaps[0].time
    return _counter_increase(done) / span if len(done) >= 2 and span > 0 else 0.0


def _generation_rate(snaps: list[Snapshot]) -> float | None:
    """Output tokens/s over the last RECENT_S, or over the last two readings when they are further
    apart (Prometheus scraping every 15-30 s: one scrape interval is the freshest rate it has)."""
    made = [(s.time, s.generation_tokens_total) for s in snaps if s.generation_tokens_total is not None]
    if len(made) < 2:
        return None
    recent = [m for m in made if made[-1][0] - m[0] <= RECENT_S + 1e-9]
    made = recent if len(recent) >= 2 else made[-2:]
    span = made[-1][0] - made[0][0]
    return _counter_increase(made) / span if span > 0 else None


def _arrival_rate(snaps: list[Snapshot]) -> tuple[float, bool]:
    """Exact from the RLS counter when present, else what finished plus what the queue grew by."""
    span = snaps[-1].time - snaps[0].time
    if span <= 0:
        return 0.0, False
    arrived = [(s.time, s.arrivals_total) for s in snaps if s.arrivals_total is not None]
    if len(arrived) >= 2:
        return _counter_increase(arrived) / span, True
    growth = (snaps[-1].waiting + snaps[-1].running) - (snaps[0].waiting + snaps[0].running)
    return max(0.0, _completion_rate(snaps) + growth / span), False


def _rates(snaps: list[Snapshot]) -> Rates:
    lam, exact = _arrival_rate(snaps)
    return Rates(
        completion_rps=_completion_rate(snaps),
        arrival_rps=lam,
        arrival_trend_rps2=_trend(snaps),
        span_s=snaps[-1].time - snaps[0].time,
        arrivals_exact=exact,
        generation_tps=_generation_rate(snaps),
    )


def _trend(snaps: list[Snapshot]) -> float:
    """Late-half minus early-half arrival rate per second, kept only when it stands out of the
    Poisson noise of the counts (|z| >= TREND_MIN_Z); noise projected over a scale-up horizon
    would otherwise ratchet the fleet up."""
    if len(snaps) < 4:
        return 0.0
    mid = len(snaps) // 2
    early, late = snaps[: mid + 1], snaps[mid:]
    early_s, late_s = early[-1].time - early[0].time, late[-1].time - late[0].time
    if early_s <= 0 or late_s <= 0:
        return 0.0
    early_rps, late_rps = _arrival_rate(early)[0], _arrival_rate(late)[0]
    noise = math.sqrt(early_rps / early_s + late_rps / late_s)
    if noise == 0 or abs(late_rps - early_rps) < TREND_MIN_Z * noise:
        return 0.0
    return (late_rps - early_rps) / ((early_s + late_s) / 2)
