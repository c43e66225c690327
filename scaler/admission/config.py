"""Admission configuration: what YELLOW sheds, how RED shares the drainable rate, status codes.

Tenants are the ones a model spec lists under `shedding.tenants` (same shape: name, weight,
quotaRequestsPerSecond). Every tenant not listed falls into one pool named `other` (configure it
by listing a tenant named `other`), so per-tenant state and metric labels stay bounded whatever
tenant ids clients send.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from scaler.policy.config import REQUEST_CLASSES, ConfigError, PolicyConfig

OTHER_TENANT = "other"

# Fraction of the RED bucket each class must leave for the classes above it: interactive may
# empty the bucket, agent stops at a quarter, background and batch only take from a fuller bucket.
DEFAULT_CLASS_RESERVE = MappingProxyType({"interactive": 0.0, "agent": 0.25, "background": 0.5, "batch": 0.75})


class AdmissionConfigError(ConfigError):
    """A shedding setting that cannot be used, named like the policy's metadata errors."""

    @property
    def field(self) -> str:
        return self.key


@dataclass(frozen=True)
class TenantConfig:
    weight: float = 1.0
    quota_rps: float | None = None  # hard cap on admitted requests/s, in every state


@dataclass(frozen=True)
class AdmissionConfig:
    yellow_shed: frozenset[str] = frozenset({"batch", "background"})
    class_reserve: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_CLASS_RESERVE))
    burst_s: float = 1.0  # the RED bucket holds this many seconds of the admission rate
    # Outside RED, a request whose slot wait projected since the scaler's data reaches this share
    # of the TTFT budget would miss, and is refused (scaler/admission/backlog.py): the policy's
    # own line for RED, its redEnterRatio (set from the model's PolicyConfig by ModelAdmission).
    miss_ratio: float = PolicyConfig.red_enter_ratio
    # In RED, the same projection holds the queue at this share of the budget, the share RED's
    # admission rate aims at, the policy's redExitRatio: the rate is a second from stale, the count is not.
    red_queue_ratio: float = PolicyConfig.red_exit_ratio
    # A tenant past its fair share may still use the RED bucket while it is fuller than this
    # fraction: the other tenants are not using their shares (work conservation).
    borrow_above: float = 0.5
    active_tenant_s: float = 10.0  # a tenant counts towards the fair-share split this long after its last request
    tenants: Mapping[str, TenantConfig] = field(default_factory=dict)
    capacity_code: int = 503
    quota_code: int = 429
    retry_jitter: float = 0.2  # Retry-After is spread by +-20% so refused clients do not return in step
    quota_burst_s: float = 1.0  # a tenant's quota bucket holds this many seconds of its quota
    refuse_unknown_models: bool = False

    def __post_init__(self):
        self.check()

    def check(self) -> None:
        bad = sorted(set(self.yellow_shed) - set(REQUEST_CLASSES))
        if bad:
            raise AdmissionConfigError("yellowShedClasses", "classes among " + "|".join(REQUEST_CLASSES), ",".join(bad))
        if set(self.class_reserve) != set(REQUEST_CLASSES):
            raise AdmissionConfigError("classReserve", "one fraction per class " + "|".join(REQUEST_CLASSES), dict(self.class_reserve))
        for name, value in self.class_reserve.items():
            if not 0.0 <= value < 1.0:
                raise AdmissionConfigError(f"classReserve.{name}", "a fraction in [0, 1)", value)
        _positive("burstSeconds", self.burst_s)
        _positive("redEnterRatio", self.miss_ratio)
        _positive("redExitRatio", self.red_queue_ratio)
        _positive("activeTenantSeconds", self.active_tenant_s)
        _positive("quotaBurstSeconds", self.quota_burst_s)
        if not 0.0 <= self.borrow_above <= 1.0:
            raise AdmissionConfigError("borrowAbove", "a fraction in [0, 1]", self.borrow_above)
        if not 0.0 <= self.retry_jitter < 1.0:
            raise AdmissionConfigError("retryJitter", "a fraction in [0, 1)", self.retry_jitter)
        for key, code in (("capacityCode", self.capacity_code), ("quotaCode", self.quota_code)):
            if not (isinstance(code, int) and 400 <= code <= 599):
                raise AdmissionConfigError(key, "an HTTP error status in [400, 599]", code)
        for name, tenant in self.tenants.items():
            _positive(f"tenants[{name}].weight", tenant.weight)
            if tenant.quota_rps is not None:
                _positive(f"tenants[{name}].quotaRequestsPerSecond", tenant.quota_rps)

    def pool(self, tenant: str | None) -> str:
        """The tenant whose weight and quota apply: a configured one, or the shared `other`."""
        return tenant if tenant is not None and tenant in self.tenants else OTHER_TENANT

    def tenant(self, pool: str) -> TenantConfig:
        return self.tenants.get(pool) or TenantConfig()


def tenants_from_spec(tenants: Iterable) -> dict[str, TenantConfig]:
    """scaler.spec.model.Tenant entries -> {name: TenantConfig}."""
    return {t.name: TenantConfig(weight=t.weight, quota_rps=t.quota_requests_per_second) for t in tenants}


def _positive(key: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise AdmissionConfigError(key, "a finite number > 0", value)
