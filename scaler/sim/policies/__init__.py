"""The policies a bench compares, by name; docs/simulator.md documents each one's source and knob."""

from scaler.sim.policies.base import Policy, PolicyContext, Refusal
from scaler.sim.policies.clairvoyant import Clairvoyant
from scaler.sim.policies.hpa_gpu import HpaGpuUtil
from scaler.sim.policies.keda_waiting import KedaWaiting
from scaler.sim.policies.knative_kpa import KnativeKpa
from scaler.sim.policies.kserve_keda import KServeKedaRunning
from scaler.sim.policies.llmd_token import LlmdTokenAware
from scaler.sim.policies.ray_serve import RayServe
from scaler.sim.policies.slo_scaler import SloScaler
from scaler.sim.policies.static import StaticFleet, StaticPeak

POLICIES: dict[str, type[Policy]] = {cls.name: cls for cls in (
    SloScaler, KServeKedaRunning, KedaWaiting, HpaGpuUtil, RayServe, KnativeKpa, LlmdTokenAware, StaticFleet,
    StaticPeak, Clairvoyant,
)}
# Shown for reference, never tuned: the peak-sized fleet and the perfect-knowledge heuristic's role
# is to frame the others (the clairvoyant is swept and tuned like the rest, but is no contender).
REFERENCES = ("static-peak", "clairvoyant")


class SloScalerNoShedding(SloScaler):
    """Ablation: our scaler without the gateway shedder (every attempt admitted), same knob."""

    name = "slo-scaler-no-shedding"

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        super().__init__(ctx, knob_value, shedding=False)


# Not part of the default comparison; ask for them with --policies.
ABLATIONS: dict[str, type[Policy]] = {SloScalerNoShedding.name: SloScalerNoShedding}


def policy_class(name: str) -> type[Policy]:
    known = {**POLICIES, **ABLATIONS}
    if name not in known:
        raise ValueError(f"policy: expected one of {', '.join(known)}, got {name!r}")
    return known[name]


def make(name: str, ctx: PolicyContext, knob_value: float | None = None) -> Policy:
    return policy_class(name)(ctx, knob_value)


__all__ = ["ABLATIONS", "POLICIES", "REFERENCES", "Policy", "PolicyContext", "Refusal", "make", "policy_class"]
