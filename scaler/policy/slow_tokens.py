"""The share of finished requests whose time per output token missed its SLO, and the replicas
that bring it back under a target share.

The fleet's mean TPOT hides a tail the SLO counts: a request of a few output tokens whose steps
share the engine with a long prompt's prefill chunk (8k tokens take 0.29 s on the bench's
replica) averages its TPOT over a handful of steps and misses, while the fleet's mean reads 15-28
ms (model-merge). Fewer prefill tokens per replica make such steps rarer, and only more replicas
give that; vLLM counts the outcome per request in vllm:request_time_per_output_token_seconds, so
the policy reads the misses themselves rather than modelling them.

The share is the median over recent half-minutes of the finished requests over the SLO against
all finished ones, and the load that made it is the requests per second per ready replica over
the same half-minutes: the replicas needed carry today's arrivals at that load made lighter by
how far the share is over the target, so a fleet that grew since the misses is not asked to grow
again for the same misses, and a fleet whose traffic fell is not held. Pure functions of numbers
and a small frozen state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import median

# The share is counted per half-minute, over the last five (the one still counting aside), and the
# median counts: a tail the
# batches keep making shows in most half-minutes, while the misses of one burst (a clump of
# prompts arriving together, cron-minutes' five-minute jobs) fill one or two and the burst
# headroom answers them.
INTERVAL_S = 30.0
INTERVALS = 10
# A half-minute with fewer finished requests than this says nothing about a share of a percent.
MIN_FINISHED = 100.0
# Share of finished requests allowed over the TPOT SLO: half of what a 99% attainment target
# leaves, the rest for TTFT. The term starts asking once the share is over it, and stops once
# the share is under half of it: between the two it holds the fleet that brought the share down
# (without the band it let go at the target and the share came back, model-merge), and a share
# that never passed the target asks for nothing (gamma-api's 0.2-0.5% asked for a fourth replica
# whenever the rate rose, for no attainment).
TARGET_SHARE = 0.005
RELEASE_SHARE = TARGET_SHARE / 2
# How the share falls with the replicas: as N^-3 (model-merge's static fleets of 4 to 7, seed 0:
# 2.4%, 1.2%, 0.8%, 0.4%), so the replicas scale as the share's cube root.
SHARE_EXPONENT = 3.0


@dataclass(frozen=True)
class Interval:
    start: float
    slow: float = 0.0  # finished requests over the TPOT SLO
    finished: float = 0.0
    replica_weight: float = 0.0  # the ready replicas summed over the finished requests


@dataclass(frozen=True)
class SlowTokens:
    # The last INTERVALS half-minutes, oldest first; the last one is still counting and not read.
    intervals: tuple[Interval, ...] = ()
    totals: tuple[float, float] | None = None  # the counters' last readings (slow, finished)
    quiet_from: float = 0.0  # completions count from here on: the batches of the last overload have finished
    asking: bool = False  # the share passed TARGET_SHARE and has not fallen under RELEASE_SHARE since

    def _counted(self) -> list[tuple[Interval, float]]:
        """The closed half-minutes with enough finished requests, each with its length (to the
        next one's start: the ticks it counted cover that span)."""
        closed = zip(self.intervals, self.intervals[1:])
        return [(i, after.start - i.start) for i, after in closed if i.finished >= MIN_FINISHED]

    @property
    def share(self) -> float:
        """The median share over the counted half-minutes (0 with fewer than half of them)."""
        counted = self._counted()
        if len(counted) < INTERVALS // 2:
            return 0.0
        return median(i.slow / i.finished for i, _ in counted)

    def replicas_per_rps(self) -> float:
        """The ready replicas the counted half-minutes' requests finished on, per request/s they
        finished at: the load per replica that made the share."""
        counted = self._counted()
        finished = sum(i.finished for i, _ in counted)
        span = sum(length for _, length in counted)
        if not finished or span <= 0:
            return 0.0
        served_on = sum(i.replica_weight for i, _ in counted) / finished
        return served_on / (finished / span)


def observe(state: SlowTokens, now: float, slow_total: float | None, finished_total: float | None,
            ready: int, overloaded: bool, stay_s: float) -> SlowTokens:
    """One tick: the counters (None when the source lacks the histogram: nothing learned).

    While the fleet is overloaded, and for a request's stay in the batch (`stay_s`) after, the
    slow requests are the overload's, which the queue and TPOT terms answer, and which more
    replicas later would not have helped: nothing is counted, and what was counted is dropped."""
    if slow_total is None or finished_total is None:
        return state
    totals = (slow_total, finished_total)
    if overloaded or now < state.quiet_from:
        quiet_from = max(state.quiet_from, now + stay_s) if overloaded else state.quiet_from
        return SlowTokens(totals=totals, quiet_from=quiet_from)
    if state.totals is None or finished_total < state.totals[1] or slow_total < state.totals[0]:
        new_slow, new_finished = 0.0, 0.0  # first reading, or a counter restarted: count from here
    else:
        new_slow, new_finished = slow_total - state.totals[0], finished_total - state.totals[1]
    intervals = list(state.intervals)
    if not intervals or now - intervals[-1].start >= INTERVAL_S:
        intervals = intervals[-(INTERVALS - 1):] + [Interval(start=now)]
    current = intervals[-1]
    intervals[-1] = Interval(current.start, current.slow + new_slow, current.finished + new_finished,
                             current.replica_weight + ready * new_finished)
    counted = SlowTokens(intervals=tuple(intervals), totals=totals, quiet_from=state.quiet_from)
    share = counted.share
    return replace(counted, asking=share > TARGET_SHARE or (state.asking and share >= RELEASE_SHARE))


def replicas(state: SlowTokens, arrival_rps: float) -> float:
    """Replica-equivalents that bring the share to the target at the arrival rate now. The share
    follows each replica's load (its prefill tokens per second), so the replicas are the load per
    replica that made the share, made lighter (or heavier, under the target) by the cube root of
    the share over the target, at today's load: at the target it asks for the fleet that made
    it, the fixed point. 0 unless it is asking (above)."""
    if not state.asking:
        return 0.0
    share = state.share
    return arrival_rps * state.replicas_per_rps() * (share / TARGET_SHARE) ** (1.0 / SHARE_EXPONENT)
