"""The HPA behaviour that goes with this policy's demand: one definition for `render`, the
simulator and the demo.

Demand is already in replicas and already holds ready replicas for one scale-up latency after
anything last needed them (decide's release rule: a replica released sooner could not come back
in time), so the HPA adds no hold of its own beyond one sync: it goes up at once (double or +4
pods per 15 s, whichever is more) and follows a lower demand within a sync, which is what lets
replicas still starting be cancelled when the need that asked for them is gone. The anti-flap
window is the scale-up latency, measured or configured, not a fixed 300 s.
"""

from __future__ import annotations

from dataclasses import dataclass

SYNC_S = 15.0  # the HPA's sync period (kube-controller-manager's default)


@dataclass(frozen=True)
class Rule:
    type: str  # Pods | Percent
    value: int
    period_s: float


@dataclass(frozen=True)
class Direction:
    stabilization_window_s: float
    select_policy: str
    policies: tuple[Rule, ...]


SCALE_UP = Direction(0.0, "Max", (Rule("Percent", 100, SYNC_S), Rule("Pods", 4, SYNC_S)))
SCALE_DOWN = Direction(SYNC_S, "Max", (Rule("Percent", 100, SYNC_S),))
