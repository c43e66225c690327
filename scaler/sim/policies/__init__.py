"""The policies a bench compares, by name; docs/simulator.md documents each one's source."""

from scaler.sim.policies.base import Policy, PolicyContext, Refusal
from scaler.sim.policies.hpa_gpu import HpaGpuUtil
from scaler.sim.policies.keda_waiting import KedaWaiting
from scaler.sim.policies.knative_kpa import KnativeKpa
from scaler.sim.policies.kserve_keda import KServeKedaRunning
from scaler.sim.policies.llmd_token import LlmdTokenAware
from scaler.sim.policies.oracle import Oracle
from scaler.sim.policies.ray_serve import RayServe
from scaler.sim.policies.slo_scaler import SloScaler
from scaler.sim.policies.static_peak import StaticPeak

POLICIES: dict[str, type[Policy]] = {cls.name: cls for cls in (
    SloScaler, KServeKedaRunning, KedaWaiting, HpaGpuUtil, RayServe, KnativeKpa, LlmdTokenAware, StaticPeak, Oracle,
)}


def make(name: str, ctx: PolicyContext) -> Policy:
    if name not in POLICIES:
        raise ValueError(f"policy: expected one of {', '.join(POLICIES)}, got {name!r}")
    return POLICIES[name](ctx)


__all__ = ["POLICIES", "Policy", "PolicyContext", "Refusal", "make"]
