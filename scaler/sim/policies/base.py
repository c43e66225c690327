"""What every simulated policy implements, and the pieces several of them share."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from scaler.autoscaling import KedaSpec, KedaState
from scaler.autoscaling.hpa import DEFAULT_SYNC_PERIOD_S
from scaler.sim.calibrate import Calibration
from scaler.sim.clocks import Every, Phases
from scaler.sim.observe import FleetView
from scaler.sim.setup import Setup
from scaler.sim.workload import Sizing, traffic_profile
from scaler.workloads import Arrival


@dataclass(frozen=True)
class PolicyContext:
    setup: Setup
    sizing: Sizing
    calibration: Calibration
    arrivals: tuple[Arrival, ...]  # the whole workload: only the clairvoyant may read the future
    seed: int
    phases: Phases = Phases()  # where each periodic clock ticks (all at 0 unless the bench draws them)
    tune_end_s: float | None = None  # end of the tuning window: what an operator has seen before deploying

    @cached_property
    def profile(self) -> tuple[float, float, float]:
        """The traffic profile an operator would write from the tuning window (base, peak, burst
        growth: scaler.sim.workload.traffic_profile), read once per context: every knob value and
        variant of ours sizes its floor and its recurrence from it."""
        return traffic_profile(self.arrivals, self.tune_end_s)


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

    Every policy has one knob, the setting its users tune (`knob`: its documented name;
    `knob_default`: the value it ships with; `knob_grid`: what `bench --sweep` tries), passed
    as `knob_value` (None: the default).
    """

    name = "policy"
    knob = "-"
    knob_default: float = 0.0
    knob_grid: tuple[float, ...] = ()
    max_ongoing_per_replica: int | None = None
    max_queued: int | None = None

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None):
        self.ctx = ctx
        if knob_value is not None and not (isinstance(knob_value, (int, float)) and knob_value > 0):
            raise ValueError(f"{self.name} {self.knob}: expected a number > 0, got {knob_value!r}")
        self.knob_value = float(self.knob_default if knob_value is None else knob_value)

    @classmethod
    def grid(cls, ctx: PolicyContext) -> tuple[float, ...]:
        """The values `bench --sweep` runs (some depend on the workload's sizing)."""
        return cls.knob_grid

    @property
    def hpa_start_s(self) -> float:
        """The HPA's first sync (its sync clock's phase); it decides nothing before."""
        return self.ctx.phases.offset("hpa-sync", DEFAULT_SYNC_PERIOD_S)

    def keda_state(self, spec: KedaSpec) -> KedaState:
        """KEDA's state before its first poll, with the poll clock at its own phase after the HPA's start."""
        first = self.hpa_start_s + self.ctx.phases.offset("keda-poll", spec.polling_interval_s)
        return KedaState(last_poll=first - spec.polling_interval_s) if first > self.hpa_start_s else KedaState()

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
    """Prometheus scraping pods every `interval_s` (at its clock's phase): queries read the newest
    sample, so a value is up to one interval old. Starting pods do not serve /metrics yet and have
    no series."""

    def __init__(self, interval_s: float, phase_s: float = 0.0):
        self.interval_s = interval_s
        self.clock = Every(interval_s, phase_s)
        self.latest: FleetView | None = None
        self.previous: FleetView | None = None

    def observe(self, now: float, view: FleetView) -> None:
        if self.clock.due(now):
            self.previous, self.latest = self.latest, view

    def sum(self, gauge) -> float:
        return sum(gauge(m) for m in self.latest.scraped) if self.latest else 0.0
