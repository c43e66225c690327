"""Rules between fields of a spec that passed type validation.

Each rule yields `Issue(path, expected)`; all issues are reported together, not just the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from scaler.spec.model import ModelSpec

# URIs KServe's LocalModelCache downloads onto nodes (pvc:// is already on a volume, oci:// is an image).
CACHEABLE_SCHEMES = ("hf", "s3", "gs", "https")


def cacheable(uri: str) -> bool:
    return uri.split("://", 1)[0] in CACHEABLE_SCHEMES


# Set by the renderer from the spec itself; a second value in `runtime.args` would fight it.
RESERVED_ARGS = ("--model", "--port", "--served-model-name", "--host")


@dataclass(frozen=True)
class Issue:
    path: str
    expected: str
    got: object = None

    def __str__(self) -> str:
        shown = "" if self.got is None else f" (got {self.got!r})"
        return f"{self.path}: expected {self.expected}{shown}"


def check(spec: ModelSpec) -> list[Issue]:
    return [*_slo(spec), *_traffic(spec), *_replicas(spec), *_runtime(spec), *_scaler(spec), *_shedding(spec), *_gateway(spec), *_alerts(spec)]


def _slo(spec: ModelSpec) -> Iterator[Issue]:
    if spec.slo.ttft_p99_seconds < spec.slo.ttft_p95_seconds:
        yield Issue("slo.ttftP99Seconds", f"at least slo.ttftP95Seconds ({spec.slo.ttft_p95_seconds:g})", spec.slo.ttft_p99_seconds)
    if spec.calibration.expected_prefill_seconds >= spec.slo.ttft_p95_seconds:
        yield Issue(
            "calibration.expectedPrefillSeconds",
            f"less than slo.ttftP95Seconds ({spec.slo.ttft_p95_seconds:g}), or no time is left for queueing",
            spec.calibration.expected_prefill_seconds,
        )
    if spec.calibration.capacity_prompt_tokens is not None and spec.calibration.prefill_tokens_per_second is None:
        yield Issue("calibration.capacityPromptTokens",
                    "only with calibration.prefillTokensPerSecond set: the scaler weighs a prompt at the prefill throughput",
                    spec.calibration.capacity_prompt_tokens)


def _traffic(spec: ModelSpec) -> Iterator[Issue]:
    t = spec.traffic
    if t.peak_requests_per_second < t.base_requests_per_second:
        yield Issue("traffic.peakRequestsPerSecond", f"at least traffic.baseRequestsPerSecond ({t.base_requests_per_second:g})", t.peak_requests_per_second)


def _replicas(spec: ModelSpec) -> Iterator[Issue]:
    r = spec.replicas
    if r.min > r.max:
        yield Issue("replicas.min", f"at most replicas.max ({r.max})", r.min)
    if r.warm_pool > r.max:
        yield Issue("replicas.warmPool", f"at most replicas.max ({r.max}); more warm nodes than replicas can never be used", r.warm_pool)
    warm = spec.calibration.warm_scale_up_latency_seconds
    cold = spec.calibration.scale_up_latency_seconds
    if warm is not None and isinstance(cold, float) and warm > cold:
        yield Issue("calibration.warmScaleUpLatencySeconds", f"at most calibration.scaleUpLatencySeconds ({cold:g})", warm)
    if r.warm_pool > 0 and warm is None and spec.calibration.cold_start is None:
        yield Issue("calibration.warmScaleUpLatencySeconds", "a measured value, or calibration.coldStart to derive it, when replicas.warmPool > 0 (the warm pool exists to shorten it)")
    if spec.model_cache is not None:
        if not cacheable(spec.model.uri):
            yield Issue("modelCache", f"a model.uri KServe's LocalModelCache can download ({', '.join(CACHEABLE_SCHEMES)}), not {spec.model.uri.split(':', 1)[0]}://")


def _runtime(spec: ModelSpec) -> Iterator[Issue]:
    args = spec.runtime.args
    for i, arg in enumerate(args):
        flag = arg.split("=", 1)[0]
        if flag in RESERVED_ARGS:
            yield Issue(f"runtime.args[{i}]", f"no {flag}: the renderer sets it from the spec", arg)
        if flag == "--shutdown-timeout":
            value = arg.split("=", 1)[1] if "=" in arg else (args[i + 1] if i + 1 < len(args) else "")
            if value != str(spec.runtime.shutdown_timeout_seconds):
                yield Issue(
                    f"runtime.args[{i}]",
                    f"--shutdown-timeout equal to runtime.shutdownTimeoutSeconds ({spec.runtime.shutdown_timeout_seconds}), which sizes the grace period",
                    arg if "=" in arg else f"{arg} {value}",
                )


def _scaler(spec: ModelSpec) -> Iterator[Issue]:
    s = spec.scaler
    if s.source == "prometheus" and s.prometheus_address is None:
        yield Issue("scaler.prometheusAddress", "a Prometheus URL when scaler.source is 'prometheus'")
    if s.source == "scrape" and s.prometheus_address is not None:
        yield Issue("scaler.prometheusAddress", "no value when scaler.source is 'scrape'", s.prometheus_address)
    th = s.thresholds
    if th.yellow_exit_ratio > th.yellow_enter_ratio:
        yield Issue("scaler.thresholds.yellowExitRatio", f"at most yellowEnterRatio ({th.yellow_enter_ratio:g}) for hysteresis", th.yellow_exit_ratio)
    if th.red_exit_ratio > th.red_enter_ratio:
        yield Issue("scaler.thresholds.redExitRatio", f"at most redEnterRatio ({th.red_enter_ratio:g}) for hysteresis", th.red_exit_ratio)
    if th.yellow_enter_ratio > th.red_enter_ratio:
        yield Issue("scaler.thresholds.yellowEnterRatio", f"at most redEnterRatio ({th.red_enter_ratio:g})", th.yellow_enter_ratio)
    if s.tls.enabled and s.tls.secret_name is None:
        yield Issue("scaler.tls.secretName", "the name of a Secret with ca.crt, tls.crt and tls.key when scaler.tls.enabled is true")
    if not s.tls.enabled and s.tls.unsafe_ssl:
        yield Issue("scaler.tls.unsafeSsl", "false when scaler.tls.enabled is false", True)


def _shedding(spec: ModelSpec) -> Iterator[Issue]:
    seen: set[str] = set()
    for i, tenant in enumerate(spec.shedding.tenants):
        if tenant.name in seen:
            yield Issue(f"shedding.tenants[{i}].name", "a tenant name not listed before", tenant.name)
        seen.add(tenant.name)


def _gateway(spec: ModelSpec) -> Iterator[Issue]:
    g = spec.gateway
    if g.kind == "istio" and g.istio is None:
        yield Issue("gateway.istio", "the ingress gateway (host, and optionally namespace, selector, port) when gateway.kind is 'istio'")
    if g.kind == "envoy" and g.istio is not None:
        yield Issue("gateway.istio", "no value when gateway.kind is 'envoy'")
    if g.istio is not None and g.istio.predictor_host is None and predictor_host(spec) is None:
        yield Issue(
            "gateway.istio.predictorHost",
            f"the predictor's host when gateway.istio.host does not start with '{spec.name}-{spec.namespace}.' "
            "(KServe's pattern): requests to that host would bypass shedding",
        )
    if g.listen_port == g.admin_port:
        yield Issue("gateway.adminPort", f"a port other than gateway.listenPort ({g.listen_port})", g.admin_port)


def predictor_host(spec: ModelSpec) -> str | None:
    """KServe names the predictor's host <name>-predictor-<namespace>.<domain> next to the service's
    <name>-<namespace>.<domain>; None when the configured host does not follow that pattern."""
    gw = spec.gateway.istio
    if gw is None:
        return None
    if gw.predictor_host is not None:
        return gw.predictor_host
    prefix = f"{spec.name}-{spec.namespace}."
    return f"{spec.name}-predictor-{spec.namespace}.{gw.host[len(prefix):]}" if gw.host.startswith(prefix) else None


def _alerts(spec: ModelSpec) -> Iterator[Issue]:
    if spec.alerts.replica_ready_timeout_seconds is None and spec.calibration.scale_up_latency_seconds == "auto":
        yield Issue("alerts.replicaReadyTimeoutSeconds", "a value when calibration.scaleUpLatencySeconds is 'auto' (it is derived from the measured latency otherwise)")
