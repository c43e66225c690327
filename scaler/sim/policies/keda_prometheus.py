"""The shape shared by the Prometheus-triggered KEDA baselines.

Pods are scraped every `scrape_interval_s`; at every HPA sync (15 s) KEDA runs each trigger's
PromQL query against the newest samples and hands the HPA an External metric (AverageValue by
default), which it turns into replicas with its tolerance, behaviors and stabilisation windows
(scaler.autoscaling). Subclasses say which queries and thresholds.
"""

from __future__ import annotations

from scaler.autoscaling import HpaSpec, KedaSpec, Trigger, keda
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext, Scrape

PROMETHEUS_SCRAPE_S = 15.0  # a common PodMonitor interval (Prometheus' own default is 60 s)


class PrometheusKeda(Policy):
    scrape_interval_s = PROMETHEUS_SCRAPE_S
    polling_interval_s = 30.0  # KEDA's default pollingInterval

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value)
        self.scrape = Scrape(self.scrape_interval_s, ctx.phases.offset("scrape", self.scrape_interval_s))
        self.keda = KedaSpec(hpa=self.hpa_spec(), polling_interval_s=self.polling_interval_s)
        self.state = self.keda_state(self.keda)

    def hpa_spec(self) -> HpaSpec:
        return HpaSpec(min_replicas=self.min_replicas, max_replicas=self.max_replicas)

    def triggers(self) -> list[Trigger]:
        raise NotImplementedError

    def control(self, now: float, view: FleetView) -> int | None:
        self.scrape.observe(now, view)
        if now < self.hpa_start_s:
            return None
        result, self.state = keda.step(self.keda, self.state, now, view.desired, self.triggers)
        return result.replicas
