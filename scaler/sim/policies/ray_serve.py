"""`ray-serve`: Ray Serve's request-based autoscaler in front of vLLM, with proxy-side 503s.

Source: Ray Serve docs, "Ray Serve Autoscaling" / "Advanced Ray Serve Autoscaling" and
ray.serve.config.AutoscalingConfig (defaults: target_ongoing_requests 2, upscale_delay_s 30,
downscale_delay_s 600, look_back_period_s 30, metrics_interval_s 10, smoothing factors 1) and
the deployment option max_queued_requests (requests beyond it get HTTP 503 from the proxy).
Mechanism: ongoing requests (at replicas plus queued at the proxy) are recorded every second and
pushed to the controller every metrics_interval_s; the controller averages the last
look_back_period_s, asks desired = ceil(ongoing / target_ongoing_requests) and applies it only
after the same direction was asked continuously for upscale_delay_s (downscale_delay_s down).
A replica takes at most max_ongoing_requests; the rest queue at the proxy up to
max_queued_requests, beyond that 503 with no Retry-After (clients back off). Ray Serve's generic
max_ongoing_requests default (5) would throttle vLLM's batching and ray.serve.llm's (1e9)
disables proxy queueing and so max_queued_requests; we set both to 64 (our choice).
"""

from __future__ import annotations

import math
from collections import deque

from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext

TARGET_ONGOING = 2.0
UPSCALE_DELAY_S = 30.0
DOWNSCALE_DELAY_S = 600.0
LOOK_BACK_S = 30.0
METRICS_INTERVAL_S = 10.0
MAX_ONGOING = 64
MAX_QUEUED = 64


class RayServe(Policy):
    name = "ray-serve"
    max_ongoing_per_replica = MAX_ONGOING
    max_queued = MAX_QUEUED

    def __init__(self, ctx: PolicyContext):
        super().__init__(ctx)
        self._samples: deque[tuple[float, float]] = deque()
        self._pushed_at = -math.inf
        self._counter_s = 0.0  # + seconds asking up in a row, - seconds asking down
        self._last: float | None = None

    def control(self, now: float, view: FleetView) -> int | None:
        self._samples.append((now, float(view.running + view.waiting + view.held)))
        if now - self._pushed_at >= METRICS_INTERVAL_S - 1e-9:
            self._pushed_at = now
        visible = [v for t, v in self._samples if self._pushed_at - LOOK_BACK_S < t <= self._pushed_at]
        while self._samples and self._samples[0][0] <= now - LOOK_BACK_S - METRICS_INTERVAL_S:
            self._samples.popleft()
        dt = 0.0 if self._last is None else now - self._last
        self._last = now
        if not visible or view.ready == 0:
            return None
        ongoing = sum(visible) / len(visible)
        desired = min(max(math.ceil(ongoing / TARGET_ONGOING), self.min_replicas), self.max_replicas)
        current = view.desired
        if desired > current:
            self._counter_s = max(self._counter_s, 0.0) + dt
            if self._counter_s > UPSCALE_DELAY_S:
                self._counter_s = 0.0
                return desired
        elif desired < current:
            self._counter_s = min(self._counter_s, 0.0) - dt
            if self._counter_s < -DOWNSCALE_DELAY_S:
                self._counter_s = 0.0
                return desired
        else:
            self._counter_s = 0.0
        return None
