"""`hpa-gpu-util`: a plain HPA on GPU utilisation (no shedding).

Source: the common DCGM exporter + prometheus-adapter setup: a `Pods` metric
DCGM_FI_DEV_GPU_UTIL (percent of time a kernel ran) per pod, target averageValue 80, HPA
default behavior (sync 15 s, tolerance 10%, scale-up 4 pods or 100% per 15 s, scale-down 300 s
window). The 80% target is our choice (no upstream default exists). Utilisation is the busy
share of the last scrape interval; pods still starting report no metric and count as Kubernetes
counts missing pods. Known weakness it shows: vLLM keeps the GPU busy at any load, so the
signal saturates near 100% long before latency does, and says nothing about the queue.
"""

from __future__ import annotations

from scaler.autoscaling import HpaSpec, HpaState, Reading
from scaler.autoscaling import hpa
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext
from scaler.sim.policies.keda_prometheus import PROMETHEUS_SCRAPE_S

TARGET_PERCENT = 80.0


class HpaGpuUtil(Policy):
    name = "hpa-gpu-util"

    def __init__(self, ctx: PolicyContext):
        super().__init__(ctx)
        self.spec = HpaSpec(min_replicas=self.min_replicas, max_replicas=self.max_replicas)
        self.state = HpaState()
        self._busy: dict[int, tuple[float, float]] = {}  # member -> (time, busy_s) at the previous scrape
        self._util: dict[int, float] = {}
        self._last_scrape: float | None = None

    def _scrape(self, view: FleetView) -> None:
        util = {}
        for m in view.scraped:
            before = self._busy.get(m.index)
            if before is not None and view.time > before[0]:
                util[m.index] = 100.0 * min(1.0, (m.busy_s - before[1]) / (view.time - before[0]))
            self._busy[m.index] = (view.time, m.busy_s)
        self._util = util

    def control(self, now: float, view: FleetView) -> int | None:
        if self._last_scrape is None or now - self._last_scrape >= PROMETHEUS_SCRAPE_S - 1e-9:
            self._scrape(view)
            self._last_scrape = now
        if not hpa.due(self.spec, self.state, now):
            return None
        values = tuple(self._util.values())
        missing = max(0, view.desired - len(values))
        reading = Reading("Pods", TARGET_PERCENT, per_pod=values, missing_pods=missing)
        decision, self.state = hpa.sync(self.spec, self.state, now, view.desired, [reading])
        return decision.desired
