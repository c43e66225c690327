"""Values derived from a spec, each with the reasoning `slo-scaler render --explain` prints.

`derive(spec)` is pure: the same spec always gives the same `Derived`. Refusals (scale to zero
that would break the SLO) raise `SpecError` naming the field; doubts (too few max replicas for
the peak) become warnings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.modelconfig.build import scaler_settings
from scaler.modelconfig.runtime import metadata_of
from scaler.policy.headroom import RETURN_SHARE, memory_half_life
from scaler.spec import AUTO, Issue, ModelSpec, SpecError

# Classes whose users wait on the first token: bursts must be absorbed by replicas already up.
LATENCY_SENSITIVE = ("interactive", "agent")
# KEDA pollingInterval by class when the spec does not set one: fast where seconds matter.
POLLING_INTERVAL_S = {"interactive": 5, "agent": 5, "background": 15, "batch": 30}
# After vLLM's drain, time for the process to exit before the kubelet sends SIGKILL.
EXIT_MARGIN_S = 5
# Unready replicas are alarming once they have taken this many scale-up latencies.
READY_TIMEOUT_FACTOR = 2
# KEDA calls the external scaler at least this often; fallback kicks in after this many failures.
FALLBACK_FAILURE_THRESHOLD = 3
PORTS = {"keda": 9090, "metrics": 9091, "rls": 8081}


@dataclass(frozen=True)
class Step:
    """One derived value and why it has that value."""

    name: str
    value: object
    reason: str


@dataclass(frozen=True)
class Derived:
    min_replicas: int  # ScaledObject minReplicaCount (replicas while active)
    # Replicas up when a burst like the profile's starts (None: not sized): the scaler's burstReplicas,
    # held while the traffic reaches it (scaler.policy.burst_floor), and KEDA's fallback.
    burst_replicas: int | None
    # How surely bursts like the profile's come back, 0-1 (None: not sized): the scaler's
    # burstRecurrence, the returns its floor starts with (scaler.policy.burst_floor).
    burst_recurrence: float | None
    idle_replicas: int | None  # ScaledObject idleReplicaCount: 0 when scale to zero is allowed
    max_replicas: int
    scale_up_latency: float | None  # what a scale-up pays (warm pool considered); None = learned
    target_utilization: float
    target_concurrency: int
    polling_interval: int
    cooldown_period: int
    fallback_replicas: int
    termination_grace_seconds: int
    replica_ready_timeout: int
    budget_seconds: float
    steps: tuple[Step, ...]
    warnings: tuple[str, ...]

    def explain(self) -> str:
        lines = [f"{s.name} = {s.value}: {s.reason}" for s in self.steps]
        lines += [f"WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)


def _fmt(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def derive(spec: ModelSpec, source: str = "<spec>") -> Derived:
    steps: list[Step] = []
    warnings: list[str] = []
    cal, rep, slo = spec.calibration, spec.replicas, spec.slo

    budget = slo.ttft_p95_seconds - cal.expected_prefill_seconds
    steps.append(Step("budgetSeconds", _fmt(budget), f"TTFT p95 SLO {_fmt(slo.ttft_p95_seconds)} s minus expected prefill {_fmt(cal.expected_prefill_seconds)} s: what a request may spend queued"))

    latency = _scale_up_latency(spec, steps)
    target_concurrency, utilization = _target(spec, source, steps)
    capacity = None if cal.per_replica_capacity == AUTO else float(cal.per_replica_capacity)
    carry = None if capacity is None else capacity * utilization

    needed = _burst_replicas(spec, latency, capacity, carry, steps)
    recurrence = None if needed is None else _burst_recurrence(spec, steps)
    if needed is not None and needed > rep.max:
        warnings.append(f"burst headroom needs {needed} replicas but replicas.max is {rep.max}: burstReplicas capped at {rep.max}")
        needed = rep.max
    min_replicas, idle = _min_replicas(spec, source, latency, needed, steps)
    fallback = max(min_replicas, needed or 0)

    if carry is None:
        warnings.append("perReplicaCapacity is 'auto': cannot check that replicas.max carries traffic.peakRequestsPerSecond until the scaler has learned it")
    else:
        for_peak = math.ceil(spec.traffic.peak_requests_per_second / carry) if carry > 0 else 0
        steps.append(Step("replicasForPeak", for_peak, f"peak {_fmt(spec.traffic.peak_requests_per_second)} req/s / ({_fmt(capacity)} req/s x {_fmt(utilization)}) per replica"))
        if for_peak > rep.max:
            warnings.append(
                f"replicas.max ({rep.max}) carries {_fmt(round(rep.max * carry, 3))} req/s at the target, below traffic.peakRequestsPerSecond "
                f"({_fmt(spec.traffic.peak_requests_per_second)}): the peak needs {for_peak} replicas; expect shedding at peak"
            )

    if spec.model_cache is not None and rep.warm_pool == 0:
        warnings.append("modelCache is set but replicas.warmPool is 0: no LocalModelCache is rendered (cached weights only help on nodes the warm pool keeps up)")

    polling = spec.scaler.polling_interval_seconds or POLLING_INTERVAL_S[spec.request_class]
    steps.append(Step("pollingInterval", polling, "from scaler.pollingIntervalSeconds" if spec.scaler.polling_interval_seconds else f"default for request class {spec.request_class}"))

    grace = spec.runtime.pre_stop_sleep_seconds + spec.runtime.shutdown_timeout_seconds + EXIT_MARGIN_S
    steps.append(Step("terminationGracePeriodSeconds", grace, f"preStop sleep {spec.runtime.pre_stop_sleep_seconds} s + vLLM shutdown timeout {spec.runtime.shutdown_timeout_seconds} s + {EXIT_MARGIN_S} s to exit"))

    if spec.alerts.replica_ready_timeout_seconds is not None:
        ready_timeout = spec.alerts.replica_ready_timeout_seconds
        steps.append(Step("replicaReadyTimeout", ready_timeout, "from alerts.replicaReadyTimeoutSeconds"))
    else:
        cold = float(cal.scale_up_latency_seconds)  # checks.py requires the field when latency is auto
        ready_timeout = math.ceil(READY_TIMEOUT_FACTOR * cold)
        steps.append(Step("replicaReadyTimeout", ready_timeout, f"{READY_TIMEOUT_FACTOR} x cold scale-up latency {_fmt(cold)} s"))

    steps.append(Step("fallback", f"{fallback} (currentReplicasIfHigher)", f"if the scaler fails {FALLBACK_FAILURE_THRESHOLD} times in a row, KEDA keeps the current replicas, never fewer than " + ("burstReplicas" if fallback > min_replicas else "minReplicaCount")))

    return Derived(
        min_replicas=min_replicas,
        burst_replicas=needed,
        burst_recurrence=recurrence,
        idle_replicas=idle,
        max_replicas=rep.max,
        scale_up_latency=latency,
        target_utilization=utilization,
        target_concurrency=target_concurrency,
        polling_interval=polling,
        cooldown_period=rep.scale_down_stabilization_seconds,
        fallback_replicas=fallback,
        termination_grace_seconds=grace,
        replica_ready_timeout=ready_timeout,
        budget_seconds=budget,
        steps=tuple(steps),
        warnings=tuple(warnings),
    )


def _scale_up_latency(spec: ModelSpec, steps: list[Step]) -> float | None:
    cal = spec.calibration
    if cal.scale_up_latency_seconds == AUTO:
        steps.append(Step("scaleUpLatencySeconds", AUTO, "calibration says 'auto': the scaler learns it from replicas becoming ready"))
        return None
    warm, why = warm_scale_up_latency(spec)
    if spec.replicas.warm_pool > 0 and warm is not None:
        steps.append(Step(
            "scaleUpLatencySeconds", _fmt(warm),
            f"warm pool of {spec.replicas.warm_pool} holds GPU nodes, so a scale-up pays {why} "
            f"instead of the cold {_fmt(cal.scale_up_latency_seconds)} s; "
            f"beyond {spec.replicas.warm_pool} extra replicas the cold latency applies",
        ))
        return warm
    steps.append(Step("scaleUpLatencySeconds", _fmt(cal.scale_up_latency_seconds), "measured cold scale-up latency (no warm pool)"))
    return float(cal.scale_up_latency_seconds)


def warm_scale_up_latency(spec: ModelSpec) -> tuple[float | None, str]:
    """A scale-up onto a warm-pool node: the measured value, else from calibration.coldStart. The
    held node removes provisioning and the image pull; a LocalModelCache also the weight download."""
    cal = spec.calibration
    if cal.warm_scale_up_latency_seconds is not None:
        return float(cal.warm_scale_up_latency_seconds), f"container start and weight load (measured {_fmt(cal.warm_scale_up_latency_seconds)} s)"
    if cal.cold_start is None:
        return None, ""
    c = cal.cold_start
    if spec.model_cache is not None:
        return float(c.load_seconds), f"only the load ({_fmt(c.load_seconds)} s from coldStart: node, image and cached weights are already there)"
    warm = c.weight_download_seconds + c.load_seconds
    return float(warm), (f"the weight download and load ({_fmt(c.weight_download_seconds)} + {_fmt(c.load_seconds)} s from coldStart; "
                         "a modelCache would remove the download)")


def _target(spec: ModelSpec, source: str, steps: list[Step]) -> tuple[int, float]:
    safe = spec.calibration.safe_concurrency
    if safe < 2:
        raise SpecError(source, [Issue("calibration.safeConcurrency", "at least 2, so the autoscaler target can sit below it", safe)])
    asked = spec.scaler.target_utilization
    target, utilization = target_concurrency(safe, asked)
    steps.append(Step(
        "targetUtilization", _fmt(utilization),
        f"per-replica target of {target} concurrent requests, the largest whole number at or below "
        f"{_fmt(asked)} x safe concurrency {safe} and strictly below it; KEDA's AverageValue target stays 1 replica-equivalent",
    ))
    return target, utilization


def target_concurrency(safe_concurrency: int, asked_utilization: float) -> tuple[int, float]:
    """Per-replica target concurrency (strictly below the safe one) and the utilisation it deploys as."""
    target = max(1, min(math.floor(safe_concurrency * asked_utilization), safe_concurrency - 1))
    return target, math.floor(target / safe_concurrency * 10000) / 10000


def burst_replicas(base_rps: float, peak_rps: float, growth_rps_per_s: float, latency_s: float,
                   carry_rps: float, request_s: float) -> tuple[int, float]:
    """Replicas that must already be up for a burst, and the rate they must carry.

    Capacity asked for at a burst's start lands one scale-up latency L later; until then the
    replicas up hold every request still in flight. A request stays about `request_s` (its time
    in a full batch), so at L they hold what arrived over the last `request_s` seconds: the rate
    they carry is the burst's mean over that span, min(base + growth x t, peak). For short
    requests that is the rate reached at L; requests that outlast the rise (long generations)
    carry part of it, so the rise's late arrivals land on capacity already asked for."""
    if request_s <= 0:
        reach = min(base_rps + growth_rps_per_s * latency_s, peak_rps)
    else:
        excess = _rise_integral(max(0.0, latency_s - request_s), latency_s, growth_rps_per_s, peak_rps - base_rps)
        reach = base_rps + excess / request_s
    return (math.ceil(reach / carry_rps) if carry_rps > 0 else 0), reach


def burst_recurrence(base_rps: float, peak_rps: float) -> float:
    """How surely bursts like the profile's come back, 0-1: how far its peak minute stands above its
    mean rate, against the burst history's own mark of a burst (scaler.policy.headroom: a count over
    1 / RETURN_SHARE x what was there before). A peak at the mean is a level the traffic was at (0);
    a peak at twice the mean or more is a burst the traffic left and came back to (1). Rounded to
    the 4 decimals the trigger metadata carries, so the simulator holds what a cluster is sent."""
    if base_rps <= 0:
        return 1.0
    return round(min(1.0, max(0.0, (peak_rps / base_rps - 1.0) / (1.0 / RETURN_SHARE - 1.0))), 4)


def request_seconds(safe_concurrency: int, capacity_rps: float) -> float:
    """A request's time in a full batch, by Little's law: the safe concurrency over the throughput."""
    return safe_concurrency / capacity_rps if capacity_rps > 0 else 0.0


def _rise_integral(start_s: float, end_s: float, growth: float, limit: float) -> float:
    """Integral over [start_s, end_s] (both >= 0) of min(growth x t, limit): a burst's excess arrivals."""
    if growth <= 0 or limit <= 0:
        return 0.0
    if growth * end_s <= limit:  # still rising at the end
        return 0.5 * growth * (end_s * end_s - start_s * start_s)
    top = limit / growth  # when the rise reaches the peak: finite, as growth x end_s > limit > 0
    lo = min(start_s, top)
    return 0.5 * growth * (top * top - lo * lo) + limit * (end_s - max(start_s, top))


def _burst_recurrence(spec: ModelSpec, steps: list[Step]) -> float:
    t = spec.traffic
    recurrence = burst_recurrence(t.base_requests_per_second, t.peak_requests_per_second)
    steps.append(Step(
        "burstRecurrence", _fmt(recurrence),
        f"peak {_fmt(t.peak_requests_per_second)} req/s over base {_fmt(t.base_requests_per_second)}: 0 is a level the traffic "
        f"was at, 1 a burst it leaves and comes back to (a peak at {_fmt(1 / RETURN_SHARE)} x the base or more); the scaler's "
        f"floor starts with this many returns, so it fades with a half-life of "
        f"{_fmt(round(memory_half_life(recurrence) / 60, 1))} minutes once the traffic stops reaching it",
    ))
    return recurrence


def _burst_replicas(spec: ModelSpec, latency: float | None, capacity: float | None, carry: float | None,
                    steps: list[Step]) -> int | None:
    t = spec.traffic
    if spec.request_class not in LATENCY_SENSITIVE:
        steps.append(Step("burstReplicas", "-", f"request class {spec.request_class} tolerates waiting for a scale-up, so bursts need no standing headroom"))
        return None
    if latency is None or carry is None:
        missing = "scaleUpLatencySeconds" if latency is None else "perReplicaCapacity"
        steps.append(Step("burstReplicas", "-", f"calibration.{missing} is 'auto': burst headroom cannot be sized, replicas.min is used as is"))
        return None
    request_s = request_seconds(spec.calibration.safe_concurrency, capacity)
    needed, reach = burst_replicas(t.base_requests_per_second, t.peak_requests_per_second,
                                   t.burst_growth_per_second, latency, carry, request_s)
    steps.append(Step(
        "burstReplicas", needed,
        f"a burst grows {_fmt(t.burst_growth_per_second)} req/s per s for the {_fmt(latency)} s a new replica takes, "
        f"up to peak {_fmt(t.peak_requests_per_second)} from base {_fmt(t.base_requests_per_second)}; a request stays "
        f"{_fmt(round(request_s, 3))} s (safe concurrency {spec.calibration.safe_concurrency} / {_fmt(capacity)} req/s), so replicas "
        f"already up hold what arrived in the last {_fmt(round(request_s, 3))} s before the new one is ready: "
        f"{_fmt(round(reach, 3))} req/s on average, at {_fmt(round(carry, 4))} req/s each",
    ))
    return needed


def _min_replicas(spec: ModelSpec, source: str, latency: float | None, needed: int | None, steps: list[Step]) -> tuple[int, int | None]:
    rep = spec.replicas
    if rep.min == 0:
        return _scale_to_zero(spec, source, latency, needed, steps)
    why = f"replicas.min {rep.min}"
    if needed and needed > rep.min:
        why += (f"; the scaler holds burstReplicas {needed} above it while the traffic keeps reaching the rate of its "
                f"last replica, and lets it fade when it does not")
    steps.append(Step("minReplicas", rep.min, why))
    return rep.min, None


def _scale_to_zero(spec: ModelSpec, source: str, latency: float | None, needed: int | None, steps: list[Step]) -> tuple[int, int | None]:
    slo = spec.slo.ttft_p95_seconds
    if spec.request_class in LATENCY_SENSITIVE:
        too_slow = latency is None or latency >= slo
        if too_slow and not spec.replicas.force_scale_to_zero:
            shown = "unknown ('auto')" if latency is None else f"{_fmt(latency)} s"
            raise SpecError(source, [Issue(
                "replicas.min",
                f"at least 1 for a {spec.request_class} model: scale-up latency {shown} is not below the TTFT p95 SLO "
                f"({_fmt(slo)} s), so the first request after idle would break the SLO; set replicas.forceScaleToZero: true to accept that",
                0,
            )])
        if needed:
            raise SpecError(source, [Issue(
                "replicas.min",
                f"at least {needed}: traffic.baseRequestsPerSecond and the burst growth need that many replicas up, which contradicts scale to zero",
                0,
            )])
    forced = spec.replicas.force_scale_to_zero and spec.request_class in LATENCY_SENSITIVE
    steps.append(Step("idleReplicaCount", 0, "scale to zero allowed" + (" because replicas.forceScaleToZero is true" if forced else f" for request class {spec.request_class}")))
    steps.append(Step("minReplicas", 1, "while active at least one replica; KEDA needs idleReplicaCount below minReplicaCount"))
    return 1, 0


def trigger_metadata(spec: ModelSpec, derived: Derived) -> dict[str, str]:
    """The ScaledObject trigger metadata, exactly as KEDA passes it to the scaler (all strings).

    The scaler keys come from the same values as the model's runtime config (scaler.modelconfig),
    so the ConfigMap and the ScaledObject always agree.
    """
    s = spec.scaler
    meta = {"scalerAddress": scaler_address(spec, "keda"), **metadata_of(scaler_settings(spec, derived), spec.model.served_name)}
    if s.tls.enabled:
        meta["enableTLS"] = "true"
        meta["unsafeSsl"] = "true" if s.tls.unsafe_ssl else "false"
    return dict(sorted(meta.items()))


def scaler_host(spec: ModelSpec) -> str:
    return f"{spec.scaler.service}.{spec.scaler.namespace}.svc.cluster.local"


def rls_host(spec: ModelSpec) -> str:
    """The rate-limit service Envoy calls: the base's headless Service `<service>-rls`, which
    resolves to every scaler replica, so Envoy (STRICT_DNS) spreads its calls over them and its
    outlier detection ejects a dead one instead of failing open for a whole ClusterIP's worth."""
    return f"{spec.scaler.service}-rls.{spec.scaler.namespace}.svc.cluster.local"


def scaler_address(spec: ModelSpec, port: str) -> str:
    return f"{scaler_host(spec)}:{PORTS[port]}"
