"""The Kubernetes HorizontalPodAutoscaler (autoscaling/v2) as a pure function of time.

Follows kube-controller-manager's replica calculation and behaviors:
- replicas from a metric: External `AverageValue` -> ceil(total / target); External `Value` ->
  ceil(current x value / target); `Pods` -> per-pod average against the target, with pods that
  have no metric yet counted as 0 when scaling up and as the target when scaling down. Inside the
  tolerance (|ratio - 1| <= 10%) the current count is kept. Several metrics: the largest wins.
- stabilisation: the recommendation is held between the lowest recommendation of the scale-up
  window and the highest of the scale-down window (unstabilised recommendations are recorded);
- rate limits: each policy allows `value` pods (or `value`% of the replicas at the period's
  start) per `periodSeconds`, counting the scale events already made in that period; `Max`
  takes the most permissive policy, `Min` the least, `Disabled` forbids the direction;
- bounds: minReplicas and maxReplicas;
- a new HPA's scale-down window starts with the current count (no drop before one window).
The controller syncs every `sync_period_s` (kube-controller-manager's default 15 s); callers ask
`due(now)` or just call `sync` at every tick of their own clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

SELECT_POLICIES = ("Max", "Min", "Disabled")
POLICY_TYPES = ("Pods", "Percent")
METRIC_TYPES = ("AverageValue", "Value", "Pods")


@dataclass(frozen=True)
class ScalingPolicy:
    type: str  # Pods | Percent
    value: int
    period_s: float

    def __post_init__(self):
        if self.type not in POLICY_TYPES:
            raise ValueError(f"policies[].type: expected Pods or Percent, got {self.type!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 1:
            raise ValueError(f"policies[].value: expected an integer >= 1, got {self.value!r}")
        if not 0 < self.period_s <= 1800:
            raise ValueError(f"policies[].periodSeconds: expected seconds in (0, 1800], got {self.period_s!r}")


@dataclass(frozen=True)
class ScalingRules:
    stabilization_window_s: float
    policies: tuple[ScalingPolicy, ...]
    select_policy: str = "Max"

    def __post_init__(self):
        if self.select_policy not in SELECT_POLICIES:
            raise ValueError(f"selectPolicy: expected one of {'|'.join(SELECT_POLICIES)}, got {self.select_policy!r}")
        if not 0 <= self.stabilization_window_s <= 3600:
            raise ValueError(f"stabilizationWindowSeconds: expected seconds in [0, 3600], got {self.stabilization_window_s!r}")
        if not self.policies and self.select_policy != "Disabled":
            raise ValueError("policies: expected at least one policy unless selectPolicy is Disabled")


# Kubernetes' defaults when a HorizontalPodAutoscaler sets no behavior.
DEFAULT_SCALE_UP = ScalingRules(0.0, (ScalingPolicy("Pods", 4, 15.0), ScalingPolicy("Percent", 100, 15.0)), "Max")
DEFAULT_SCALE_DOWN = ScalingRules(300.0, (ScalingPolicy("Percent", 100, 15.0),), "Max")
DEFAULT_TOLERANCE = 0.1
DEFAULT_SYNC_PERIOD_S = 15.0


@dataclass(frozen=True)
class HpaSpec:
    min_replicas: int = 1
    max_replicas: int = 10
    scale_up: ScalingRules = DEFAULT_SCALE_UP
    scale_down: ScalingRules = DEFAULT_SCALE_DOWN
    tolerance: float = DEFAULT_TOLERANCE
    sync_period_s: float = DEFAULT_SYNC_PERIOD_S

    def __post_init__(self):
        if not 0 <= self.min_replicas <= self.max_replicas:
            raise ValueError(f"minReplicas: expected 0 <= minReplicas <= maxReplicas ({self.max_replicas}), got {self.min_replicas!r}")
        if self.max_replicas < 1:
            raise ValueError(f"maxReplicas: expected an integer >= 1, got {self.max_replicas!r}")
        if not 0 <= self.tolerance < 1:
            raise ValueError(f"tolerance: expected a fraction in [0, 1), got {self.tolerance!r}")
        if not self.sync_period_s > 0:
            raise ValueError(f"sync_period_s: expected seconds > 0, got {self.sync_period_s!r}")


@dataclass(frozen=True)
class Reading:
    """One metric as the HPA sees it at a sync.

    AverageValue / Value: `value` is the external metric (e.g. a Prometheus query result).
    Pods: `per_pod` holds the value of each pod that reports one; `missing_pods` counts pods
    that do not report yet (starting), handled as Kubernetes does.
    """

    metric_type: str
    target: float
    value: float = 0.0
    per_pod: tuple[float, ...] = ()
    missing_pods: int = 0

    def __post_init__(self):
        if self.metric_type not in METRIC_TYPES:
            raise ValueError(f"metricType: expected one of {'|'.join(METRIC_TYPES)}, got {self.metric_type!r}")
        if not (math.isfinite(self.target) and self.target > 0):
            raise ValueError(f"target: expected a number > 0, got {self.target!r}")


@dataclass(frozen=True)
class HpaState:
    last_sync: float | None = None
    recommendations: tuple[tuple[float, int], ...] = ()  # (time, unstabilised recommendation)
    scale_up_events: tuple[tuple[float, int], ...] = ()  # (time, replicas added)
    scale_down_events: tuple[tuple[float, int], ...] = ()  # (time, replicas removed)


@dataclass(frozen=True)
class HpaDecision:
    time: float
    current: int
    metric_replicas: int  # what the metrics ask for
    stabilized: int  # after the stabilisation windows
    desired: int  # after the rate limits and bounds: what the Deployment is set to
    reason: str
    detail: str = field(default="", compare=False)


def replicas_for(reading: Reading, current: int, tolerance: float = DEFAULT_TOLERANCE) -> int:
    """Replicas one metric asks for (kube-controller-manager's replica calculator)."""
    value = reading.value if math.isfinite(reading.value) else 0.0
    value = max(0.0, value)
    if reading.metric_type == "AverageValue":
        ratio = value / (reading.target * current) if current > 0 else math.inf
        if current > 0 and abs(1.0 - ratio) <= tolerance:
            return current
        return math.ceil(value / reading.target)
    if reading.metric_type == "Value":
        ratio = value / reading.target
        if abs(1.0 - ratio) <= tolerance:
            return current
        return math.ceil(ratio * current)
    return _pods_replicas(reading, current, tolerance)


def _pods_replicas(reading: Reading, current: int, tolerance: float) -> int:
    values = [max(0.0, v) if math.isfinite(v) else 0.0 for v in reading.per_pod]
    if not values:
        return current  # no pod reports: Kubernetes keeps the count (the metric is unavailable)
    ratio = sum(values) / (len(values) * reading.target)
    if reading.missing_pods == 0:
        if abs(1.0 - ratio) <= tolerance:
            return current
        return math.ceil(ratio * len(values))
    if abs(1.0 - ratio) <= tolerance:
        return current
    # Pods without a metric: as 0 when scaling up, as exactly the target when scaling down.
    fill = 0.0 if ratio > 1.0 else reading.target
    total = sum(values) + fill * reading.missing_pods
    count = len(values) + reading.missing_pods
    new_ratio = total / (count * reading.target)
    if abs(1.0 - new_ratio) <= tolerance or (ratio > 1.0) != (new_ratio > 1.0):
        return current
    new = math.ceil(new_ratio * count)
    # The missing pods must not turn a scale-up into a scale-down or the reverse.
    return current if (ratio > 1.0 and new < current) or (ratio < 1.0 and new > current) else new


def due(spec: HpaSpec, state: HpaState, now: float) -> bool:
    return state.last_sync is None or now - state.last_sync >= spec.sync_period_s - 1e-9


def sync(spec: HpaSpec, state: HpaState, now: float, current: int, readings: list[Reading]) -> tuple[HpaDecision, HpaState]:
    """One HPA reconcile: metrics -> recommendation -> stabilisation -> rate limits -> bounds."""
    if current == 0 and spec.min_replicas > 0:
        # Kubernetes: "scaling is disabled since the replica count of the target is zero".
        decision = HpaDecision(now, 0, 0, 0, 0, "ScalingDisabled", "the target has 0 replicas")
        return decision, replace(state, last_sync=now)
    metric = max((replicas_for(r, current, spec.tolerance) for r in readings), default=current)
    recommendations = state.recommendations
    if state.last_sync is None and not recommendations:
        # Kubernetes seeds the scale-down window with the current count when it first sees an HPA,
        # so a new autoscaler does not drop replicas before it has a window of history.
        recommendations = ((now, current),)
    stabilized, recommendations = _stabilize(spec, recommendations, now, current, metric)
    desired, reason = _rate_limit(spec, state, now, current, stabilized)
    up, down = _prune(spec, state, now)
    if desired > current:
        up = up + ((now, desired - current),)
    elif desired < current:
        down = down + ((now, current - desired),)
    detail = f"metrics ask {metric}, stabilised {stabilized}, set {desired} (was {current})"
    decision = HpaDecision(now, current, metric, stabilized, desired, reason, detail)
    return decision, HpaState(now, recommendations, up, down)


def _stabilize(spec: HpaSpec, recs, now: float, current: int, metric: int):
    up_cutoff = now - spec.scale_up.stabilization_window_s
    down_cutoff = now - spec.scale_down.stabilization_window_s
    up_rec = down_rec = metric
    for time, rec in recs:
        if time > up_cutoff:
            up_rec = min(up_rec, rec)
        if time > down_cutoff:
            down_rec = max(down_rec, rec)
    stabilized = min(max(current, up_rec), down_rec)
    keep_from = min(up_cutoff, down_cutoff)
    kept = tuple((t, r) for t, r in recs if t > keep_from) + ((now, metric),)
    return stabilized, kept


def _changed_in(events, period_s: float, now: float) -> int:
    return sum(n for t, n in events if t > now - period_s)


def _limit(rules: ScalingRules, current: int, added: callable, removed: callable, up: bool) -> int:
    proposals = []
    for policy in rules.policies:
        start = current - added(policy.period_s) + removed(policy.period_s)
        if policy.type == "Pods":
            proposals.append(start + policy.value if up else start - policy.value)
        elif up:
            proposals.append(math.ceil(start * (1 + policy.value / 100)))
        else:
            proposals.append(int(start * (1 - policy.value / 100)))
    most = max if up else min  # the largest change
    least = min if up else max
    return (most if rules.select_policy == "Max" else least)(proposals)


def _rate_limit(spec: HpaSpec, state: HpaState, now: float, current: int, desired: int) -> tuple[int, str]:
    added = lambda period: _changed_in(state.scale_up_events, period, now)  # noqa: E731
    removed = lambda period: _changed_in(state.scale_down_events, period, now)  # noqa: E731
    if desired > current:
        if spec.scale_up.select_policy == "Disabled":
            return current, "ScaleUpDisabled"
        limit = max(current, _limit(spec.scale_up, current, added, removed, up=True))
        ceiling, reason = (limit, "ScaleUpLimit") if limit < spec.max_replicas else (spec.max_replicas, "TooManyReplicas")
        return (ceiling, reason) if desired > ceiling else (desired, "DesiredWithinRange")
    if desired < current:
        if spec.scale_down.select_policy == "Disabled":
            return current, "ScaleDownDisabled"
        limit = min(current, _limit(spec.scale_down, current, added, removed, up=False))
        floor, reason = (limit, "ScaleDownLimit") if limit > spec.min_replicas else (spec.min_replicas, "TooFewReplicas")
        return (floor, reason) if desired < floor else (desired, "DesiredWithinRange")
    bounded = min(max(desired, spec.min_replicas), spec.max_replicas)
    return bounded, "DesiredWithinRange" if bounded == desired else "OutOfBounds"


def _prune(spec: HpaSpec, state: HpaState, now: float):
    longest = max([p.period_s for p in spec.scale_up.policies + spec.scale_down.policies], default=0.0)
    up = tuple(e for e in state.scale_up_events if e[0] > now - longest)
    down = tuple(e for e in state.scale_down_events if e[0] > now - longest)
    return up, down
