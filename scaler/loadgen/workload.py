"""The arrivals a load test sends, built from scaler.workloads: a burst, Poisson, or a replayed trace.

Only the choices a command line makes live here (profiles, fixed sizes, class and tenant mixes);
arrival processes, length mixes and trace formats are scaler.workloads'.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from scaler.workloads import Arrival, LengthMix, burst_scenario, load_trace, poisson, rate_scale, window

PROFILES = ("burst", "poisson", "trace")
# Tenants travel in an HTTP header and become RLS descriptor values: label-value syntax only.
_TENANT = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def parse_mix(text: str, field: str, allowed: tuple[str, ...] | None = None) -> dict[str, float]:
    """'interactive=0.8,batch=0.2' -> weights; every error names `field` and what was expected."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, sep, raw = part.strip().partition("=")
        if not sep:
            raise ValueError(f"{field}: expected NAME=WEIGHT[,NAME=WEIGHT...], got {part.strip()!r}")
        if allowed is not None and name not in allowed:
            raise ValueError(f"{field}: expected names among {', '.join(allowed)}, got {name!r}")
        if allowed is None and not _TENANT.match(name):
            raise ValueError(f"{field}: expected names of letters, digits, '-', '_' and '.' (at most 63), got {name!r}")
        try:
            weight = float(raw)
        except ValueError:
            raise ValueError(f"{field}: expected a number after {name}=, got {raw!r}") from None
        if not weight > 0 or weight == float("inf"):
            raise ValueError(f"{field}: expected a finite weight > 0 for {name}, got {raw!r}")
        if name in weights:
            raise ValueError(f"{field}: {name} appears twice")
        weights[name] = weight
    return weights


@dataclass(frozen=True)
class WorkloadOptions:
    profile: str = "burst"
    seed: int = 1
    # Poisson and burst rates (requests/s); burst phases in seconds (the standard preset's defaults).
    rate_rps: float = 2.0
    peak_rps: float | None = None  # burst: the normal peak; the burst runs at burst_factor x this
    burst_factor: float = 2.5
    low_s: float = 150.0
    burst_s: float = 15.0
    after_s: float = 120.0
    duration_s: float = 60.0  # poisson
    trace: str | None = None
    trace_start_s: float = 0.0
    trace_duration_s: float | None = None
    trace_rate_scale: float = 1.0
    long_prompt_frac: float = 0.2
    long_output_frac: float = 0.2
    length_mix: LengthMix | None = None  # a whole mix, instead of the default one with these fractions
    prompt_tokens: int | None = None  # fixed sizes override the mix
    max_tokens: int | None = None
    class_mix: dict[str, float] | None = None
    tenant_mix: dict[str, float] | None = None

    def lengths(self) -> LengthMix:
        if self.length_mix is not None:
            return self.length_mix
        return LengthMix(long_prompt_frac=self.long_prompt_frac, long_output_frac=self.long_output_frac)


def build_arrivals(options: WorkloadOptions) -> list[Arrival]:
    """The schedule to send: times in seconds from the start, sizes, classes and tenants."""
    if options.profile not in PROFILES:
        raise ValueError(f"profile: expected one of {', '.join(PROFILES)}, got {options.profile!r}")
    rng = random.Random(options.seed)
    if options.profile == "burst":
        arrivals = burst_scenario(
            rng, base_rps=options.rate_rps, peak_rps=options.peak_rps or options.rate_rps * 2,
            low_s=options.low_s, burst_s=options.burst_s, burst_factor=options.burst_factor,
            after_s=options.after_s, lengths=options.lengths())
    elif options.profile == "poisson":
        if not options.rate_rps > 0:
            raise ValueError(f"rate: expected requests/s > 0, got {options.rate_rps!r}")
        arrivals = poisson(rng, rate_rps=options.rate_rps, start_s=0.0, duration_s=options.duration_s,
                           lengths=options.lengths())
    else:
        if not options.trace:
            raise ValueError("trace: expected a trace file (Azure CSV or Mooncake JSONL) for --profile trace")
        arrivals = load_trace(options.trace)
        end = options.trace_start_s + options.trace_duration_s if options.trace_duration_s else float("inf")
        arrivals = window(arrivals, options.trace_start_s, end)
        if options.trace_rate_scale != 1.0:
            arrivals = rate_scale(arrivals, options.trace_rate_scale, rng)
    if options.prompt_tokens is not None or options.max_tokens is not None:
        arrivals = [replace(a, prompt_tokens=options.prompt_tokens or a.prompt_tokens,
                            max_tokens=options.max_tokens or a.max_tokens) for a in arrivals]
    if options.class_mix:
        arrivals = _assign(arrivals, rng, options.class_mix, "request_class")
    if options.tenant_mix:
        arrivals = _assign(arrivals, rng, options.tenant_mix, "tenant")
    if not arrivals:
        raise ValueError("profile: the workload holds no request (check the rates, durations or trace window)")
    return arrivals


def _assign(arrivals: list[Arrival], rng: random.Random, weights: dict[str, float], field: str) -> list[Arrival]:
    names, shares = list(weights), list(weights.values())
    return [replace(a, **{field: rng.choices(names, shares)[0]}) for a in arrivals]

