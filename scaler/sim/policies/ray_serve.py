"""`ray-serve`: Ray Serve's request-based autoscaler in front of vLLM, as `ray.serve.llm` ships it.

Source: Ray Serve docs, "Ray Serve Autoscaling" / "Advanced Ray Serve Autoscaling" and
ray.serve.config.AutoscalingConfig (upscale_delay_s 30, downscale_delay_s 600,
look_back_period_s 30, metrics_interval_s 10, smoothing factors 1), with the LLM deployment
defaults of `ray.serve.llm` (ray-project/ray, python/ray/llm/_internal/serve/configs/constants.py
and core/server/builder.py `DEFAULT_DEPLOYMENT_OPTIONS`): max_ongoing_requests = 1e9 and
autoscaling_config.target_ongoing_requests = 1e9, i.e. no per-replica cap, so requests never
queue at the proxy (no 503), and at the default target the deployment does not scale above its
minimum: an LLM deployment autoscales only once target_ongoing_requests is set, which is the knob.
Mechanism: ongoing requests (at the replicas) are recorded every second and pushed to the
controller every metrics_interval_s (its clock at its own phase); the controller averages the
last look_back_period_s, asks desired = ceil(ongoing / target_ongoing_requests) and applies it
only after the same direction was asked continuously for upscale_delay_s (downscale_delay_s down).
"""

from __future__ import annotations

import math
from collections import deque

from scaler.sim.clocks import Every
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext

LLM_DEFAULT_TARGET_ONGOING = 1e9  # ray.serve.llm's DEFAULT_MAX_TARGET_ONGOING_REQUESTS
UPSCALE_DELAY_S = 30.0
DOWNSCALE_DELAY_S = 600.0
LOOK_BACK_S = 30.0
METRICS_INTERVAL_S = 10.0


class RayServe(Policy):
    name = "ray-serve"
    knob = "target_ongoing_requests"
    knob_default = LLM_DEFAULT_TARGET_ONGOING
    knob_grid = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value)
        self._samples: deque[tuple[float, float]] = deque()
        self._push = Every(METRICS_INTERVAL_S, ctx.phases.offset("ray-metrics", METRICS_INTERVAL_S))
        self._pushed_at = -math.inf
        self._counter_s = 0.0  # + seconds asking up in a row, - seconds asking down
        self._last: float | None = None

    def control(self, now: float, view: FleetView) -> int | None:
        self._samples.append((now, float(view.running + view.waiting + view.held)))
        if self._push.due(now):
            self._pushed_at = now
        visible = [v for t, v in self._samples if self._pushed_at - LOOK_BACK_S < t <= self._pushed_at]
        while self._samples and self._samples[0][0] <= now - LOOK_BACK_S - METRICS_INTERVAL_S:
            self._samples.popleft()
        dt = 0.0 if self._last is None else now - self._last
        self._last = now
        if not visible or view.ready == 0:
            return None
        ongoing = sum(visible) / len(visible)
        desired = min(max(math.ceil(ongoing / self.knob_value), self.min_replicas), self.max_replicas)
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
