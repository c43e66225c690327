"""`clairvoyant`: knows every future arrival and pays the same cold starts; a heuristic with
perfect knowledge, not a bound (the fluid bound in scaler/sim/sweep.py is the bound).

It sets the replica count directly (no metric pipeline, no HPA) to what the coming arrivals
need: for each 10 s window, ceil(arrivals per second / (capacity x planning level)), and at
time t it holds the largest need of the windows it could still affect, up to t + the 95th
percentile of the cold-start distribution + one window. So capacity is asked for one cold start
ahead, and released as soon as no window it could serve needs it. No shedding. Its knob, the
planning level, is the share of a replica's saturated throughput it plans to use.
"""

from __future__ import annotations

import math

from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext
from scaler.workloads import rate_profile

WINDOW_S = 10.0


class Clairvoyant(Policy):
    name = "clairvoyant"
    knob = "planning level (share of saturated throughput)"
    knob_default = 0.8
    knob_grid = (0.6, 0.7, 0.8, 0.9, 1.0)

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value)
        duration = max([a.time for a in ctx.arrivals], default=0.0) + WINDOW_S
        rates = rate_profile(list(ctx.arrivals), WINDOW_S, duration)
        planned = ctx.sizing.capacity_rps * self.knob_value
        self._need = [max(1, math.ceil(r / planned - 1e-9)) for r in rates]
        self._lookahead = ctx.setup.cold_start.quantile(0.95) + WINDOW_S

    def _wanted(self, start: float) -> int:
        first = int(start // WINDOW_S)
        last = int((start + self._lookahead) // WINDOW_S)
        window = self._need[first:last + 1]
        return max(window) if window else self.min_replicas

    @property
    def max_replicas(self) -> int:
        return max(self._need, default=1)

    def initial_replicas(self) -> int:
        return min(max(self._wanted(0.0), self.min_replicas), self.max_replicas)

    def control(self, now: float, view: FleetView) -> int | None:
        return min(max(self._wanted(now), self.min_replicas), self.max_replicas)
