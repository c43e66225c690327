"""The queue-SLO decision: budget, estimated wait, demand, pressure, GREEN/YELLOW/RED.

`decide(config, window, state, now)` is a pure function: it reads the window of snapshots and the
previous explicit state, and returns a Decision (frozen, with its reason) and the next state.
The formulas and a worked example are in docs/policy.md.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import Enum

from scaler.policy.config import PolicyConfig
from scaler.policy.queue import drain_time, peak_wait
from scaler.policy.signals import SignalWindow

# A linear trend measured over seconds must not extrapolate into a wall over a minute.
MAX_FORECAST_GROWTH = 3.0
# Learned values move by this fraction of each new sample (EWMA), so one odd sample cannot swing them.
LEARN_RATE = 0.3
RETRY_AFTER_BOUNDS_S = (1.0, 60.0)


class State(str, Enum):
    GREEN = "GREEN"
    YELLOW = "YELLOW"
    RED = "RED"
    UNKNOWN = "UNKNOWN"  # no or stale evidence: set by the server, never by decide(); sheds nothing

    @property
    def severity(self) -> int:
        """GREEN < YELLOW < RED; UNKNOWN is below GREEN, so any evidence escalates from it."""
        return ("UNKNOWN", "GREEN", "YELLOW", "RED").index(self.value) - 1


@dataclass(frozen=True)
class ModelState:
    """What the policy carries between ticks of one model."""

    state: State = State.GREEN
    since: float | None = None
    relax_since: float | None = None  # when the condition to relax was first seen, held since
    learned_capacity_rps: float | None = None
    learned_scale_up_s: float | None = None
    learned_concurrency: float | None = None
    pending_since: tuple[float, ...] = ()  # when each replica not yet ready was asked for, oldest first
    last_ready: int = 0


@dataclass(frozen=True)
class Decision:
    model: str
    time: float
    state: State
    reason: str  # a stable code, for metrics labels
    detail: str  # one sentence with the numbers, for logs
    waiting: float
    running: float
    ready_replicas: int
    starting_replicas: int
    completion_rps: float
    arrival_rps: float
    capacity_rps: float | None
    capacity_source: str
    scale_up_latency_s: float
    budget_s: float
    wait_s: float  # estimated wait of a request arriving now
    peak_wait_s: float  # worst wait before capacity asked for now could arrive
    demand: float  # replica-equivalents; KEDA AverageValue target 1 => desired = ceil(demand)
    pressure: float  # demand / ready replicas, for people and dashboards
    admission_rps: float | None  # RED only: what current capacity drains within budget
    retry_after_s: float
    state_changed: bool = False
    previous_state: State | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def active(self) -> bool:
        return self.demand > 0 or self.waiting + self.running > 0 or self.arrival_rps > 0

    def log_fields(self) -> dict:
        out = asdict(self)
        out["state"] = self.state.value
        out["previous_state"] = self.previous_state.value if self.previous_state else None
        return {k: (round(v, 4) if isinstance(v, float) and math.isfinite(v) else v) for k, v in out.items()}


def decide(model: str, config: PolicyConfig, window: SignalWindow, state: ModelState, now: float) -> tuple[Decision, ModelState]:
    snap = window.latest
    if snap is None:
        raise ValueError("decide: the window holds no snapshot yet")
    rates = window.rates()
    mu = rates.completion_rps if rates else 0.0
    lam = rates.arrival_rps if rates else 0.0
    trend = rates.arrival_trend_rps2 if rates else 0.0
    ready, waiting, running = snap.ready_replicas, snap.waiting, snap.running
    budget = config.budget_s
    notes: list[str] = []

    # Replicas becoming ready teach us the scale-up latency (the oldest request is served first).
    previous = list(state.pending_since)
    became_ready = max(0, ready - state.last_ready)
    learned_l = state.learned_scale_up_s
    for asked in previous[:became_ready]:
        sample = now - asked
        learned_l = _learn(learned_l, sample)
        notes.append(f"replica ready after {sample:.1f}s")
    if snap.starting_ages is not None:
        pending = sorted(now - age for age in snap.starting_ages)
    else:
        pending = previous[became_ready:]
    scale_up = config.scale_up_latency_s
    if scale_up is None:
        scale_up = learned_l if learned_l is not None else config.scale_up_prior_s

    # A saturated window (queue non-empty for a while) shows what a replica can do and how many
    # requests its batch holds.
    learned_c, learned_s = state.learned_capacity_rps, state.learned_concurrency
    history_s = rates.span_s if rates else 0.0
    if ready > 0 and window.queue_sustained():
        learned_s = _learn(learned_s, running / ready)
        if mu > 0 and history_s >= config.rate_window_s / 2:
            learned_c = _learn(learned_c, mu / ready)
    capacity, capacity_source = _capacity(config, learned_c)
    slots = config.max_concurrency if config.max_concurrency is not None else learned_s

    # A replica past its expected scale-up latency is late for a reason we cannot see (no GPU,
    # image pull): count no capacity from it until it is actually ready.
    remaining = [scale_up - (now - asked) for asked in pending if now - asked < scale_up]
    if len(remaining) < len(pending):
        notes.append(f"{len(pending) - len(remaining)} replica(s) overdue past {scale_up:.0f}s")
    drain_rps = max(mu, ready * capacity) if capacity else mu
    step = capacity or (mu / ready if ready else 0.0)
    absorb = slots or 0.0
    stalled = waiting > 0 and ready > 0 and mu == 0 and history_s >= config.rate_window_s / 2
    if stalled:
        wait = peak = math.inf
    else:
        wait = drain_time(waiting, drain_rps, step, remaining, absorb)
        if history_s < config.rate_window_s / 2:
            # Rates from a few seconds of data are noise: judge the queue as it stands.
            peak = wait
            notes.append(f"projection waits for {config.rate_window_s / 2:.0f}s of history")
        else:
            # Requests beyond what the ready batches hold; free slots (negative) fill first.
            if slots is not None:
                excess = waiting + running - ready * slots
            else:
                excess = waiting if waiting > 0 else -math.inf
            peak = peak_wait(excess, lam, trend, drain_rps, step, remaining, scale_up, absorb=absorb,
                             max_arrival_rps=MAX_FORECAST_GROWTH * lam)

    demand = _demand(config, lam, trend, waiting, running, ready, capacity, scale_up, budget)
    pressure = demand / max(ready, 1)

    target, reason, detail = _target_state(config, wait, peak, lam, drain_rps, stalled, ready, waiting, budget)
    new_state, reason, detail, relax_since = _hysteresis(config, state, target, reason, detail, peak, now, budget)
    changed = new_state != state.state

    until_capacity = min(remaining) if remaining else scale_up
    admission, retry = _admission_and_retry(config, new_state, waiting, running, ready, slots, drain_rps,
                                            peak, until_capacity)

    # Replicas asked for but not ready: what KEDA will start for ceil(demand).
    if snap.starting_ages is None:
        want = max(0, math.ceil(demand) - ready)
        pending = pending[:want] + [now] * max(0, want - len(pending))

    decision = Decision(
        model=model, time=now, state=new_state, reason=reason, detail=detail,
        waiting=waiting, running=running, ready_replicas=ready, starting_replicas=len(pending),
        completion_rps=mu, arrival_rps=lam, capacity_rps=capacity, capacity_source=capacity_source,
        scale_up_latency_s=scale_up, budget_s=budget, wait_s=wait, peak_wait_s=peak,
        demand=demand, pressure=pressure, admission_rps=admission, retry_after_s=retry,
        state_changed=changed, previous_state=state.state if changed else None, notes=tuple(notes),
    )
    next_state = ModelState(
        state=new_state,
        since=now if changed or state.since is None else state.since,
        relax_since=relax_since,
        learned_capacity_rps=learned_c,
        learned_scale_up_s=learned_l,
        learned_concurrency=learned_s,
        pending_since=tuple(pending),
        last_ready=ready,
    )
    return decision, next_state


def _capacity(config: PolicyConfig, learned: float | None) -> tuple[float | None, str]:
    if config.per_replica_capacity_rps is not None:
        return config.per_replica_capacity_rps, "configured"
    if learned is not None:
        return learned, "learned"
    if config.capacity_prior_rps is not None:
        return config.capacity_prior_rps, "prior"
    return None, "unknown"


def _admission_and_retry(config, state, waiting, running, ready, slots, drain_rps, peak, until_capacity):
    """The RED admission rate and the Retry-After for refused requests (docs/policy.md)."""
    budget = config.budget_s
    # What current capacity can take within budget: the drain rate, plus free batch slots (they
    # start requests at once) spread until capacity arrives, or minus the queue beyond what
    # drains within budget, removed within one budget.
    free_slots = max(0.0, ready * slots - running - waiting) if slots is not None else 0.0
    queued_excess = max(0.0, waiting - drain_rps * budget * config.red_exit_ratio)
    admission = None
    if state is State.RED:
        if free_slots > 0:
            admission = drain_rps + free_slots / max(until_capacity, budget)
        else:
            admission = max(0.0, drain_rps - queued_excess / budget)
    # Come back when the excess has drained: the queue beyond what drains within budget now, or
    # the projected wait beyond budget; or when capacity arrives, if that is sooner.
    drain_excess = queued_excess / drain_rps if drain_rps > 0 else math.inf
    retry = min(max(drain_excess, peak - budget), until_capacity)
    return admission, min(max(retry, RETRY_AFTER_BOUNDS_S[0]), RETRY_AFTER_BOUNDS_S[1])


def _learn(current: float | None, sample: float) -> float:
    return sample if current is None else current + LEARN_RATE * (sample - current)


def _demand(config, lam, trend, waiting, running, ready, capacity, scale_up, budget) -> float:
    """Replica-equivalents the SLO needs once capacity asked for now is ready."""
    if capacity is None:
        # Without a capacity we cannot convert rates into replicas: grow with the queue only.
        if ready == 0:
            return 1.0 if waiting + running > 0 or lam > 0 else 0.0
        return ready * (running + waiting) / running if waiting > 0 and running > 0 else float(ready)
    forecast = min(lam + max(0.0, trend) * scale_up, MAX_FORECAST_GROWTH * lam) if lam > 0 else 0.0
    backlog_rps = waiting / max(config.backlog_drain_ratio * budget, scale_up)
    return (forecast + backlog_rps) / (capacity * config.target_utilization)


def _target_state(config, wait, peak, lam, drain_rps, stalled, ready, waiting, budget):
    if stalled:
        return State.RED, "queue-stalled", f"{waiting:.0f} waiting and no completion in the window"
    if peak >= config.red_enter_ratio * budget:
        where = "now" if wait >= config.red_enter_ratio * budget else "before new capacity can arrive"
        return State.RED, "wait-exceeds-budget", (
            f"estimated wait {_fmt(peak)} >= {config.red_enter_ratio:g} x budget {budget:.2f}s {where}"
            f" (arrivals {lam:.2f}/s, drain {drain_rps:.2f}/s, {ready} ready)")
    growing = lam > drain_rps
    if peak >= config.yellow_enter_ratio * budget and growing:
        return State.YELLOW, "queue-growing", (
            f"estimated wait {_fmt(peak)} >= {config.yellow_enter_ratio:g} x budget and arrivals "
            f"{lam:.2f}/s outpace drain {drain_rps:.2f}/s")
    return State.GREEN, "within-budget", f"estimated wait {_fmt(peak)} within budget {budget:.2f}s"


def _relax_target(config, current: State, peak: float, budget: float) -> State | None:
    if peak < config.yellow_exit_ratio * budget:
        return State.GREEN
    if current is State.RED and peak < config.red_exit_ratio * budget:
        return State.YELLOW
    return None


def _hysteresis(config, state: ModelState, target: State, reason, detail, peak, now, budget):
    """Escalate at once; relax only after the exit condition held for `state_hold_s`."""
    current = state.state
    if target.severity >= current.severity:
        return target, reason, detail, None
    relax = _relax_target(config, current, peak, budget)
    if relax is None:
        return current, f"holding-{current.value.lower()}", (
            f"estimated wait {_fmt(peak)} not yet under the exit threshold of {current.value}"), None
    since = state.relax_since if state.relax_since is not None else now
    if now - since >= config.state_hold_s:
        return relax, "recovered", f"estimated wait {_fmt(peak)} under the exit threshold for {now - since:.0f}s", None
    return current, f"holding-{current.value.lower()}", (
        f"exit condition held {now - since:.0f}s of {config.state_hold_s:.0f}s"), since


def _fmt(seconds: float) -> str:
    return "unbounded" if math.isinf(seconds) else f"{seconds:.2f}s"
