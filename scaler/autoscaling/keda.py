"""KEDA's ScaledObject on top of the HPA, as a pure step function of time.

What KEDA adds to the HPA (v2.17+):
- every `pollingInterval` (default 30 s) it asks each trigger whether it is active; with
  `minReplicaCount: 0` it scales 0 -> 1 at the first active poll and back to 0 once no trigger
  has been active for `cooldownPeriod` (default 300 s). Above zero the HPA owns the count;
- the HPA it creates reads each trigger as an External metric (metricType AverageValue by
  default) at every HPA sync. Without `useCachedMetrics` the value is fetched fresh from the
  scaler at that moment; with it, the value of the last poll is served.
So for a Prometheus trigger the metric lag is: the scrape interval (age of the newest sample)
plus up to one HPA sync period, not the pollingInterval.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from scaler.autoscaling import hpa
from scaler.autoscaling.hpa import HpaDecision, HpaSpec, HpaState, Reading

DEFAULT_POLLING_INTERVAL_S = 30.0
DEFAULT_COOLDOWN_PERIOD_S = 300.0


@dataclass(frozen=True)
class Trigger:
    """One ScaledObject trigger's reading: the HPA reading plus KEDA's activation threshold."""

    reading: Reading
    activation_threshold: float = 0.0

    @property
    def active(self) -> bool:
        if self.reading.metric_type == "Pods":
            return sum(self.reading.per_pod) > self.activation_threshold
        return self.reading.value > self.activation_threshold


@dataclass(frozen=True)
class KedaSpec:
    hpa: HpaSpec = field(default_factory=HpaSpec)  # minReplicaCount/maxReplicaCount live here
    polling_interval_s: float = DEFAULT_POLLING_INTERVAL_S
    cooldown_period_s: float = DEFAULT_COOLDOWN_PERIOD_S
    use_cached_metrics: bool = False

    def __post_init__(self):
        if not self.polling_interval_s > 0:
            raise ValueError(f"pollingInterval: expected seconds > 0, got {self.polling_interval_s!r}")
        if not self.cooldown_period_s >= 0:
            raise ValueError(f"cooldownPeriod: expected seconds >= 0, got {self.cooldown_period_s!r}")


@dataclass(frozen=True)
class KedaState:
    hpa: HpaState = field(default_factory=HpaState)
    last_poll: float | None = None
    last_active: float | None = None
    cached: tuple[Trigger, ...] = ()


@dataclass(frozen=True)
class ScaleStep:
    """What one call did: `replicas` is the count to set (None: leave it), with the reason."""

    time: float
    replicas: int | None
    reason: str
    hpa: HpaDecision | None = None


def step(spec: KedaSpec, state: KedaState, now: float, current: int,
         read: Callable[[], Sequence[Trigger]]) -> tuple[ScaleStep, KedaState]:
    """Advance KEDA and its HPA to `now`. `read()` returns the triggers' values at `now`; it is
    called only when a poll or an HPA sync is due, so callers may make it expensive."""
    readings: Sequence[Trigger] | None = None
    polled = state.last_poll is None or now - state.last_poll >= spec.polling_interval_s - 1e-9
    if polled:
        readings = tuple(read())
        active = any(t.active for t in readings)
        last_active = now if active else state.last_active
        state = replace(state, last_poll=now, last_active=last_active, cached=readings)
        if spec.hpa.min_replicas == 0:
            if current == 0 and active:
                return ScaleStep(now, 1, "activated"), state
            idle_for = now - (state.last_active if state.last_active is not None else -float("inf"))
            if current > 0 and not active and idle_for >= spec.cooldown_period_s:
                return ScaleStep(now, 0, "deactivated after cooldownPeriod"), state
    if current == 0 or not hpa.due(spec.hpa, state.hpa, now):
        return ScaleStep(now, None, "waiting"), state
    if spec.use_cached_metrics and state.cached:
        triggers = state.cached
    else:
        triggers = readings if readings is not None else tuple(read())
    decision, hpa_state = hpa.sync(spec.hpa, state.hpa, now, current, [t.reading for t in triggers])
    state = replace(state, hpa=hpa_state)
    replicas = decision.desired if decision.desired != current else None
    return ScaleStep(now, replicas, decision.reason, decision), state
