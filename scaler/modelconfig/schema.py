"""The per-model runtime config file `slo-scaler serve --config` reads (format slo-scaler.io/v1alpha1, kind ModelConfig).

One file per served model, rendered from its spec by `slo-scaler render` into the ConfigMap the
scaler mounts. `scaler` holds the same keys as the ScaledObject's trigger metadata, typed (the
server parses them with the same parser, `scaler.server.metadata.parse`); `shedding` holds what
the rate-limit service enforces for this model. Unknown keys are errors; the JSON Schema is
published as docs/modelconfig.schema.json (a test keeps it equal to `json_schema()`).
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from scaler.spec.model import RequestClass, Tenant
from scaler.spec.types import HttpUrl, Namespace, PositiveOrAuto, ServedName

API_VERSION = "slo-scaler.io/v1alpha1"
KIND = "ModelConfig"
SCHEMA_ID = "https://slo-scaler.io/schemas/model-config.v1alpha1.json"

Seconds = Annotated[float, Field(gt=0, le=3600)]
Ratio = Annotated[float, Field(gt=0, le=10)]


class _Config(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True, frozen=True)


class ScalerSettings(_Config):
    """The model's signals and policy: trigger metadata keys, typed. Absent keys take the server's defaults."""

    ttft_slo_seconds: Seconds = Field(description="TTFT objective the queue is sized against (the spec's slo.ttftP95Seconds)")
    request_class: RequestClass
    tpot_slo_seconds: Annotated[float, Field(gt=0, le=60)] | None = Field(None, description="time-per-output-token objective (the spec's slo.tpotSeconds)")
    expected_prefill_seconds: Annotated[float, Field(ge=0, le=3600)] = 0.0
    scale_up_latency_seconds: PositiveOrAuto
    per_replica_capacity: PositiveOrAuto
    max_concurrency: PositiveOrAuto | None = None
    target_utilization: Annotated[float, Field(gt=0, le=1)] = 0.8
    yellow_enter_ratio: Ratio = 0.4
    yellow_exit_ratio: Ratio = 0.3
    red_enter_ratio: Ratio = 1.0
    red_exit_ratio: Ratio = 0.8
    state_hold_seconds: Annotated[float, Field(ge=0, le=3600)] = 30.0
    rate_window_seconds: Annotated[float, Field(ge=1, le=3600)] | None = None
    prefill_tokens_per_second: Annotated[float, Field(gt=0, le=1e9)] | None = None
    capacity_prompt_tokens: Annotated[float, Field(gt=0, le=1e9)] | None = None
    burst_replicas: Annotated[int, Field(ge=0, le=1000)] | None = Field(
        None, description="replicas render sized for a burst like the spec's traffic profile's: held as a floor while the traffic reaches it")
    burst_recurrence: Annotated[float, Field(ge=0, le=1)] | None = Field(
        None, description="how surely bursts like the profile's come back, 0 (its peak is a level) to 1 (a peak at twice its base or more): the returns the floor starts with")
    backlog_drain_ratio: Annotated[float, Field(gt=0, le=1)] | None = None
    max_staleness_seconds: Annotated[float, Field(gt=0, le=3600)] | None = None
    capacity_prior: Annotated[float, Field(gt=0, le=1e6)] | None = None
    scale_up_latency_prior: Annotated[float, Field(gt=0, le=3600)] | None = None
    source: Literal["prometheus", "scrape"] = "prometheus"
    prometheus_address: HttpUrl | None = None
    scrape_targets: list[HttpUrl] = Field(default_factory=list)
    namespace: Namespace | None = None
    pod_selector: Annotated[str, Field(pattern=r"^[A-Za-z0-9./_-]+(!=|==|=)[A-Za-z0-9._-]*(,[A-Za-z0-9./_-]+(!=|==|=)[A-Za-z0-9._-]*)*$", max_length=1024)] | None = None
    metrics_port: Annotated[int, Field(ge=1, le=65535)] | None = None


class ShedSettings(_Config):
    """What the rate-limit service enforces for this model."""

    enabled: bool = Field(True, description="false: the RLS never refuses this model's requests (it decides and counts, as in shadow)")
    shadow: bool = Field(False, description="decide and count (reason shadow-*), never refuse")
    status_code: Literal[429, 503] = Field(503, description="status for requests shed because capacity cannot meet the SLO")
    tenant_quota_status_code: Literal[429, 503] = Field(429, description="status for requests over their tenant's quota")
    yellow_shed_classes: list[RequestClass] = Field(default_factory=lambda: ["batch", "background"])
    tenants: list[Tenant] = Field(default_factory=list, description="weights and hard quotas; other tenant ids share the pool `other`")


class Origin(_Config):
    namespace: Namespace
    name: Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]


class ModelConfig(_Config):
    """One served model's runtime settings, as `serve --config` reads them."""

    api_version: Literal["slo-scaler.io/v1alpha1"] = Field(alias="apiVersion")
    kind: Literal["ModelConfig"]
    model: ServedName = Field(description="the vLLM served model name: the key KEDA's trigger and Envoy's descriptor use")
    origin: Origin | None = Field(None, description="the InferenceService the config was rendered for (informational)")
    scaler: ScalerSettings
    shedding: ShedSettings = Field(default_factory=ShedSettings)


def json_schema() -> dict:
    schema = ModelConfig.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def json_schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
