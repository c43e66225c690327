"""The model spec: one YAML document per served model, typed and validated.

Keys are camelCase in YAML (like Kubernetes objects); attributes are snake_case in Python.
Unknown keys are errors, numbers are never parsed from strings, and every string that reaches a
rendered file is pattern-checked (see `scaler.spec.types`). Rules that involve several fields are in
`scaler.spec.checks`; `scaler.spec.load` turns every failure into a field path and what was expected.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from scaler.spec.types import (
    CliArg,
    Hostname,
    HttpUrl,
    Image,
    LabelKey,
    LabelValue,
    ModelName,
    ModelUri,
    Namespace,
    PositiveOrAuto,
    Quantity,
    ResourceName,
    SecretName,
    ServedName,
    TenantName,
)

API_VERSION = "slo-scaler.io/v1alpha1"
KIND = "ModelSpec"
REQUEST_CLASSES = ("interactive", "agent", "background", "batch")
RequestClass = Literal["interactive", "agent", "background", "batch"]

Seconds = Annotated[float, Field(gt=0, le=86400)]
Rate = Annotated[float, Field(ge=0, le=1e6)]
Ratio = Annotated[float, Field(gt=0, le=10)]


class _Spec(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        frozen=True,
    )


class ModelRef(_Spec):
    uri: ModelUri
    served_name: ServedName = Field(description="vLLM --served-model-name; the `model` in OpenAI requests and the `model_name` metric label")


class Gpu(_Spec):
    resource: ResourceName = "nvidia.com/gpu"
    count: Annotated[int, Field(ge=1, le=16)] = 1


class Toleration(_Spec):
    key: LabelKey
    operator: Literal["Exists", "Equal"] = "Exists"
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None


class Runtime(_Spec):
    image: Image = Field(description="vLLM OpenAI-compatible server image")
    args: list[CliArg] = Field(default_factory=list, description="extra vLLM arguments; --model, --port and --served-model-name are set by the renderer")
    port: Annotated[int, Field(ge=1024, le=65535)] = 8080
    gpu: Gpu = Field(default_factory=Gpu)
    cpu: Quantity | None = None
    memory: Quantity | None = None
    node_selector: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)
    shutdown_timeout_seconds: Annotated[int, Field(ge=1, le=3600)] = Field(
        30, description="how long vLLM drains in-flight requests after SIGTERM (its --shutdown-timeout, where the version has one)"
    )
    pre_stop_sleep_seconds: Annotated[int, Field(ge=0, le=300)] = Field(
        10, description="wait before SIGTERM so the gateway stops routing to a terminating pod"
    )


class Slo(_Spec):
    ttft_p95_seconds: Seconds = Field(description="time-to-first-token objective at p95; the scaler's ttftSloSeconds")
    ttft_p99_seconds: Seconds
    tpot_seconds: Seconds | None = Field(None, description="time-per-output-token objective; the scaler's tpotSloSeconds")


class Traffic(_Spec):
    base_requests_per_second: Rate
    peak_requests_per_second: Rate
    burst_growth_per_second: Rate = Field(description="how fast the request rate can climb during a burst, in requests/s per second")


class ColdStart(_Spec):
    """Where a cold scale-up's time goes (measured). The warm pool removes the first two parts,
    a LocalModelCache the third; loading the weights into GPU memory always remains."""

    node_provision_seconds: Annotated[float, Field(ge=0, le=7200)] = Field(description="cluster autoscaler: a new GPU node joins and is Ready")
    image_pull_seconds: Annotated[float, Field(ge=0, le=7200)] = Field(description="the vLLM image pulled to the node")
    weight_download_seconds: Annotated[float, Field(ge=0, le=7200)] = Field(description="the storage initializer downloads the weights")
    load_seconds: Annotated[float, Field(ge=0, le=7200)] = Field(description="container start, weights into GPU memory, CUDA graphs, until /health")


class Calibration(_Spec):
    safe_concurrency: Annotated[int, Field(ge=1, le=100000)] = Field(description="concurrent requests per replica before TTFT degrades (measured)")
    per_replica_capacity: PositiveOrAuto = Field(description="sustainable requests/s per replica, or 'auto' to learn it")
    scale_up_latency_seconds: PositiveOrAuto = Field(description="measured time from scale-up to Ready on a cold node (node, image, weights), or 'auto'")
    warm_scale_up_latency_seconds: Seconds | None = Field(
        None, description="measured time from scale-up to Ready on a warm-pool node; derived from coldStart when absent "
        "(load, plus weight download unless a LocalModelCache is rendered)"
    )
    cold_start: ColdStart | None = Field(None, description="the parts of a cold scale-up, to derive the warm latency")
    expected_prefill_seconds: Annotated[float, Field(ge=0, le=3600)] = 0.0
    prefill_tokens_per_second: Annotated[float, Field(gt=0, le=1e9)] | None = Field(
        None, description="one replica's prefill throughput, prompt tokens/s (llm-d's peakPrefillThroughput): "
        "the scaler's prefillTokensPerSecond, which turns on the TTFT predictor's prefill term"
    )
    capacity_prompt_tokens: Annotated[float, Field(gt=0, le=1e9)] | None = Field(
        None, description="mean prompt tokens per request of the mix perReplicaCapacity was measured on (slo-scaler "
        "calibrate's --prompt-tokens): with prefillTokensPerSecond, the scaler weighs the capacity by the live prompts"
    )


class Replicas(_Spec):
    min: Annotated[int, Field(ge=0, le=1000)] = Field(1, description="floor for minReplicas; 0 asks for scale to zero")
    max: Annotated[int, Field(ge=1, le=1000)]
    warm_pool: Annotated[int, Field(ge=0, le=1000)] = Field(0, description="GPU nodes held by low-priority placeholder pods")
    force_scale_to_zero: bool = Field(False, description="allow scale to zero even where scale-up latency would break the TTFT SLO")
    scale_down_stabilization_seconds: Annotated[int, Field(ge=0, le=3600)] = Field(
        300, description="with scale to zero: idle time before the last replica goes (KEDA cooldownPeriod); otherwise the "
        "scaler holds replicas itself and the HPA follows it (scaler.policy.behavior)"
    )


class Tenant(_Spec):
    name: TenantName
    weight: Annotated[float, Field(gt=0, le=1000)] = 1.0
    quota_requests_per_second: Annotated[float, Field(gt=0, le=1e6)] | None = None


class RlsTls(_Spec):
    enabled: bool = Field(False, description="Envoy calls the rate-limit service over mutual TLS (serve --rls-tls-cert/-key/-client-ca)")
    secret_name: SecretName = Field("slo-scaler-rls-client", description="Secret with Envoy's client tls.crt and tls.key, and the ca.crt that signed the scaler's certificate, mounted at /etc/slo-scaler/rls-tls in the gateway")


class Shedding(_Spec):
    enabled: bool = True
    status_code: Literal[429, 503] = Field(503, description="status for requests shed because capacity cannot meet the SLO")
    tenant_quota_status_code: Literal[429, 503] = Field(429, description="status for requests over their tenant's quota")
    tenants: list[Tenant] = Field(default_factory=list)
    yellow_shed_classes: list[RequestClass] = Field(
        default_factory=lambda: ["batch", "background"], description="classes refused while the model is YELLOW (queue growing)"
    )
    shadow: bool = Field(False, description="decide and count, never refuse (roll out in shadow, watch the reason=shadow-* metrics, then enforce)")
    rls_timeout_ms: Annotated[int, Field(ge=5, le=1000)] = Field(50, description="Envoy waits this long for the rate-limit service, then admits")
    rls_tls: RlsTls = Field(default_factory=RlsTls)


class IstioGateway(_Spec):
    namespace: Namespace = "istio-system"
    selector: dict[LabelKey, LabelValue] = Field(default_factory=lambda: {"istio": "ingressgateway"})
    host: Hostname = Field(description="host the gateway routes to this model (KServe's <name>-<namespace>.<domain>)")
    predictor_host: Hostname | None = Field(
        None, description="the predictor's own host, also shed; derived as <name>-predictor-<namespace>.<domain> when host follows KServe's pattern"
    )
    port: Annotated[int, Field(ge=1, le=65535)] = 80


class Gateway(_Spec):
    kind: Literal["istio", "envoy"] = Field("istio", description="istio: an EnvoyFilter on a KServe ingress gateway; envoy: a standalone envoy.yaml")
    istio: IstioGateway | None = None
    listen_port: Annotated[int, Field(ge=1024, le=65535)] = Field(8000, description="standalone Envoy listener port")
    admin_port: Annotated[int, Field(ge=1024, le=65535)] = 9901


class Thresholds(_Spec):
    yellow_enter_ratio: Ratio = 0.4
    yellow_exit_ratio: Ratio = 0.3
    red_enter_ratio: Ratio = 1.0
    red_exit_ratio: Ratio = 0.8
    state_hold_seconds: Annotated[float, Field(ge=0, le=3600)] = 30.0


class Tls(_Spec):
    enabled: bool = False
    secret_name: SecretName | None = Field(None, description="Secret with ca.crt, tls.crt and tls.key for KEDA to reach the scaler")
    unsafe_ssl: bool = False


class Scaler(_Spec):
    service: ModelName = "slo-scaler"
    namespace: Namespace = "slo-scaler"
    source: Literal["prometheus", "scrape"] = "prometheus"
    prometheus_address: HttpUrl | None = None
    scrape_targets: list[HttpUrl] = Field(default_factory=list)
    target_utilization: Annotated[float, Field(gt=0, le=1)] = 0.8
    push: bool = Field(False, description="use KEDA's external-push trigger (scale from zero on the scaler's signal)")
    polling_interval_seconds: Annotated[int, Field(ge=1, le=600)] | None = Field(None, description="KEDA pollingInterval; derived from the request class when absent")
    thresholds: Thresholds = Field(default_factory=Thresholds)
    tls: Tls = Field(default_factory=Tls)


class Alerts(_Spec):
    waiting_to_running_ratio: Annotated[float, Field(gt=0, le=1000)] = 1.0
    refusal_ratio: Annotated[float, Field(gt=0, le=1)] = 0.05
    replica_ready_timeout_seconds: Annotated[int, Field(ge=1, le=86400)] | None = Field(
        None, description="alert when replicas stay unready this long; derived as 2x scale-up latency when absent"
    )


# KServe releases this renderer supports, 0.15 to 0.20: `serving.kserve.io/deploymentMode: Standard`
# exists from 0.16; 0.15 only knows RawDeployment and silently falls back to the configmap default
# (often Serverless: no <isvc>-predictor Deployment for the ScaledObject) on a value it does not know.
KSERVE_VERSIONS = ("0.15", "0.16", "0.17", "0.18", "0.19", "0.20")
STANDARD_MODE_SINCE = "0.16"


class KServe(_Spec):
    version: Literal[KSERVE_VERSIONS] = Field(
        "0.16", description="installed KServe minor version (0.15 to 0.20): 0.16 and later get deploymentMode Standard, 0.15 RawDeployment"
    )


class ModelCache(_Spec):
    """KServe LocalModelCache: the weights kept on the warm pool's nodes, so a new replica skips the download."""

    node_group: ModelName = Field(description="an existing KServe LocalModelNodeGroup whose nodes are the warm pool's (runtime.nodeSelector)")
    model_size: Quantity = Field(description="disk the weights need on each node, like '16Gi'")


class Monitoring(_Spec):
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=lambda: {"release": "kube-prometheus-stack"},
        description="labels on the PodMonitor and PrometheusRule so the Prometheus Operator selects them "
        "(kube-prometheus-stack selects its Helm release label by default)",
    )


class ModelSpec(_Spec):
    """One served model: everything needed to render its manifests and configure the scaler."""

    api_version: Literal["slo-scaler.io/v1alpha1"] = Field(alias="apiVersion")
    kind: Literal["ModelSpec"]
    name: ModelName
    namespace: Namespace
    model: ModelRef
    runtime: Runtime
    slo: Slo
    request_class: RequestClass
    traffic: Traffic
    calibration: Calibration
    replicas: Replicas
    shedding: Shedding = Field(default_factory=Shedding)
    gateway: Gateway = Field(default_factory=Gateway)
    scaler: Scaler = Field(default_factory=Scaler)
    alerts: Alerts = Field(default_factory=Alerts)
    monitoring: Monitoring = Field(default_factory=Monitoring)
    model_cache: ModelCache | None = None
    kserve: KServe = Field(default_factory=KServe)
