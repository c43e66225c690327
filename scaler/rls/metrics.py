"""Prometheus metrics of the rate-limit service, as one Collector for the server's registry.

    slo_scaler_rls_decisions_total{model,class,tenant,code,reason}  counter
    slo_scaler_rls_admission_rate{model}                             gauge, requests/s; +Inf = no limit

Labels are bounded: `model` is a model the scaler knows (else "unknown"), `class` one of the four
classes, `tenant` a configured tenant (else "other"), `code` OK|503|429 (the configured codes),
`reason` one of the admission reasons. Counting is a dict increment (cheap on the hot path);
the families are built at scrape time, the way client_python's custom collectors work.
"""

from __future__ import annotations

import math
from collections import Counter

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from scaler.policy.decide import State

UNKNOWN_MODEL = "unknown"


class RlsMetrics(Collector):
    def __init__(self, registry):
        self._registry = registry  # scaler.server.registry.ModelRegistry: models and their decisions
        self._decisions: Counter[tuple[str, str, str, str, str]] = Counter()

    def count(self, model: str, request_class: str, tenant: str, code: str, reason: str) -> None:
        self._decisions[(model, request_class, tenant, code, reason)] += 1

    def collect(self):
        decisions = CounterMetricFamily(
            "slo_scaler_rls_decisions", "Rate-limit decisions, by the code the client got and the reason.",
            labels=("model", "class", "tenant", "code", "reason"))
        for labels, n in sorted(self._decisions.items()):
            decisions.add_metric(labels, n)
        yield decisions
        rate = GaugeMetricFamily(
            "slo_scaler_rls_admission_rate",
            "Requests/s the shedder admits per model (RED: what capacity drains within the TTFT budget); +Inf when not limiting.",
            labels=("model",))
        for entry in self._registry.models():
            decision = entry.decision
            red = decision is not None and decision.state is State.RED
            rate.add_metric((entry.name,), max(0.0, decision.admission_rps or 0.0) if red else math.inf)
        yield rate
