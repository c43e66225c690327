"""`static-peak`: provision for the peak and never scale (no shedding).

Source: the usual fallback when autoscaling is distrusted: size the Deployment for the busiest
10 s of the workload (one replica planned at `target_utilization` of its calibrated capacity)
and leave it there. It bounds latency from below among non-shedding policies and cost from above.
"""

from __future__ import annotations

from scaler.sim.policies.base import Policy


class StaticPeak(Policy):
    name = "static-peak"

    def initial_replicas(self) -> int:
        return self.ctx.sizing.peak

    def control(self, now, view):
        return None
