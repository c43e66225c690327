"""Synthetic scenarios: the standard three-phase burst and an interactive + batch tenant mix."""

from __future__ import annotations

import random
from dataclasses import dataclass

from scaler.workloads.arrivals import Arrival, mix, poisson
from scaler.workloads.lengths import LengthMix


@dataclass(frozen=True)
class BurstShape:
    """Where the phases of a burst scenario fall, for metrics such as recovery time."""

    low_s: float
    burst_s: float
    after_s: float

    @property
    def burst_start_s(self) -> float:
        return self.low_s

    @property
    def burst_end_s(self) -> float:
        return self.low_s + self.burst_s

    @property
    def duration_s(self) -> float:
        return self.low_s + self.burst_s + self.after_s


def burst_scenario(
    rng: random.Random,
    *,
    base_rps: float,
    peak_rps: float,
    low_s: float = 150.0,
    burst_s: float = 15.0,
    burst_factor: float = 2.5,
    after_s: float = 120.0,
    after_rps: float | None = None,
    long_prompt_frac: float = 0.2,
    long_output_frac: float = 0.2,
    lengths: LengthMix | None = None,
    request_class: str = "interactive",
    tenant: str = "default",
) -> list[Arrival]:
    """The standard burst: `low_s` at `base_rps`, then `burst_s` at `burst_factor` x `peak_rps`
    (the normal peak the service is sized for), then `after_s` back at the normal rate
    (`after_rps`, default `base_rps`). Poisson arrivals in each phase; a `long_prompt_frac` of
    prompts and, independently, a `long_output_frac` of outputs are long (see LengthMix)."""
    for name, value in (("base_rps", base_rps), ("peak_rps", peak_rps), ("burst_factor", burst_factor)):
        if not value > 0:
            raise ValueError(f"{name}: expected a number > 0, got {value!r}")
    for name, value in (("low_s", low_s), ("burst_s", burst_s), ("after_s", after_s)):
        if not value >= 0:
            raise ValueError(f"{name}: expected seconds >= 0, got {value!r}")
    lengths = lengths or LengthMix(long_prompt_frac=long_prompt_frac, long_output_frac=long_output_frac)
    after = base_rps if after_rps is None else after_rps
    common = dict(lengths=lengths, request_class=request_class, tenant=tenant)
    return mix(
        poisson(rng, rate_rps=base_rps, start_s=0.0, duration_s=low_s, **common),
        poisson(rng, rate_rps=burst_factor * peak_rps, start_s=low_s, duration_s=burst_s, **common),
        poisson(rng, rate_rps=after, start_s=low_s + burst_s, duration_s=after_s, **common),
    )


# Interactive tenants and their shares of the interactive traffic.
DEFAULT_TENANTS = {"acme": 0.6, "globex": 0.3, "initech": 0.1}
# Batch jobs: long documents in, long summaries out.
BATCH_LENGTHS = LengthMix(prompt_median=3000, prompt_sigma=0.4, prompt_max=8192, long_prompt_frac=0.0,
                          output_median=400, output_sigma=0.4, output_max=1024, long_output_frac=0.0)


def tenant_mix_scenario(
    rng: random.Random,
    *,
    interactive_rps: float,
    batch_rps: float,
    duration_s: float = 300.0,
    tenants: dict[str, float] | None = None,
    burst_tenant: str = "globex",
    burst_start_s: float = 150.0,
    burst_s: float = 20.0,
    burst_factor: float = 3.0,
    lengths: LengthMix | None = None,
) -> list[Arrival]:
    """Interactive traffic from several tenants plus a steady batch stream (tenant `batch`).

    During [burst_start_s, burst_start_s + burst_s) the `burst_tenant` sends `burst_factor` times
    the whole interactive rate on top of its usual share: a noisy neighbour, the case where
    admission by class and tenant share matters.
    """
    tenants = dict(DEFAULT_TENANTS if tenants is None else tenants)
    if not tenants or any(not share > 0 for share in tenants.values()):
        raise ValueError(f"tenants: expected a non-empty map of tenant -> share > 0, got {tenants!r}")
    if burst_tenant not in tenants:
        raise ValueError(f"burst_tenant: expected one of {', '.join(tenants)}, got {burst_tenant!r}")
    total = sum(tenants.values())
    lengths = lengths or LengthMix()
    parts = [poisson(rng, rate_rps=interactive_rps * share / total, start_s=0.0, duration_s=duration_s,
                     lengths=lengths, tenant=name) for name, share in tenants.items()]
    parts.append(poisson(rng, rate_rps=burst_factor * interactive_rps, start_s=burst_start_s,
                         duration_s=burst_s, lengths=lengths, tenant=burst_tenant))
    parts.append(poisson(rng, rate_rps=batch_rps, start_s=0.0, duration_s=duration_s, lengths=BATCH_LENGTHS,
                         request_class="batch", tenant="batch"))
    return mix(*parts)
