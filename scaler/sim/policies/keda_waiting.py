"""`keda-waiting`: a KEDA prometheus trigger on vLLM's waiting queue (no shedding).

Source: vLLM production-stack, "Autoscaling with KEDA" tutorial and Helm values
(docs/source/use_cases/autoscaling-keda.rst): query `vllm:num_requests_waiting`, threshold '5'
(AverageValue by default), pollingInterval 15, cooldownPeriod 360 (only matters at zero), HPA
behavior left at Kubernetes' defaults. Summed over pods as above.
"""

from __future__ import annotations

from scaler.autoscaling import Reading, Trigger
from scaler.sim.policies.keda_prometheus import PrometheusKeda


class KedaWaiting(PrometheusKeda):
    name = "keda-waiting"
    knob = "threshold (waiting requests per pod)"
    knob_default = 5.0
    knob_grid = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
    polling_interval_s = 15.0

    def triggers(self):
        waiting = self.scrape.sum(lambda m: m.waiting)
        return [Trigger(Reading("AverageValue", self.knob_value, value=waiting))]
