"""`hpa-gpu-util`: a plain HPA on GPU utilisation (no shedding).

Source: the common DCGM exporter + prometheus-adapter setup: a `Pods` metric
DCGM_FI_DEV_GPU_UTIL (percent of time a kernel ran) per pod, target averageValue 80, HPA
default behavior (sync 15 s, tolerance 10%, scale-up 4 pods or 100% per 15 s, scale-down 300 s
window). The 80% target is our choice (no upstream default exists). dcgm-exporter collects
every 30 s by default (`-c` / DCGM_EXPORTER_INTERVAL=30000 ms): each collection holds the busy
share since the previous one; Prometheus scrapes the exporter every 15 s and the HPA reads the
newest scrape, each clock at its own phase. Pods still starting report no metric and count as
Kubernetes counts missing pods. Known weakness it shows: vLLM keeps the GPU busy at any load, so
the signal saturates near 100% long before latency does, and says nothing about the queue.
"""

from __future__ import annotations

from scaler.autoscaling import HpaSpec, HpaState, Reading
from scaler.autoscaling import hpa
from scaler.sim.clocks import Every
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext
from scaler.sim.policies.keda_prometheus import PROMETHEUS_SCRAPE_S

DCGM_COLLECT_S = 30.0  # dcgm-exporter's default collect interval


class HpaGpuUtil(Policy):
    name = "hpa-gpu-util"
    knob = "target averageValue (GPU util %)"
    knob_default = 80.0
    knob_grid = (40.0, 50.0, 60.0, 70.0, 80.0, 90.0)

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value)
        self.spec = HpaSpec(min_replicas=self.min_replicas, max_replicas=self.max_replicas)
        self.state = HpaState()
        self._collect = Every(DCGM_COLLECT_S, ctx.phases.offset("dcgm-collect", DCGM_COLLECT_S))
        self._scrape = Every(PROMETHEUS_SCRAPE_S, ctx.phases.offset("scrape", PROMETHEUS_SCRAPE_S))
        self._busy: dict[int, tuple[float, float]] = {}  # member -> (time, busy_s) at the previous collection
        self._collected: dict[int, float] = {}  # what the exporter serves now
        self._util: dict[int, float] = {}  # what Prometheus scraped last

    def _collect_now(self, view: FleetView) -> None:
        util = {}
        for m in view.scraped:
            before = self._busy.get(m.index)
            if before is not None and view.time > before[0]:
                util[m.index] = 100.0 * min(1.0, (m.busy_s - before[1]) / (view.time - before[0]))
            self._busy[m.index] = (view.time, m.busy_s)
        self._collected = util

    def control(self, now: float, view: FleetView) -> int | None:
        if self._collect.due(now):
            self._collect_now(view)
        if self._scrape.due(now):
            alive = {m.index for m in view.scraped}
            self._util = {i: u for i, u in self._collected.items() if i in alive}
        if now < self.hpa_start_s or not hpa.due(self.spec, self.state, now):
            return None
        values = tuple(self._util.values())
        missing = max(0, view.desired - len(values))
        reading = Reading("Pods", self.knob_value, per_pod=values, missing_pods=missing)
        decision, self.state = hpa.sync(self.spec, self.state, now, view.desired, [reading])
        return decision.desired
