"""`knative-kpa`: Knative's Pod Autoscaler (KServe Serverless mode), no shedding.

Source: Knative Serving autoscaling docs and config-autoscaler defaults, which KServe's Serverless
mode leaves as they are (an InferenceService without scaleTarget sets no
autoscaling.knative.dev/target; containerConcurrency 0, no hard limit): concurrency metric
measured by queue-proxy (in-flight requests per pod), container-concurrency-target-default 100
at target utilisation 70% (target 70 per pod), stable window 60 s, panic window 10% of it (6 s),
panic threshold 200%, max scale-up rate 1000, max scale-down rate 2, decisions every 2 s
(tick-interval). Mechanism (pkg/autoscaler/scaling): desired = ceil(average concurrency over the
window / target), bounded by the rates; when the panic-window demand reaches 2x the ready pods
it panics: it follows the panic window and never scales down until 60 s without the condition.
"""

from __future__ import annotations

import math
from collections import deque

from scaler.sim.clocks import Every
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext

TARGET = 100 * 0.7  # container-concurrency-target-default x container-concurrency-target-percentage
STABLE_WINDOW_S = 60.0
PANIC_WINDOW_S = 6.0
PANIC_THRESHOLD = 2.0
MAX_SCALE_UP_RATE = 1000.0
MAX_SCALE_DOWN_RATE = 2.0
TICK_S = 2.0


class KnativeKpa(Policy):
    name = "knative-kpa"
    knob = "target (concurrent requests per pod)"
    knob_default = TARGET
    knob_grid = (5.0, 10.0, 20.0, 40.0, 70.0, 140.0)

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value)
        self._tick = Every(TICK_S, ctx.phases.offset("knative-tick", TICK_S))
        self._samples: deque[tuple[float, float]] = deque()
        self._panic_since: float | None = None
        self._max_panic = 0
        self.panics = 0

    def _average(self, now: float, window: float) -> float:
        values = [v for t, v in self._samples if t > now - window]
        return sum(values) / len(values) if values else 0.0

    def control(self, now: float, view: FleetView) -> int | None:
        self._samples.append((now, float(view.running + view.waiting)))  # queue-proxy in-flight, ready pods
        while self._samples and self._samples[0][0] <= now - STABLE_WINDOW_S:
            self._samples.popleft()
        if not self._tick.due(now):
            return None
        ready = max(1, view.ready)
        up, down = math.ceil(MAX_SCALE_UP_RATE * ready), math.floor(ready / MAX_SCALE_DOWN_RATE)
        stable = min(max(math.ceil(self._average(now, STABLE_WINDOW_S) / self.knob_value), down), up)
        panic = min(max(math.ceil(self._average(now, PANIC_WINDOW_S) / self.knob_value), down), up)
        over = panic / ready >= PANIC_THRESHOLD
        if over:
            if self._panic_since is None:
                self.panics += 1
                self._max_panic = view.desired
            self._panic_since = now
        elif self._panic_since is not None and now - self._panic_since > STABLE_WINDOW_S:
            self._panic_since = None
            self._max_panic = 0
        if self._panic_since is not None:
            self._max_panic = max(self._max_panic, panic)
            desired = self._max_panic
        else:
            desired = stable
        return min(max(desired, self.min_replicas), self.max_replicas)

    def summary(self) -> dict:
        return {"panics": self.panics}
