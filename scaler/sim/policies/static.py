"""Fixed fleets (no shedding, never scaled).

- `static`: a fixed number of replicas, the knob. Swept over every count from what the mean
  rate needs at saturated throughput up to the peak size, and tuned like every other policy, it
  is "the cheapest static fleet that holds the target".
- `static-peak`: a labelled reference, not a tuned policy: sized for the busiest 10 s of the
  whole workload (one replica planned at `target_utilization` of its calibrated capacity), the
  usual fallback when autoscaling is distrusted.
"""

from __future__ import annotations

import math

from scaler.sim.policies.base import Policy, PolicyContext


class StaticFleet(Policy):
    name = "static"
    knob = "replicas"
    knob_default = 1.0  # replaced by the peak size: a fixed fleet has no upstream default

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, float(ctx.sizing.peak) if knob_value is None else knob_value)

    @classmethod
    def grid(cls, ctx: PolicyContext) -> tuple[float, ...]:
        duration = max((a.time for a in ctx.arrivals), default=0.0) + 1.0
        low = max(1, math.ceil(len(ctx.arrivals) / duration / ctx.sizing.capacity_rps - 1e-9))
        return tuple(float(n) for n in range(min(low, ctx.sizing.peak), ctx.sizing.peak + 1))

    @property
    def max_replicas(self) -> int:
        return int(self.knob_value)

    def initial_replicas(self) -> int:
        return int(self.knob_value)

    def control(self, now, view):
        return None


class StaticPeak(StaticFleet):
    name = "static-peak"

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, float(ctx.sizing.peak))

    @classmethod
    def grid(cls, ctx: PolicyContext) -> tuple[float, ...]:
        return (float(ctx.sizing.peak),)
