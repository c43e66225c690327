"""`kserve-keda-running`: KServe's documented KEDA setup for LLMs (no shedding).

Source: KServe docs, "Autoscale InferenceService with LLM metrics" (kserve/website,
docs/model-serving/generative-inference/autoscaling): `autoScaling.metrics` External, backend
prometheus, query `vllm:num_requests_running`, target value "2", minReplicas 1. KServe's KEDA
reconciler turns it into a prometheus trigger with `threshold: 2` and no metricType, i.e.
KEDA's default AverageValue: desired = ceil(running requests / 2). No pollingInterval or HPA
behavior is set, so KEDA's (30 s) and Kubernetes' defaults apply. The documented query has no
sum(); with several pods KEDA would reject the multi-series result, so we read it as
sum(vllm:num_requests_running), the intent the docs describe ("6 concurrent requests with our
target of 2 requests per pod, the system will scale to 3 replicas").
"""

from __future__ import annotations

from scaler.autoscaling import Reading, Trigger
from scaler.sim.policies.keda_prometheus import PrometheusKeda


class KServeKedaRunning(PrometheusKeda):
    name = "kserve-keda-running"
    knob = "target (running requests per pod)"
    knob_default = 2.0
    knob_grid = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)

    def triggers(self):
        running = self.scrape.sum(lambda m: m.running)
        return [Trigger(Reading("AverageValue", self.knob_value, value=running))]
