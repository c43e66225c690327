"""Workloads: arrival generation (synthetic scenarios) and real traces, shared by the simulator
and the load generator."""

from scaler.workloads.arrivals import Arrival, mix, poisson, rate_profile, rate_scale, spread_ties, window
from scaler.workloads.lengths import LengthMix
from scaler.workloads.scenarios import BurstShape, burst_scenario, tenant_mix_scenario
from scaler.workloads.traces import TraceError, load_trace

__all__ = [
    "Arrival", "BurstShape", "LengthMix", "TraceError", "burst_scenario", "load_trace", "mix", "poisson",
    "rate_profile", "rate_scale", "spread_ties", "tenant_mix_scenario", "window",
]
