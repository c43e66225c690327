"""Queue arithmetic: how long a backlog takes to drain while capacity arrives in steps.

Pure functions of numbers, shared by the decision core and the admission policy.
"""

from __future__ import annotations

import math


def drain_time(backlog: float, rate: float, step: float, arrivals: list[float]) -> float:
    """Seconds until `backlog` requests have started, draining at `rate` req/s that grows by
    `step` req/s at each time in `arrivals` (sorted seconds from now: replicas becoming ready)."""
    if backlog <= 0:
        return 0.0
    t, remaining = 0.0, backlog
    for at in [*arrivals, math.inf]:
        if rate > 0 and t + remaining / rate <= at:
            return t + remaining / rate
        if at == math.inf:
            return math.inf
        remaining -= rate * (at - t)
        t, rate = at, rate + step
    return math.inf  # unreachable: the loop ends at the infinite sentinel


def peak_wait(
    backlog: float,
    arrival_rps: float,
    trend_rps2: float,
    rate: float,
    step: float,
    arrivals: list[float],
    horizon_s: float,
    max_arrival_rps: float = math.inf,
    points: int = 60,
) -> float:
    """The longest wait a request arriving in the next `horizon_s` seconds would see, projecting
    the queue forward with arrivals at `arrival_rps` (+ trend, capped at `max_arrival_rps`) and
    capacity growing at `arrivals`.

    The horizon is the scale-up latency: capacity asked for now cannot help before it.
    """
    grid = sorted({0.0, horizon_s, *(a for a in arrivals if a < horizon_s),
                   *(horizon_s * i / points for i in range(1, points))})
    worst = drain_time(backlog, rate, step, arrivals)
    queue, t = backlog, 0.0
    current_rate = rate
    for nxt in grid[1:]:
        dt = nxt - t
        mid = t + dt / 2
        lam = min(max(0.0, arrival_rps + trend_rps2 * mid), max_arrival_rps)
        queue = max(0.0, queue + (lam - current_rate) * dt)
        t = nxt
        current_rate = rate + step * sum(1 for a in arrivals if a <= t)
        later = [a - t for a in arrivals if a > t]
        worst = max(worst, drain_time(queue, current_rate, step, later))
    return worst
