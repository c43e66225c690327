"""Decisions and a manual-clock driver for admission scenarios."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scaler.admission import AdmissionConfig, AdmissionState, Request, admit
from scaler.policy.decide import Decision, State


def decision(state: State, admission_rps: float | None = None, retry_after_s: float = 5.0, time: float = 0.0) -> Decision:
    return Decision(
        model="m", time=time, state=state, reason="test", detail="test", waiting=0.0, running=0.0,
        ready_replicas=1, starting_replicas=0, completion_rps=0.0, arrival_rps=0.0, capacity_rps=1.0,
        capacity_source="configured", scale_up_latency_s=60.0, budget_s=2.0, wait_s=0.0, peak_wait_s=0.0,
        demand=1.0, pressure=1.0, admission_rps=admission_rps if state is State.RED else None,
        retry_after_s=retry_after_s,
    )


def req(klass: str = "interactive", tenant: str | None = None, cost: int = 1) -> Request:
    return Request(model="m", request_class=klass, class_source="header", tenant=tenant, cost=cost)


@dataclass
class Driver:
    """Feeds requests at fixed rates through `admit` on a manual clock; counts verdicts."""

    config: AdmissionConfig
    decision: Decision
    state: AdmissionState = field(default_factory=AdmissionState)
    now: float = 0.0
    admitted: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)
    verdicts: list = field(default_factory=list)

    def offer(self, request: Request, rand: float = 0.5):
        verdict, self.state = admit(self.config, self.state, request, self.decision, self.now, rand, stale_after_s=1e9)
        key = (request.request_class, verdict.tenant)
        (self.admitted if verdict.admitted else self.refused)[key] += request.cost
        self.verdicts.append(verdict)
        return verdict

    def run(self, seconds: float, rates: dict[tuple[str, str | None], float], step: float = 0.01) -> None:
        """Offer each (class, tenant) stream at its rate (requests/s), evenly spaced, for `seconds`."""
        owed = {key: 0.0 for key in rates}
        for _ in range(int(round(seconds / step))):
            self.now += step
            for key, rate in rates.items():
                owed[key] += rate * step
                while owed[key] >= 1.0:
                    owed[key] -= 1.0
                    self.offer(req(*key))
