"""What every simulated policy implements, and the pieces several of them share."""

from __future__ import annotations

from dataclasses import dataclass

from scaler.sim.calibrate import Calibration
from scaler.sim.observe import FleetView
from scaler.sim.setup import Setup
from scaler.sim.workload import Sizing
from scaler.workloads import Arrival


@dataclass(frozen=True)
class PolicyContext:
    setup: Setup
    sizing: Sizing
    calibration: Calibration
    arrivals: tuple[Arrival, ...]  # the whole workload: only the oracle may read the future
    seed: int


@dataclass(frozen=True)
class Refusal:
    """The gateway's answer to a request it does not let through."""

    code: int
    reason: str
    retry_after_s: float | None = None  # None: no Retry-After header (clients back off)


class Policy:
    """A scaling policy as the simulator drives it.

    `control(now, view)` is called at every control tick and returns the replica count to set
    (None leaves it); `admit(now, request)` is asked for every attempt at the gateway and returns
    None to admit or a Refusal. `max_ongoing_per_replica` caps what the router sends to one
    replica (the rest wait at the gateway, at most `max_queued` of them; beyond that: 503).
    """

    name = "policy"
    max_ongoing_per_replica: int | None = None
    max_queued: int | None = None

    def __init__(self, ctx: PolicyContext):
        self.ctx = ctx

    def initial_replicas(self) -> int:
        return self.ctx.sizing.initial

    @property
    def min_replicas(self) -> int:
        return 1

    @property
    def max_replicas(self) -> int:
        return self.ctx.sizing.peak

    def control(self, now: float, view: FleetView) -> int | None:
        raise NotImplementedError

    def admit(self, now: float, request) -> Refusal | None:
        return None

    def summary(self) -> dict:
        """Policy-specific figures for the report (time spent shedding, panics, ...)."""
        return {}


class Scrape:
    """Prometheus scraping pods every `interval_s`: queries read the newest sample, so a value is
    up to one interval old. Starting pods do not serve /metrics yet and have no series."""

    def __init__(self, interval_s: float):
        self.interval_s = interval_s
        self.latest: FleetView | None = None
        self.previous: FleetView | None = None

    def observe(self, now: float, view: FleetView) -> None:
        if self.latest is None or now - self.latest.time >= self.interval_s - 1e-9:
            self.previous, self.latest = self.latest, view

    def sum(self, gauge) -> float:
        return sum(gauge(m) for m in self.latest.scraped) if self.latest else 0.0
