"""`oracle`: knows every future arrival, pays the same cold starts; the reference bound.

It sets the replica count directly (no metric pipeline, no HPA) to what the coming arrivals
need: for each 10 s window, ceil(arrivals per second / planned rate per replica), the same
sizing rule as static-peak, and at time t it holds the largest need of the windows it could
still affect, up to t + the 95th percentile of the cold-start distribution + one window. So
capacity is asked for one cold start ahead, and released as soon as no window it could serve
needs it. No shedding.
"""

from __future__ import annotations

import math

from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext
from scaler.workloads import rate_profile

WINDOW_S = 10.0


class Oracle(Policy):
    name = "oracle"

    def __init__(self, ctx: PolicyContext):
        super().__init__(ctx)
        duration = max([a.time for a in ctx.arrivals], default=0.0) + WINDOW_S
        rates = rate_profile(list(ctx.arrivals), WINDOW_S, duration)
        planned = ctx.sizing.planned_rps
        self._need = [max(1, math.ceil(r / planned - 1e-9)) for r in rates]
        self._lookahead = ctx.setup.cold_start.quantile(0.95) + WINDOW_S

    def _wanted(self, start: float) -> int:
        first = int(start // WINDOW_S)
        last = int((start + self._lookahead) // WINDOW_S)
        window = self._need[first:last + 1]
        return max(window) if window else self.min_replicas

    def initial_replicas(self) -> int:
        return min(max(self._wanted(0.0), self.min_replicas), self.max_replicas)

    def control(self, now: float, view: FleetView) -> int | None:
        return min(max(self._wanted(now), self.min_replicas), self.max_replicas)
