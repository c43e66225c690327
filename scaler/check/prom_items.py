"""Checklist items decided from Prometheus evidence (`scaler.check.prometheus.PromEvidence`).

Pure: the evidence gathered at the edge in, one `ItemResult` out. Absent evidence is UNKNOWN
with the reason (no --prometheus, unreachable, no data in the window), never a pass.
"""

from __future__ import annotations

from scaler.check.prometheus import (KUBE_STATE, RLS_DECISIONS, SCALER_SERIES, VLLM_SERIES, Measure, PromEvidence, ScaleUp,
                                     ready_latencies)
from scaler.check.result import Evidence, ItemResult, Status, result
from scaler.check.spec_items import SpecFacts, model_id, vllm_max_num_seqs
from scaler.render.derive import LATENCY_SENSITIVE
from scaler.spec import AUTO

# Fewer first tokens than this in the window say nothing about a p99.
MIN_REQUESTS = 20
# A measured scale-up this much slower than planned undersizes the burst headroom.
LATENCY_MARGIN = 1.25

NO_PROMETHEUS = "no --prometheus URL given"


def _unknown(item: str, facts: SpecFacts, ev: PromEvidence, measures: list[Measure] = ()) -> ItemResult | None:
    """UNKNOWN when Prometheus was not given or not reached; None when there is evidence to judge."""
    if ev.address is None:
        shown = facts.spec.scaler.prometheus_address or "none in the spec"
        return result(item, model_id(facts.spec), Status.UNKNOWN, NO_PROMETHEUS,
                      [Evidence("--prometheus", "not given"), Evidence("scaler.prometheusAddress", shown)],
                      "pass --prometheus URL of the Prometheus that scrapes this model")
    errors = [m for m in measures if m.error]
    if ev.unreachable or (measures and len(errors) == len(measures)):
        why = ev.unreachable or errors[0].error
        return result(item, model_id(facts.spec), Status.UNKNOWN, why,
                      [Evidence(m.query, f"error: {m.error}") for m in errors[:3]] or [Evidence("--prometheus", ev.address)],
                      "check the Prometheus URL and that it answers /api/v1/query")
    return None


def _get(measures: dict[str, Measure], key: str) -> Measure:
    return measures.get(key) or Measure(key, error="not queried")


def _ev(m: Measure) -> Evidence:
    return Evidence(m.query, f"error: {m.error}" if m.error else m.value)


def vllm_series(*, facts: SpecFacts, ev: PromEvidence) -> ItemResult:
    measures = {label: _get(ev.vllm, label) for label in VLLM_SERIES}
    unknown = _unknown("prom.vllm-series", facts, ev, list(measures.values()))
    if unknown:
        return unknown
    spec = facts.spec
    missing = [label for label, m in measures.items() if not m.value]
    evidence = [_ev(m) for m in measures.values()]
    if missing and len(missing) == len(measures) and spec.replicas.min == 0:
        return result("prom.vllm-series", model_id(spec), Status.UNKNOWN,
                      f"no vLLM series for model_name={spec.model.served_name!r} over {ev.window}, and the model scales to zero: "
                      "there may have been no replica to scrape", evidence, "check while the model serves, or widen --window")
    if missing:
        none = len(missing) == len(measures)
        reason = (f"no vLLM series for model_name={spec.model.served_name!r} in namespace {spec.namespace!r} over {ev.window}"
                  if none else f"missing vLLM series for the model over {ev.window}: {', '.join(missing)}")
        remedy = ("check that the PodMonitor is selected by this Prometheus, that pods carry the namespace label, and that "
                  "model.servedName matches vLLM's --served-model-name" if none else
                  "upgrade vLLM or enable the missing metrics; the scaler and alerts read them")
        return result("prom.vllm-series", model_id(spec), Status.FAIL, reason, evidence, remedy)
    return result("prom.vllm-series", model_id(spec), Status.PASS,
                  f"running, waiting, queue time, TTFT and KV usage present for the model over {ev.window}", evidence)


def scaler_series(*, facts: SpecFacts, ev: PromEvidence) -> ItemResult:
    measures = {name: _get(ev.scaler, name) for name in SCALER_SERIES}
    unknown = _unknown("prom.scaler-series", facts, ev, list(measures.values()))
    if unknown:
        return unknown
    spec = facts.spec
    evidence = [_ev(m) for m in (*measures.values(), *ev.alert_inputs.values())]
    missing = [name for name, m in measures.items() if not m.value]
    if missing:
        return result("prom.scaler-series", model_id(spec), Status.FAIL,
                      f"the scaler's decision series are missing for model={spec.model.served_name!r}: {', '.join(missing)}",
                      evidence, "check that KEDA calls the scaler for this model (or serve --models lists it) and that "
                      "Prometheus scrapes the scaler's :9091/metrics (manifests/base PodMonitor)")
    blind = [name for name, m in ev.alert_inputs.items() if not m.value]
    if blind:
        why = []
        if any(n in KUBE_STATE for n in blind):
            why.append("kube-state-metrics for the predictor Deployment (SloScalerReplicasNotReady/AtMax are blind)")
        if RLS_DECISIONS in blind:
            why.append(f"{RLS_DECISIONS} (SloScalerRefusalRateHigh is blind until Envoy asks the scaler)")
        return result("prom.scaler-series", model_id(spec), Status.WARN,
                      "decision series present; alert inputs missing: " + "; ".join(why), evidence,
                      "install kube-state-metrics and route the model through the gateway's rate-limit filter")
    return result("prom.scaler-series", model_id(spec), Status.PASS,
                  "the scaler's decision series and every alert input are present", evidence)


def ttft(*, facts: SpecFacts, ev: PromEvidence) -> ItemResult:
    measures = {key: _get(ev.ttft, key) for key in ("p95", "p99", "count")}
    unknown = _unknown("prom.ttft", facts, ev, list(measures.values()))
    if unknown:
        return unknown
    spec = facts.spec
    slo = {"p95": spec.slo.ttft_p95_seconds, "p99": spec.slo.ttft_p99_seconds}
    evidence = [_ev(m) for m in measures.values()] + [Evidence(f"slo.ttft{q.upper()}Seconds", v) for q, v in slo.items()]
    count = measures["count"].value or 0.0
    if count < MIN_REQUESTS:
        return result("prom.ttft", model_id(spec), Status.UNKNOWN,
                      f"{count:.0f} first tokens in the last {ev.window}, fewer than {MIN_REQUESTS}: no percentile to judge",
                      evidence, "run traffic (or `slo-scaler loadtest`) and check again, or widen --window")
    over = [f"{q} {measures[q].value:.3g} s > SLO {slo[q]:g} s" for q in slo
            if measures[q].value is not None and measures[q].value > slo[q]]
    if over:
        return result("prom.ttft", model_id(spec), Status.FAIL, f"observed TTFT over {ev.window} above the SLO: " + "; ".join(over),
                      evidence, "look at prom.concurrency and the scaler's state; lower the target or raise min replicas")
    shown = ", ".join(f"{q} {measures[q].value:.3g} s" for q in slo if measures[q].value is not None)
    return result("prom.ttft", model_id(spec), Status.PASS,
                  f"observed TTFT over {ev.window} ({count:.0f} requests): {shown}, within the SLO "
                  "(histogram_quantile interpolates inside a bucket)", evidence)


def measured_latency(*, facts: SpecFacts, ev: PromEvidence) -> tuple[float | None, str | None, list[Evidence], list[ScaleUp]]:
    """The worst measured scale-up latency, where it came from, the evidence and the scale-ups:
    kube-state-metrics readiness first; the scaler's learned value when the spec leaves the
    latency to it."""
    if ev.address is None or ev.desired is None or ev.ready is None:
        return None, None, [], []
    evidence = []
    ups = ready_latencies(ev.desired.points, ev.ready.points)
    if ev.desired.points:
        evidence.append(Evidence(f"{ev.desired.query} rises to Ready in {ev.ready.query}",
                                 [{"seconds": round(u.seconds, 1), "added": u.added, "ready": u.done} for u in ups]
                                 or "no scale-up in the window"))
    if ups:
        return max(u.seconds for u in ups), "kube-state-metrics", evidence, ups
    learned = ev.learned_latency
    if learned is not None and learned.value is not None and facts.spec.calibration.scale_up_latency_seconds == AUTO:
        evidence.append(_ev(learned))
        return learned.value, "the scaler's learned value", evidence, []
    return None, None, evidence, []


def _allowed(facts: SpecFacts, up: ScaleUp, planned: float) -> float:
    """What the spec plans a scale-up of this size to take: the warm latency while the warm pool
    covers it, the cold one beyond."""
    cold = facts.spec.calibration.scale_up_latency_seconds
    warm_pool = facts.spec.replicas.warm_pool
    return planned if warm_pool == 0 or up.added <= warm_pool or cold == AUTO else float(cold)


def scale_up_latency(*, facts: SpecFacts, ev: PromEvidence) -> ItemResult:
    unknown = _unknown("prom.scale-up-latency", facts, ev, [m for m in (ev.learned_latency,) if m])
    if unknown:
        return unknown
    spec = facts.spec
    planned = facts.sizing.scale_up_latency if facts.sizing else None
    worst, source, evidence, ups = measured_latency(facts=facts, ev=ev)
    evidence.append(Evidence("scale-up latency planned (render --explain scaleUpLatencySeconds)", planned if planned is not None else AUTO))
    if worst is None:
        return result("prom.scale-up-latency", model_id(spec), Status.UNKNOWN,
                      f"no scale-up seen in kube-state-metrics over {ev.window}"
                      + ("" if spec.calibration.scale_up_latency_seconds == AUTO else " (the scaler only echoes the declared latency)"),
                      evidence + [Evidence(ev.desired.query if ev.desired else "kube_deployment_spec_replicas", "no data")],
                      "install kube-state-metrics and check after a scale-up, or widen --window")
    if planned is None:
        return result("prom.scale-up-latency", model_id(spec), Status.WARN,
                      f"measured {worst:.0f} s ({source}); the spec leaves it 'auto', so burst headroom is not sized from it",
                      evidence, f"declare calibration.scaleUpLatencySeconds: {worst:.0f}")
    over = [(u, _allowed(facts, u, planned)) for u in ups if u.seconds > _allowed(facts, u, planned) * LATENCY_MARGIN]
    if over:
        u, allowed = max(over, key=lambda pair: pair[0].seconds / pair[1])
        sensitive = spec.request_class in LATENCY_SENSITIVE
        return result("prom.scale-up-latency", model_id(spec), Status.FAIL if sensitive else Status.WARN,
                      f"measured scale-up {u.seconds:.0f} s for +{u.added} replica(s) ({source}) is more than {LATENCY_MARGIN:g}x "
                      f"the {allowed:g} s the spec plans with: min replicas and the RED decision assume capacity arrives sooner than it does",
                      evidence, "declare the measured latency in calibration (cold, and warm with a warm pool) and render again")
    return result("prom.scale-up-latency", model_id(spec), Status.PASS,
                  f"measured scale-up at most {worst:.0f} s ({source}), within {LATENCY_MARGIN:g}x of what the spec plans "
                  f"({planned:g} s" + (f" warm, {float(spec.calibration.scale_up_latency_seconds):g} s beyond the warm pool)"
                                       if planned != spec.calibration.scale_up_latency_seconds else ")"), evidence)


def concurrency(*, facts: SpecFacts, ev: PromEvidence) -> ItemResult:
    max_running = ev.max_running or Measure("max running per replica", error="not queried")
    unknown = _unknown("prom.concurrency", facts, ev, [max_running])
    if unknown:
        return unknown
    spec = facts.spec
    safe, seqs = spec.calibration.safe_concurrency, vllm_max_num_seqs(spec)
    evidence = [_ev(max_running), Evidence("calibration.safeConcurrency", safe),
                Evidence("runtime.args --max-num-seqs", seqs if seqs is not None else "not set")]
    peak = max_running.value
    if peak is None:
        return result("prom.concurrency", model_id(spec), Status.UNKNOWN, f"no running-requests series over {ev.window}",
                      evidence, "see prom.vllm-series")
    if seqs is not None and peak > seqs:
        return result("prom.concurrency", model_id(spec), Status.FAIL,
                      f"a replica ran {peak:.0f} requests, above --max-num-seqs {seqs}: the deployed vLLM is not configured as the spec says",
                      evidence, "render and apply the spec again; check the InferenceService's args")
    if peak > safe:
        return result("prom.concurrency", model_id(spec), Status.WARN,
                      f"a replica ran {peak:.0f} concurrent requests, above the calibrated safe {safe}: TTFT degrades there",
                      evidence, "check that Envoy asks the scaler (shedding) and that the autoscaler target sits below safe concurrency")
    return result("prom.concurrency", model_id(spec), Status.PASS,
                  f"at most {peak:.0f} concurrent requests on a replica over {ev.window}, within the safe {safe}", evidence)
