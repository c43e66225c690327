"""Queue arithmetic: how long a backlog takes to drain while capacity arrives in steps.

Pure functions of numbers, shared by the decision core and the admission policy.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from functools import lru_cache


def beyond_slots(waiting: float, running: float, ready: int, slots: float) -> float:
    """Requests beyond what `ready` batches of `slots` hold (negative: free slots), but never more
    than what waits: the engine starts requests up to its own batch limit (vLLM's --max-num-seqs),
    which may be above S (judged on TPOT too), so a running request beyond S slows tokens (the TPOT
    terms) but keeps no one from starting."""
    return min(waiting, waiting + running - ready * slots)


def drain_time(backlog: float, rate: float, step: float, arrivals: list[float], absorb: float = 0.0) -> float:
    """Seconds until `backlog` requests have started, draining at `rate` req/s. At each time in
    `arrivals` (sorted seconds from now: replicas becoming ready) the new replica takes `absorb`
    waiting requests into its empty batch at once and the rate grows by `step` req/s."""
    if backlog <= 0:
        return 0.0
    t, remaining = 0.0, backlog
    for at in [*arrivals, math.inf]:
        if rate > 0 and t + remaining / rate <= at:
            return t + remaining / rate
        if at == math.inf:
            return math.inf
        remaining -= rate * (at - t) + absorb
        t, rate = at, rate + step
        if remaining <= 0:
            return t
    return math.inf  # unreachable: the loop ends at the infinite sentinel


def peak_wait(
    excess: float,
    arrival_rps: float,
    trend_rps2: float,
    rate: float,
    step: float,
    arrivals: list[float],
    horizon_s: float,
    *,
    absorb: float = 0.0,
    max_arrival_rps: float = math.inf,
    points: int = 60,
) -> float:
    """The longest wait a request arriving in the next `horizon_s` seconds would see.

    `excess` is how many requests stand beyond what the ready replicas' batches hold
    (W + R - N * slots): negative while the batches have free slots, which arrivals fill before
    anyone waits. It moves with arrivals at `arrival_rps` (+ trend, capped at `max_arrival_rps`)
    against completions at `rate`; each replica becoming ready adds `absorb` slots and `step`
    req/s. The horizon is the scale-up latency: capacity asked for now cannot help before it.
    Evaluated on a `points` grid plus every landing time, so it can read up to one grid step low.
    """
    arrivals = sorted(arrivals)
    lam_end = arrival_rps + trend_rps2 * horizon_s
    if excess <= 0 and min(max(arrival_rps, lam_end, 0.0), max_arrival_rps) <= rate:
        # Arrivals never outpace the drain (which only grows): no queue can form. Exact.
        return 0.0
    grid = _grid(horizon_s, points)
    inside = [a for a in arrivals if a < horizon_s]
    if inside:
        grid = sorted({*grid, *inside})
    worst = drain_time(max(0.0, excess), rate, step, arrivals, absorb)
    # Free slots never grow in the projection: a batch below capacity completes more slowly than
    # `rate`, so letting it empty further would hide how fast it fills again.
    floor = min(excess, 0.0)
    t, current_rate, landed = 0.0, rate, 0
    for nxt in grid[1:]:
        dt = nxt - t
        lam = min(max(0.0, arrival_rps + trend_rps2 * (t + dt / 2)), max_arrival_rps)
        excess = max(floor, excess + (lam - current_rate) * dt)
        t = nxt
        now_landed = bisect_right(arrivals, t)
        current_rate = rate + step * now_landed
        landing = absorb * (now_landed - landed)
        landed = now_landed
        excess, floor = excess - landing, floor - landing
        if excess > 0:
            later = [a - t for a in arrivals[landed:]]
            worst = max(worst, drain_time(excess, current_rate, step, later, absorb))
        elif _never_outpaced(arrival_rps, trend_rps2, t, horizon_s, max_arrival_rps, current_rate):
            # No queue now and arrivals cannot outpace the drain (which only grows) for the rest
            # of the horizon: no later point can add to the worst. Exact, and most rounds end here.
            break
    return worst


@lru_cache(maxsize=64)
def _grid(horizon_s: float, points: int) -> tuple[float, ...]:
    """The evaluation times 0, horizon/points, ..., horizon (one tuple per horizon, reused)."""
    return tuple(sorted({0.0, horizon_s, *(horizon_s * i / points for i in range(1, points))}))


def _never_outpaced(arrival_rps: float, trend_rps2: float, t: float, horizon_s: float, max_arrival_rps: float,
                    rate: float) -> bool:
    """The capped arrival rate stays at or under `rate` from `t` to the horizon (it is linear in
    time, so its ends bound it; the margin covers the rounding of the midpoints evaluated)."""
    highest = min(max(arrival_rps + trend_rps2 * t, arrival_rps + trend_rps2 * horizon_s, 0.0), max_arrival_rps)
    return highest * (1 + 1e-9) + 1e-12 <= rate
