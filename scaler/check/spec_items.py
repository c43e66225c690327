"""Checklist items decided from the spec alone (and what `slo-scaler render` derives from it).

Each function is pure: a validated spec (plus the derivation, or why render refuses the spec)
in, one `ItemResult` out, naming the spec fields it read.
"""

from __future__ import annotations

from dataclasses import dataclass

from scaler.check.result import Evidence, ItemResult, Status, result
from scaler.policy import behavior
from scaler.policy.decide import RELEASE_HOLD_LATENCIES
from scaler.render.derive import LATENCY_SENSITIVE, Derived
from scaler.spec import AUTO, ModelSpec

# vLLM's per-replica batch bound; the spec has no field for it, so it lives in runtime.args.
MAX_NUM_SEQS = "--max-num-seqs"


@dataclass(frozen=True)
class SpecFacts:
    """One spec as the checks see it: the spec, what render derives (None when it refuses the
    spec), render's refusal, and the derivation with scale to zero turned off (for the items that
    only need the sizing, so one refusal does not hide every other finding)."""

    spec: ModelSpec
    derived: Derived | None
    refusal: tuple[str, str] | None  # (field path, what was expected) from render's SpecError
    sizing: Derived | None


def model_id(spec: ModelSpec) -> str:
    return f"{spec.namespace}/{spec.name}"


def _s(value: float) -> str:
    return f"{value:g} s"


def slo(*, facts: SpecFacts) -> ItemResult:
    spec = facts.spec
    p95, p99, prefill = spec.slo.ttft_p95_seconds, spec.slo.ttft_p99_seconds, spec.calibration.expected_prefill_seconds
    budget = p95 - prefill
    evidence = [Evidence("slo.ttftP95Seconds", p95), Evidence("slo.ttftP99Seconds", p99),
                Evidence("calibration.expectedPrefillSeconds", prefill),
                Evidence("queue budget (ttftP95Seconds - expectedPrefillSeconds)", budget)]
    if p99 < p95:
        return result("spec.slo", model_id(spec), Status.FAIL, f"p99 SLO {_s(p99)} is below the p95 SLO {_s(p95)}",
                      evidence, "set slo.ttftP99Seconds at least slo.ttftP95Seconds")
    if budget <= 0:
        return result("spec.slo", model_id(spec), Status.FAIL,
                      f"expected prefill {_s(prefill)} uses the whole p95 SLO {_s(p95)}: no time is left for queueing",
                      evidence, "re-measure expectedPrefillSeconds (TTFT p50 at concurrency 1) or relax the SLO")
    return result("spec.slo", model_id(spec), Status.PASS,
                  f"p95 {_s(p95)} <= p99 {_s(p99)}; {_s(budget)} of queueing budget after the expected prefill", evidence)


def calibration(*, facts: SpecFacts) -> ItemResult:
    spec, cal = facts.spec, facts.spec.calibration
    evidence = [Evidence("calibration.safeConcurrency", cal.safe_concurrency),
                Evidence("calibration.perReplicaCapacity", cal.per_replica_capacity)]
    if facts.refusal and facts.refusal[0] == "calibration.safeConcurrency":
        return result("spec.calibration", model_id(spec), Status.FAIL, f"render refuses it: expected {facts.refusal[1]}",
                      evidence, "calibrate with `slo-scaler calibrate` against one replica")
    sizing = facts.sizing
    if sizing is not None:
        evidence.append(Evidence("derived target concurrency (render --explain targetUtilization)", sizing.target_concurrency))
    if cal.per_replica_capacity == AUTO:
        return result("spec.calibration", model_id(spec), Status.WARN,
                      "perReplicaCapacity is 'auto': the scaler learns it only once a queue forms, and burst headroom cannot be sized",
                      evidence, "run `slo-scaler calibrate URL --ttft-p95 <SLO>` against one replica and copy perReplicaCapacity")
    return result("spec.calibration", model_id(spec), Status.PASS,
                  f"safe concurrency {cal.safe_concurrency} and capacity {cal.per_replica_capacity:g} req/s per replica are "
                  "declared; the autoscaler target sits below the safe concurrency", evidence)


def scale_up_latency(*, facts: SpecFacts) -> ItemResult:
    spec, cal = facts.spec, facts.spec.calibration
    planned = facts.sizing.scale_up_latency if facts.sizing else None
    evidence = [Evidence("calibration.scaleUpLatencySeconds", cal.scale_up_latency_seconds),
                Evidence("calibration.warmScaleUpLatencySeconds", cal.warm_scale_up_latency_seconds),
                Evidence("calibration.coldStart", cal.cold_start.model_dump(by_alias=True) if cal.cold_start else None),
                Evidence("replicas.warmPool", spec.replicas.warm_pool),
                Evidence("scale-up latency planned (render --explain scaleUpLatencySeconds)", planned if planned is not None else AUTO)]
    if cal.scale_up_latency_seconds == AUTO:
        return result("spec.scale-up-latency", model_id(spec), Status.WARN,
                      "scaleUpLatencySeconds is 'auto': the scaler starts from a prior and learns from replicas becoming ready",
                      evidence, "measure scale-up decision to Ready on a cold node (see prom.scale-up-latency) and declare it")
    warm = f"; a scale-up onto the warm pool is planned at {_s(planned)}" if planned is not None and planned != cal.scale_up_latency_seconds else ""
    return result("spec.scale-up-latency", model_id(spec), Status.PASS,
                  f"cold scale-up latency declared ({_s(cal.scale_up_latency_seconds)}){warm}", evidence)


def _step(derived: Derived, name: str) -> object:
    return next((s.value for s in derived.steps if s.name == name), None)


def min_replicas(*, facts: SpecFacts) -> ItemResult:
    spec, rep = facts.spec, facts.spec.replicas
    evidence = [Evidence("replicas.min", rep.min), Evidence("replicas.max", rep.max), Evidence("replicas.warmPool", rep.warm_pool)]
    sizing = facts.sizing
    if sizing is None:
        return result("spec.min-replicas", model_id(spec), Status.UNKNOWN,
                      f"render refuses the spec ({facts.refusal[0] if facts.refusal else 'unknown field'}), so nothing is sized",
                      evidence, "fix the refused field first")
    needed = _step(sizing, "burstReplicas")
    evidence += [Evidence("derived burstReplicas (render --explain)", needed),
                 Evidence("derived minReplicas (ScaledObject minReplicaCount)", sizing.min_replicas),
                 Evidence("derived fallback.replicas (ScaledObject)", sizing.fallback_replicas)]
    if spec.request_class not in LATENCY_SENSITIVE:
        return result("spec.min-replicas", model_id(spec), Status.PASS,
                      f"request class {spec.request_class} can wait for a scale-up; replicas.min is used as is", evidence)
    capped = [w for w in sizing.warnings if w.startswith("burst headroom")]
    if capped:
        return result("spec.min-replicas", model_id(spec), Status.WARN, capped[0], evidence,
                      "raise replicas.max, add a warm pool to shorten the scale-up, or accept shedding in bursts")
    if not isinstance(needed, int):
        return result("spec.min-replicas", model_id(spec), Status.WARN,
                      "burst headroom cannot be sized: perReplicaCapacity or scaleUpLatencySeconds is 'auto'", evidence,
                      "calibrate perReplicaCapacity and measure scaleUpLatencySeconds")
    return result("spec.min-replicas", model_id(spec), Status.PASS,
                  f"the scaler holds the {needed} replicas a burst needs while a new replica takes "
                  f"{_s(sizing.scale_up_latency)}" + (f" (warm pool of {rep.warm_pool})" if rep.warm_pool else "")
                  + f", for as long as the traffic keeps reaching them; never fewer than minReplicaCount {sizing.min_replicas}; "
                  f"KEDA's fallback keeps {sizing.fallback_replicas} if the scaler fails", evidence)


def scale_to_zero(*, facts: SpecFacts) -> ItemResult:
    spec, rep = facts.spec, facts.spec.replicas
    planned = facts.sizing.scale_up_latency if facts.sizing else None
    evidence = [Evidence("replicas.min", rep.min), Evidence("replicas.forceScaleToZero", rep.force_scale_to_zero),
                Evidence("requestClass", spec.request_class), Evidence("slo.ttftP95Seconds", spec.slo.ttft_p95_seconds),
                Evidence("scale-up latency planned (render --explain scaleUpLatencySeconds)", planned if planned is not None else AUTO)]
    if rep.min > 0:
        return result("spec.scale-to-zero", model_id(spec), Status.PASS, f"replicas.min is {rep.min}: no scale to zero", evidence)
    if facts.refusal and facts.refusal[0] == "replicas.min":
        return result("spec.scale-to-zero", model_id(spec), Status.FAIL, f"scale to zero conflicts with the SLO: replicas.min expected {facts.refusal[1]}",
                      evidence, "set replicas.min to at least 1 (and a warm pool), or replicas.forceScaleToZero: true to accept a slow first request")
    if spec.request_class in LATENCY_SENSITIVE and (planned is None or planned >= spec.slo.ttft_p95_seconds):
        return result("spec.scale-to-zero", model_id(spec), Status.WARN,
                      "scale to zero forced for a latency-sensitive model: the first request after idle waits a whole scale-up",
                      evidence, "keep replicas.min >= 1 unless the cost of an idle GPU outweighs that first slow request")
    if spec.request_class in LATENCY_SENSITIVE:
        return result("spec.scale-to-zero", model_id(spec), Status.PASS,
                      f"a scale-up ({_s(planned)}) is faster than the TTFT p95 SLO, so the first request after idle can meet it", evidence)
    slow = planned is None or planned >= spec.slo.ttft_p95_seconds
    return result("spec.scale-to-zero", model_id(spec), Status.PASS,
                  f"request class {spec.request_class} is judged on completion time; "
                  + ("the first request after idle waits the scale-up, above the TTFT SLO" if slow else "scale-up is faster than the SLO"),
                  evidence)


def vllm_max_num_seqs(spec: ModelSpec) -> int | None:
    """--max-num-seqs from runtime.args (`--max-num-seqs=N` or `--max-num-seqs N`); None when absent."""
    args = spec.runtime.args
    for i, arg in enumerate(args):
        flag, _, value = arg.partition("=")
        if flag == MAX_NUM_SEQS:
            value = value if "=" in arg else (args[i + 1] if i + 1 < len(args) else "")
            return int(value) if value.isdigit() else None
    return None


def queue_bound(*, facts: SpecFacts) -> ItemResult:
    spec = facts.spec
    safe, seqs = spec.calibration.safe_concurrency, vllm_max_num_seqs(spec)
    evidence = [Evidence("shedding.enabled", spec.shedding.enabled), Evidence("calibration.safeConcurrency", safe),
                Evidence(f"runtime.args {MAX_NUM_SEQS}", seqs if seqs is not None else "not set (vLLM's default)")]
    sensitive = spec.request_class in LATENCY_SENSITIVE
    if not spec.shedding.enabled:
        return result("spec.queue-bound", model_id(spec), Status.FAIL if sensitive else Status.WARN,
                      "shedding is off: nothing bounds vLLM's waiting queue, so overload turns into TTFT far beyond the SLO",
                      evidence, "set shedding.enabled: true (Envoy asks the scaler before queueing each request)")
    if seqs is not None and seqs < safe:
        return result("spec.queue-bound", model_id(spec), Status.FAIL,
                      f"vLLM runs at most {seqs} sequences per replica but the calibration says {safe} are safe: "
                      "the calibration was measured with another batch bound, so capacity is overstated",
                      evidence, f"set {MAX_NUM_SEQS} to at least {safe} or re-run `slo-scaler calibrate` with this configuration")
    if seqs is None:
        return result("spec.queue-bound", model_id(spec), Status.WARN,
                      f"the queue is bounded at the gateway, but {MAX_NUM_SEQS} is left to vLLM's version and hardware default: "
                      "the calibration holds only for the batch bound it was measured with",
                      evidence, f"add {MAX_NUM_SEQS}=<the value used when calibrating> to runtime.args")
    return result("spec.queue-bound", model_id(spec), Status.PASS,
                  f"shedding bounds the queue at the gateway; vLLM's batch bound {seqs} >= safe concurrency {safe}", evidence)


def status_codes(*, facts: SpecFacts) -> ItemResult:
    spec, sh = facts.spec, facts.spec.shedding
    evidence = [Evidence("shedding.enabled", sh.enabled), Evidence("shedding.statusCode", sh.status_code),
                Evidence("shedding.tenantQuotaStatusCode", sh.tenant_quota_status_code),
                Evidence("shedding.tenants", len(sh.tenants))]
    if not sh.enabled:
        return result("spec.status-codes", model_id(spec), Status.FAIL if spec.request_class in LATENCY_SENSITIVE else Status.WARN,
                      "shedding is off: overload is never answered with 429/503 and Retry-After", evidence,
                      "set shedding.enabled: true")
    return result("spec.status-codes", model_id(spec), Status.PASS,
                  f"capacity refusals answer {sh.status_code}, tenant quota refusals {sh.tenant_quota_status_code}, "
                  "both with Retry-After from the rate-limit service", evidence)


def _pool(spec: ModelSpec) -> tuple:
    return (spec.runtime.gpu.resource, tuple(sorted(spec.runtime.node_selector.items())))


def classes(*, facts: SpecFacts, others: tuple[ModelSpec, ...]) -> ItemResult:
    """WARN when a latency-sensitive model shares its serving model or GPU node pool with a
    batch/background spec given in the same run (batch scale-ups then take the nodes a burst needs)."""
    spec = facts.spec
    evidence = [Evidence("requestClass", spec.request_class), Evidence("model.servedName", spec.model.served_name),
                Evidence("runtime.nodeSelector", dict(spec.runtime.node_selector) or "none"),
                Evidence("shedding.enabled (priority by x-request-class)", spec.shedding.enabled)]
    sensitive = spec.request_class in LATENCY_SENSITIVE
    shares = []
    for other in others:
        if other is spec or (other.request_class in LATENCY_SENSITIVE) == sensitive:
            continue
        if (other.namespace, other.model.served_name) == (spec.namespace, spec.model.served_name):
            shares.append(f"{model_id(other)} ({other.request_class}) serves the same model in the same namespace")
        elif spec.runtime.node_selector and _pool(other) == _pool(spec):
            shares.append(f"{model_id(other)} ({other.request_class}) draws GPUs from the same node pool")
    if shares:
        evidence.append(Evidence("specs sharing a pool", shares))
        return result("spec.classes", model_id(spec), Status.WARN,
                      "interactive and batch traffic share a pool: " + "; ".join(shares), evidence,
                      "give batch its own node pool (runtime.nodeSelector) or its own InferenceService")
    others_n = len(others) - 1
    return result("spec.classes", model_id(spec), Status.PASS,
                  f"one request class ({spec.request_class}) on its own InferenceService"
                  + (f"; no pool shared with the other {others_n} spec(s)" if others_n else "")
                  + ("; batch/background requests sent here are shed first by x-request-class" if sensitive and spec.shedding.enabled else ""),
                  evidence)


def scale_down(*, facts: SpecFacts, measured_latency_s: float | None, measured_from: str | None) -> ItemResult:
    """A replica released sooner than a scale-up takes is not back when traffic returns within a
    scale-up: the checklist's repeated cold starts. The scaler holds ready replicas for
    RELEASE_HOLD_LATENCIES x the scale-up latency it is told (scaler.policy.decide), then the HPA
    waits out the stabilisation window render gives it (scaler.policy.behavior) before it acts on
    the lower demand: that hold is what a real scale-up must fit in."""
    spec = facts.spec
    window = behavior.SCALE_DOWN.stabilization_window_s
    planned = facts.sizing.scale_up_latency if facts.sizing else None
    evidence = [Evidence("HPA scaleDown stabilizationWindowSeconds as rendered (scaler.policy.behavior)", window),
                Evidence("scale-up latency planned (render --explain scaleUpLatencySeconds)", planned if planned is not None else AUTO)]
    if measured_latency_s is not None:
        evidence.append(Evidence(f"scale-up latency measured ({measured_from})", measured_latency_s))
    if planned is None:
        return result("spec.scale-down", model_id(spec), Status.UNKNOWN,
                      "scale-up latency is 'auto': the scaler's release hold follows what it learns", evidence,
                      "declare calibration.scaleUpLatencySeconds (or calibration.coldStart) so the hold is known before traffic")
    hold = RELEASE_HOLD_LATENCIES * planned + window
    evidence.append(Evidence(f"release hold: {RELEASE_HOLD_LATENCIES:g} x the planned scale-up latency "
                             "(scaler.policy.decide), then the HPA window", hold))
    latency = max(v for v in (planned, measured_latency_s) if v is not None)
    if hold < latency:
        return result("spec.scale-down", model_id(spec), Status.FAIL if spec.request_class in LATENCY_SENSITIVE else Status.WARN,
                      f"replicas are released {_s(hold)} after they were last needed, sooner than the scale-up latency "
                      f"{_s(latency)}: a replica released after a short lull is not back in time when traffic returns "
                      "(repeated cold starts)",
                      evidence, f"declare the real scale-up latency ({int(-(-latency // 1))} s) in calibration.scaleUpLatencySeconds "
                                "or calibration.coldStart")
    return result("spec.scale-down", model_id(spec), Status.PASS,
                  f"replicas are held {_s(hold)} after they were last needed, at least the scale-up latency {_s(latency)}",
                  evidence)
