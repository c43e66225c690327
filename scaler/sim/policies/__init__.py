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


class SloScalerNoShedding(SloScaler):
    """Ablation: our scaler without the gateway shedder (every attempt admitted)."""

    name = "slo-scaler-no-shedding"

    def __init__(self, ctx: PolicyContext):
        super().__init__(ctx, shedding=False)


# Not part of the default comparison; ask for them with --policies.
ABLATIONS: dict[str, type[Policy]] = {SloScalerNoShedding.name: SloScalerNoShedding}


def make(name: str, ctx: PolicyContext) -> Policy:
    known = {**POLICIES, **ABLATIONS}
    if name not in known:
        raise ValueError(f"policy: expected one of {', '.join(known)}, got {name!r}")
    return known[name](ctx)


__all__ = ["ABLATIONS", "POLICIES", "Policy", "PolicyContext", "Refusal", "make"]
