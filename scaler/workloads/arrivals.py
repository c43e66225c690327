"""Arrivals and the operations that build workloads out of them.

An Arrival is one client request as it reaches the service: when, how many prompt tokens, how
many output tokens it will ask for, its request class and its tenant. Generators take a
`random.Random` so every workload is reproducible from a seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from scaler.policy.config import REQUEST_CLASSES

LengthSampler = Callable[[random.Random], tuple[int, int]]  # -> (prompt_tokens, max_tokens)


@dataclass(frozen=True)
class Arrival:
    time: float  # seconds from the start of the workload
    prompt_tokens: int
    max_tokens: int
    request_class: str = "interactive"
    tenant: str = "default"

    def __post_init__(self):
        if not (isinstance(self.time, (int, float)) and math.isfinite(self.time) and self.time >= 0):
            raise ValueError(f"time: expected finite seconds >= 0, got {self.time!r}")
        for name in ("prompt_tokens", "max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
        if self.request_class not in REQUEST_CLASSES:
            raise ValueError(f"request_class: expected one of {'|'.join(REQUEST_CLASSES)}, got {self.request_class!r}")
        if not isinstance(self.tenant, str) or not self.tenant:
            raise ValueError(f"tenant: expected a non-empty string, got {self.tenant!r}")


def _check_rate(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name}: expected a finite rate >= 0 (requests per second), got {value!r}")


def poisson(
    rng: random.Random,
    *,
    rate_rps: float,
    start_s: float,
    duration_s: float,
    lengths: LengthSampler,
    request_class: str = "interactive",
    tenant: str = "default",
) -> list[Arrival]:
    """Poisson arrivals at `rate_rps` in [start_s, start_s + duration_s)."""
    _check_rate("rate_rps", rate_rps)
    if not duration_s >= 0:
        raise ValueError(f"duration_s: expected seconds >= 0, got {duration_s!r}")
    out: list[Arrival] = []
    if rate_rps == 0:
        return out
    t, end = start_s, start_s + duration_s
    while True:
        t += rng.expovariate(rate_rps)
        if t >= end:
            return out
        prompt, max_tokens = lengths(rng)
        out.append(Arrival(t, prompt, max_tokens, request_class, tenant))


def mix(*parts: Iterable[Arrival]) -> list[Arrival]:
    """Merge several arrival lists into one, in time order (stable for equal times)."""
    return sorted((a for part in parts for a in part), key=lambda a: a.time)


def rate_scale(arrivals: list[Arrival], factor: float, rng: random.Random | None = None, *,
               jitter_s: float = 1.0) -> list[Arrival]:
    """Scale the arrival rate by `factor` while keeping the time axis (and so every burst's length).

    factor < 1 thins: each arrival is kept with probability `factor`. factor > 1 adds copies:
    floor(factor) - 1 extra copies of each arrival, one more with probability frac(factor), each
    copy moved by a uniform offset in [0, jitter_s) so copies do not land on the same instant.
    Compressing time instead would shorten every burst relative to the cold start.
    `rng` defaults to random.Random(0), so a call without one is still reproducible.
    """
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) or factor <= 0:
        raise ValueError(f"factor: expected a finite number > 0, got {factor!r}")
    if not jitter_s >= 0:
        raise ValueError(f"jitter_s: expected seconds >= 0, got {jitter_s!r}")
    rng = rng if rng is not None else random.Random(0)
    out: list[Arrival] = []
    whole, frac = int(math.floor(factor)), factor - math.floor(factor)
    for arrival in arrivals:
        copies = whole + (1 if rng.random() < frac else 0)
        for k in range(copies):
            out.append(arrival if k == 0 else replace(arrival, time=arrival.time + rng.uniform(0.0, jitter_s)))
    return sorted(out, key=lambda a: a.time)


def spread_ties(arrivals: list[Arrival], rng: random.Random, window_s: float) -> list[Arrival]:
    """Spread arrivals that share one timestamp uniformly over [t, t + window_s).

    For traces whose clock is coarse (Mooncake's timestamps come in ~3 s ticks): without this
    every tick would be one instantaneous clump.
    """
    if not window_s > 0:
        raise ValueError(f"window_s: expected seconds > 0, got {window_s!r}")
    out = []
    i = 0
    while i < len(arrivals):
        j = i
        while j < len(arrivals) and arrivals[j].time == arrivals[i].time:
            j += 1
        if j - i == 1:
            out.append(arrivals[i])
        else:
            out.extend(replace(a, time=a.time + rng.uniform(0.0, window_s)) for a in arrivals[i:j])
        i = j
    return sorted(out, key=lambda a: a.time)


def window(arrivals: list[Arrival], start_s: float, end_s: float) -> list[Arrival]:
    """The arrivals in [start_s, end_s), shifted so the window starts at 0."""
    return [replace(a, time=a.time - start_s) for a in arrivals if start_s <= a.time < end_s]


def rate_profile(arrivals: list[Arrival], bin_s: float, duration_s: float | None = None) -> list[float]:
    """Arrivals per second in consecutive bins of `bin_s` seconds."""
    if not bin_s > 0:
        raise ValueError(f"bin_s: expected seconds > 0, got {bin_s!r}")
    end = duration_s if duration_s is not None else (arrivals[-1].time if arrivals else 0.0)
    counts = [0] * max(1, int(math.ceil(end / bin_s)) or 1)
    for a in arrivals:
        index = int(a.time // bin_s)
        if index < len(counts):
            counts[index] += 1
    return [c / bin_s for c in counts]
