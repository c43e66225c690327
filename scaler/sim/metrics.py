"""From one run's record to the figures a bench reports, and the per-second timeline it plots.

Definitions (docs/simulator.md):
- TTFT is what the client sees: from its first attempt to the first token, refusals and the
  waits they caused included. Percentiles are over requests that got a first token.
- TPOT: a finished request's mean time per output token after the first.
- A request meets the SLO when its TTFT <= the TTFT SLO and its TPOT <= the TPOT SLO (a request
  with one output token has no TPOT and is judged on TTFT); refused and unfinished ones miss.
  SLO attainment: the share of a window's arrivals that meet it; TTFT-only attainment judges TTFT alone.
- goodput: requests meeting the SLO per second of workload.
- refusal rate: share of arrivals refused on their last allowed attempt.
- GPU-seconds of a window: the replicas held (starting, ready, draining) integrated over it; the
  last window runs to the horizon (workload end + tail), so replicas held after the traffic count,
  and are also reported apart (those after the last arrival).
- A miss is booked when it happens: at its (late) first token, at its last refusal, or at the
  horizon if it never got a token; TPOT misses at their finish.
- recovery: seconds after the burst ends until 30 s with no miss booked (or the horizon);
  None when the last second still books a miss.
- flaps: scale events that reverse the previous one's direction within 300 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.sim.simulation import ClientRequest, RunRecord

RECOVERY_HOLD_S = 30.0
FLAP_WINDOW_S = 300.0
TTFT_BIN_S = 10.0


def meets(request: ClientRequest, ttft_slo_s: float, tpot_slo_s: float | None) -> bool:
    ttft = request.ttft
    if ttft is None or ttft > ttft_slo_s:
        return False
    if tpot_slo_s is None:
        return True
    if request.finished is None:
        return False
    return request.tpot is None or request.tpot <= tpot_slo_s


def miss_time(request: ClientRequest, ttft_slo_s: float, tpot_slo_s: float | None, horizon: float) -> float | None:
    """When the client saw the miss (None: no miss)."""
    if meets(request, ttft_slo_s, tpot_slo_s):
        return None
    if request.first_token is not None and request.first_token - request.arrival.time > ttft_slo_s:
        return request.first_token
    if request.refused:
        return request.last_attempt
    if request.finished is not None:
        return request.finished  # a TPOT miss
    return horizon


@dataclass(frozen=True)
class Summary:
    workload: str
    policy: str
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    ttft_p99_s: float | None
    tpot_p99_s: float | None
    slo_attainment_all: float
    slo_attainment_admitted: float | None
    ttft_attainment: float
    goodput_rps: float
    refusal_rate: float
    gpu_replica_seconds: float
    recovery_s: float | None
    scale_events: int
    flaps: int


@dataclass(frozen=True)
class WindowScore:
    """What one run did for the arrivals of one window, and what it held during it."""

    requests: int
    slo_attainment: float
    ttft_attainment: float
    gpu_seconds: float
    ttft_p99_s: float | None
    tpot_p99_s: float | None
    refusal_rate: float
    # From the admitted attempt to the first token: what shedding controls (ttft_p99_s counts from
    # the first attempt, so a request refused and served on its retry carries the wait in between).
    admitted_ttft_p99_s: float | None = None
    # Of gpu_seconds, those after the workload's last arrival: the tail, where nothing is left to
    # serve but what is in flight (a quarter of a 20-minute trace's evaluation window).
    gpu_seconds_after_traffic: float = 0.0


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def count_flaps(events: list[tuple[float, int, int]], window_s: float = FLAP_WINDOW_S) -> int:
    flaps = 0
    for (t0, a0, b0), (t1, a1, b1) in zip(events, events[1:]):
        if (b0 - a0) * (b1 - a1) < 0 and t1 - t0 <= window_s:
            flaps += 1
    return flaps


def gpu_seconds(record: RunRecord, start: float, end: float) -> float:
    """Replica-seconds held in [start, end)."""
    return sum(max(0.0, min(b, end) - max(a, start)) for a, b in record.lifetimes)


def recovery(record: RunRecord, slo_s: float, burst_end_s: float, end_s: float, tpot_slo_s: float | None = None) -> float | None:
    seconds = int(math.ceil(end_s))
    bad = [False] * max(1, seconds)
    for r in record.requests:
        t = miss_time(r, slo_s, tpot_slo_s, end_s)
        if t is not None:
            bad[min(len(bad) - 1, int(t))] = True
    start = int(math.floor(burst_end_s))
    hold = int(RECOVERY_HOLD_S)
    run = 0
    for second in range(start, seconds):
        run = 0 if bad[second] else run + 1
        if run >= hold:
            return max(0.0, float(second - hold + 1) - burst_end_s)
    if run == 0:
        return None
    return max(0.0, float(seconds - run) - burst_end_s)


def window_score(record: RunRecord, start: float, end: float, ttft_slo_s: float, tpot_slo_s: float) -> WindowScore:
    """Arrivals in [start, end) and the GPU-seconds held over it."""
    chosen = [r for r in record.requests if start <= r.arrival.time < end]
    n = len(chosen)
    ttfts = sorted(r.ttft for r in chosen if r.ttft is not None)
    tpots = sorted(r.tpot for r in chosen if r.tpot is not None)
    admitted = sorted(r.first_token - r.admitted_at for r in chosen
                      if r.first_token is not None and r.admitted_at is not None)
    last_arrival = max((r.arrival.time for r in record.requests), default=start)
    return WindowScore(
        requests=n,
        slo_attainment=sum(1 for r in chosen if meets(r, ttft_slo_s, tpot_slo_s)) / n if n else 1.0,
        ttft_attainment=sum(1 for r in chosen if meets(r, ttft_slo_s, None)) / n if n else 1.0,
        gpu_seconds=gpu_seconds(record, start, end),
        ttft_p99_s=percentile(ttfts, 0.99), tpot_p99_s=percentile(tpots, 0.99),
        refusal_rate=sum(1 for r in chosen if r.refused) / n if n else 0.0,
        admitted_ttft_p99_s=percentile(admitted, 0.99),
        gpu_seconds_after_traffic=gpu_seconds(record, max(start, last_arrival), end),
    )


def summarize(record: RunRecord, slo_s: float, burst: tuple[float, float], duration_s: float,
              tpot_slo_s: float | None = None) -> Summary:
    n = len(record.requests)
    ttfts = sorted(r.ttft for r in record.requests if r.ttft is not None)
    tpots = sorted(r.tpot for r in record.requests if r.tpot is not None)
    met = sum(1 for r in record.requests if meets(r, slo_s, tpot_slo_s))
    admitted = sum(1 for r in record.requests if r.admitted_at is not None)
    met_admitted = sum(1 for r in record.requests if r.admitted_at is not None and meets(r, slo_s, tpot_slo_s))
    refused = sum(1 for r in record.requests if r.refused)
    end = record.horizon or record.end_time
    return Summary(
        workload=record.workload, policy=record.policy,
        ttft_p50_s=percentile(ttfts, 0.50), ttft_p95_s=percentile(ttfts, 0.95), ttft_p99_s=percentile(ttfts, 0.99),
        tpot_p99_s=percentile(tpots, 0.99),
        slo_attainment_all=met / n if n else 1.0,
        slo_attainment_admitted=met_admitted / admitted if admitted else None,
        ttft_attainment=sum(1 for r in record.requests if meets(r, slo_s, None)) / n if n else 1.0,
        goodput_rps=sum(1 for r in record.requests if r.finished is not None and meets(r, slo_s, tpot_slo_s)) / duration_s
        if duration_s > 0 else 0.0,
        refusal_rate=refused / n if n else 0.0,
        gpu_replica_seconds=record.gpu_replica_seconds,
        recovery_s=recovery(record, slo_s, burst[1], max(end, duration_s), tpot_slo_s),
        scale_events=len(record.scale_events),
        flaps=count_flaps(record.scale_events),
    )


@dataclass(frozen=True)
class Timeline:
    """Per-second series for the plots (TTFT p99 per 10 s of arrivals)."""

    policy: str
    seconds: list[float]
    arrivals: list[int]
    queued: list[int]
    ready: list[int]
    refusals: list[int]
    ttft_p99_bins: list[float]
    ttft_p99: list[float | None]


def timeline(record: RunRecord) -> Timeline:
    end = int(math.ceil(record.end_time)) + 1
    arrivals = [0] * end
    for r in record.requests:
        arrivals[min(end - 1, int(r.arrival.time))] += 1
    refusals = [0] * end
    for t in record.refused_attempts:
        refusals[min(end - 1, int(t))] += 1
    queued, ready = [0] * end, [0] * end
    for t, q, _running, rdy, _starting, _desired in record.samples:
        i = min(end - 1, int(t))
        queued[i], ready[i] = q, rdy
    bins = int(math.ceil(end / TTFT_BIN_S))
    per_bin: list[list[float]] = [[] for _ in range(bins)]
    for r in record.requests:
        if r.ttft is not None:
            per_bin[min(bins - 1, int(r.arrival.time // TTFT_BIN_S))].append(r.ttft)
    p99 = [percentile(sorted(v), 0.99) for v in per_bin]
    return Timeline(record.policy, [float(s) for s in range(end)], arrivals, queued, ready, refusals,
                    [i * TTFT_BIN_S + TTFT_BIN_S / 2 for i in range(bins)], p99)
