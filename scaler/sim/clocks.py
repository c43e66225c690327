"""The periodic clocks of a metric pipeline and the phase each one runs at.

In a cluster, Prometheus scrapes, KEDA polls, HPA syncs and DCGM collections tick on clocks
that started at unrelated moments: a scrape may land just before or just after the sync that
reads it. A bench that starts every clock at t=0 puts them all on the same ticks, so scrape lag
is always zero. `Phases.for_seed` draws each clock's phase per seed (same seed, same phases);
`Phases()` keeps them all at 0 (scripted mechanism tests).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

CLOCKS = ("scrape", "keda-poll", "hpa-sync", "dcgm-collect", "ray-metrics", "knative-tick")


@dataclass(frozen=True)
class Phases:
    fractions: tuple[tuple[str, float], ...] = ()  # (clock, phase as a share of its interval)

    @classmethod
    def for_seed(cls, seed: int) -> Phases:
        rng = random.Random(f"clock-phases-{seed}")
        return cls(tuple((clock, rng.random()) for clock in CLOCKS))

    def offset(self, clock: str, interval_s: float) -> float:
        """Seconds after t=0 of the clock's first tick, a whole second (the control tick) below its interval."""
        if clock not in CLOCKS:
            raise ValueError(f"clock: expected one of {', '.join(CLOCKS)}, got {clock!r}")
        share = next((s for name, s in self.fractions if name == clock), 0.0)  # asked at every tick
        return float(math.floor(share * interval_s))


class Every:
    """Fires at phase + k x interval; `due(now)` is asked at every control tick and is true once
    per period, at the first tick at or after its time."""

    def __init__(self, interval_s: float, phase_s: float = 0.0):
        if not interval_s > 0:
            raise ValueError(f"interval_s: expected seconds > 0, got {interval_s!r}")
        self.interval_s = interval_s
        self.next_s = phase_s

    def due(self, now: float) -> bool:
        if now + 1e-9 < self.next_s:
            return False
        while self.next_s <= now + 1e-9:
            self.next_s += self.interval_s
        return True
