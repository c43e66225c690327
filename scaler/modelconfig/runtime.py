"""A ModelConfig as the running server uses it: trigger-metadata strings for the scaler's parser and
the shedding settings for the rate-limit service. Imported by `serve`; keep it light (no render)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from scaler.admission.config import AdmissionConfig, TenantConfig, tenants_from_spec
from scaler.modelconfig.schema import ModelConfig, ScalerSettings
from scaler.policy.config import PolicyConfig

# ScalerSettings field -> trigger metadata key (the server's parser takes the KEDA spelling).
_LISTS = {"scrape_targets"}


@dataclass(frozen=True)
class ModelShedding:
    enabled: bool
    shadow: bool
    capacity_code: int
    quota_code: int
    yellow_shed: frozenset[str]
    tenants: tuple[tuple[str, TenantConfig], ...]

    @property
    def enforced(self) -> bool:
        """False: decide and count, never refuse (shadow mode, or shedding switched off for the model)."""
        return self.enabled and not self.shadow

    def admission(self, base: AdmissionConfig) -> AdmissionConfig:
        """The server's admission thresholds with this model's codes, YELLOW classes and tenants."""
        return replace(base, capacity_code=self.capacity_code, quota_code=self.quota_code,
                       yellow_shed=self.yellow_shed, tenants=dict(self.tenants))


@dataclass(frozen=True)
class ModelSettings:
    model: str
    metadata: Mapping[str, str]  # trigger metadata keys, values as KEDA would pass them
    shedding: ModelShedding
    source: str  # the file it came from


def fmt(value: float | int | str) -> str:
    """A number as KEDA metadata spells it: 1.5, 75 (not 75.0); 'auto' stays."""
    if isinstance(value, str):
        return value
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def metadata_of(settings: ScalerSettings, model: str) -> dict[str, str]:
    out = {"model": model}
    for name, field in ScalerSettings.model_fields.items():
        value = getattr(settings, name)
        if value is None or value == []:
            continue
        out[field.alias or name] = ",".join(value) if name in _LISTS else fmt(value)
    return dict(sorted(out.items()))


def settings_of(config: ModelConfig, source: str) -> ModelSettings:
    shed = config.shedding
    shedding = ModelShedding(
        enabled=shed.enabled, shadow=shed.shadow, capacity_code=shed.status_code, quota_code=shed.tenant_quota_status_code,
        yellow_shed=frozenset(shed.yellow_shed_classes), tenants=tuple(sorted(tenants_from_spec(shed.tenants).items())))
    return ModelSettings(config.model, metadata_of(config.scaler, config.model), shedding, source)


class ModelAdmission:
    """The admission settings and shadow flag in force for a model: its config's (serve --config),
    else the server-wide flags'. Derived settings are cached until the model's config changes."""

    def __init__(self, shedding: Mapping[tuple[str, str], ModelShedding], base: AdmissionConfig, shadow: bool) -> None:
        self.shedding = shedding  # the registry's live mapping, replaced in place on reload
        self.base, self.shadow = base, shadow
        self._cache: dict[tuple[str, str], tuple[ModelShedding, AdmissionConfig]] = {}

    def for_model(self, model: tuple[str, str], policy: PolicyConfig | None = None) -> tuple[AdmissionConfig, bool]:
        """`model` is the registry's (namespace, model) key; a config without a namespace covers every one.
        `policy` (the model's PolicyConfig) gives the slot queue its lines: the policy's own RED
        entry and exit ratios, so admission refuses where the policy would call it a miss."""
        shed = self.shedding.get(model) or self.shedding.get(("", model[1]))
        lines = (policy.red_enter_ratio, policy.red_exit_ratio) if policy is not None else None
        cached = self._cache.get(model)
        if cached is None or cached[0] != (shed, lines):
            config = shed.admission(self.base) if shed is not None else self.base
            if lines is not None:
                config = replace(config, miss_ratio=lines[0], red_queue_ratio=lines[1])
            cached = self._cache[model] = ((shed, lines), config)
        return cached[1], self.shadow if shed is None else self.shadow or not shed.enforced
