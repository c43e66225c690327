"""Evaluate every checklist item for one spec from the evidence gathered at the edges.

`spec_facts` runs render's derivation (pure); `evaluate` is pure too: spec facts, the other specs
of the run and the Prometheus, load test and cluster evidence in, one result per item out, in the
order of `scaler.check.catalogue.ITEMS`.
"""

from __future__ import annotations

from scaler.check import k8s_items, loadtest_items, prom_items, spec_items
from scaler.check.catalogue import ITEMS
from scaler.check.kubernetes import ClusterEvidence
from scaler.check.loadtest import LoadtestEvidence
from scaler.check.prometheus import PromEvidence
from scaler.check.result import ItemResult
from scaler.check.spec_items import SpecFacts
from scaler.render.derive import derive
from scaler.spec import ModelSpec, SpecError


def spec_facts(spec: ModelSpec, source: str = "<spec>") -> SpecFacts:
    """The derivation, or render's refusal plus the derivation without scale to zero (so a refused
    scale to zero still lets the sizing items speak)."""
    try:
        derived = derive(spec, source)
        return SpecFacts(spec, derived, None, derived)
    except SpecError as exc:
        issue = exc.issues[0]
        refusal = (issue.path, issue.expected)
    sizing = None
    if refusal[0] == "replicas.min":
        replicas = spec.replicas.model_copy(update={"min": 1})
        try:
            sizing = derive(spec.model_copy(update={"replicas": replicas}), source)
        except SpecError:
            sizing = None
    return SpecFacts(spec, None, refusal, sizing)


def evaluate(*, facts: SpecFacts, others: tuple[ModelSpec, ...], prom: PromEvidence, loadtest: LoadtestEvidence | None,
             cluster: ClusterEvidence) -> list[ItemResult]:
    measured, measured_from, _, _ = prom_items.measured_latency(facts=facts, ev=prom)
    by_id = {
        "spec.slo": lambda: spec_items.slo(facts=facts),
        "spec.calibration": lambda: spec_items.calibration(facts=facts),
        "spec.scale-up-latency": lambda: spec_items.scale_up_latency(facts=facts),
        "spec.min-replicas": lambda: spec_items.min_replicas(facts=facts),
        "spec.scale-to-zero": lambda: spec_items.scale_to_zero(facts=facts),
        "spec.queue-bound": lambda: spec_items.queue_bound(facts=facts),
        "spec.status-codes": lambda: spec_items.status_codes(facts=facts),
        "spec.classes": lambda: spec_items.classes(facts=facts, others=others),
        "spec.scale-down": lambda: spec_items.scale_down(facts=facts, measured_latency_s=measured, measured_from=measured_from),
        "prom.vllm-series": lambda: prom_items.vllm_series(facts=facts, ev=prom),
        "prom.scaler-series": lambda: prom_items.scaler_series(facts=facts, ev=prom),
        "prom.ttft": lambda: prom_items.ttft(facts=facts, ev=prom),
        "prom.scale-up-latency": lambda: prom_items.scale_up_latency(facts=facts, ev=prom),
        "prom.concurrency": lambda: prom_items.concurrency(facts=facts, ev=prom),
        "loadtest.burst": lambda: loadtest_items.burst(facts=facts, ev=loadtest),
        "loadtest.admitted-p99": lambda: loadtest_items.admitted_p99(facts=facts, ev=loadtest),
        "loadtest.retry-after": lambda: loadtest_items.retry_after(facts=facts, ev=loadtest),
        "loadtest.client-backoff": lambda: loadtest_items.client_backoff(facts=facts, ev=loadtest),
        "k8s.scaledobject": lambda: k8s_items.scaled_object(facts=facts, ev=cluster),
        "k8s.predictor": lambda: k8s_items.predictor(facts=facts, ev=cluster),
        "k8s.podmonitor": lambda: k8s_items.pod_monitor(facts=facts, ev=cluster),
    }
    return [by_id[item.id]() for item in ITEMS]
