"""Prometheus metrics of the rate-limit service, as one Collector for the server's registry.

    slo_scaler_rls_decisions_total{namespace,model,class,tenant,code,reason}  counter
    slo_scaler_rls_admission_rate{namespace,model}                   gauge, requests/s; +Inf = no limit
    slo_scaler_state_store_updates_total{store}                      counter: local | shared | fallback
    slo_scaler_state_store_conflicts_total                           counter: concurrent writes retried
    slo_scaler_state_store_errors_total{error}                       counter: the shared store failed
    slo_scaler_state_store_latency_seconds                           summary of shared updates
    slo_scaler_state_store_replicas                                  gauge: N of the 1/N fallback share
    slo_scaler_rls_process_restarts_total                            counter: the RLS process exited and was started again

Labels are bounded: `namespace`, `model` a model the scaler knows (else "", "unknown"), `class` one of the four
classes, `tenant` a configured tenant (else "other"), `code` OK|503|429 (the configured codes),
`reason` one of the admission reasons. Counting is a dict increment (cheap on the hot path);
the families are built at scrape time, the way client_python's custom collectors work. In
`serve` the RLS runs in a process of its own: its counts reach serve's /metrics with `take` there
and `merge` here (scaler/rls/process.py).
"""

from __future__ import annotations

import math
import threading
from collections import Counter

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, SummaryMetricFamily
from prometheus_client.registry import Collector

from scaler.policy.decide import State
from scaler.state import StoreStats

UNKNOWN_MODEL = "unknown"


class RlsMetrics(Collector):
    def __init__(self, registry, store: StoreStats | None = None):
        self._registry = registry  # scaler.server.registry.ModelRegistry: models and their decisions
        self._store = store or StoreStats()
        self._decisions: Counter[tuple[str, str, str, str, str, str]] = Counter()
        self._lock = threading.Lock()
        self.restarts = 0  # of serve's RLS process (scaler/rls/process.py)

    def count(self, namespace: str, model: str, request_class: str, tenant: str, code: str, reason: str) -> None:
        with self._lock:
            self._decisions[(namespace, model, request_class, tenant, code, reason)] += 1

    def take(self) -> Counter:
        """The counts since the last `take` (the RLS process sends them to serve)."""
        with self._lock:
            taken, self._decisions = self._decisions, Counter()
        return taken

    def merge(self, counts: Counter) -> None:
        """Add counts taken in the RLS process."""
        with self._lock:
            self._decisions.update(counts)

    def collect(self):
        decisions = CounterMetricFamily(
            "slo_scaler_rls_decisions", "Rate-limit decisions, by the code the client got and the reason.",
            labels=("namespace", "model", "class", "tenant", "code", "reason"))
        with self._lock:
            counted = sorted(self._decisions.items())
        for labels, n in counted:
            decisions.add_metric(labels, n)
        yield decisions
        rate = GaugeMetricFamily(
            "slo_scaler_rls_admission_rate",
            "Requests/s the shedder admits per model (RED: what capacity drains within the TTFT budget); +Inf when not limiting.",
            labels=("namespace", "model"))
        for entry in self._registry.models():
            decision = entry.decision
            red = decision is not None and decision.state is State.RED
            rate.add_metric((entry.namespace, entry.name), max(0.0, decision.admission_rps or 0.0) if red else math.inf)
        yield rate
        yield CounterMetricFamily("slo_scaler_rls_process_restarts",
                                  "Times the rate-limit service process exited on its own and was started again.",
                                  value=self.restarts)
        yield from self._store_families()

    def _store_families(self):
        stats = self._store
        updates = CounterMetricFamily("slo_scaler_state_store_updates",
                                      "Admission-state updates, by where they were made (fallback: the 1/N local share).",
                                      labels=("store",))
        for where, n in sorted(stats.updates.items()):
            updates.add_metric((where,), n)
        yield updates
        yield CounterMetricFamily("slo_scaler_state_store_conflicts",
                                  "Shared updates retried because another replica wrote first.", value=stats.conflicts)
        errors = CounterMetricFamily("slo_scaler_state_store_errors", "Shared-store calls that failed.",
                                     labels=("error",))
        for name, n in sorted(stats.errors.items()):
            errors.add_metric((name,), n)
        yield errors
        latency = SummaryMetricFamily("slo_scaler_state_store_latency_seconds", "Time of one shared update.",
                                      count_value=stats.latency_count, sum_value=stats.latency_sum_s)
        yield latency
        yield GaugeMetricFamily("slo_scaler_state_store_replicas",
                                "Replicas the budget is split between while the shared store is out of reach.",
                                value=stats.replicas)
