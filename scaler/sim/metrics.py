"""From one run's record to the figures a bench reports, and the per-second timeline it plots.

Definitions (docs/simulator.md):
- TTFT is what the client sees: from its first attempt to the first token, refusals and the
  waits they caused included. Percentiles are over requests that got a first token.
- SLO attainment (all): share of arrivals with TTFT <= SLO; refused and unfinished count as misses.
  SLO attainment (admitted): the same share among requests the gateway let through.
- goodput: completed requests with TTFT <= SLO per second of workload.
- refusal rate: share of arrivals refused on their last allowed attempt.
- recovery: seconds after the burst ends until a stretch of arrivals served entirely within the
  SLO (no refusal, no miss) that lasts 30 s or runs to the end of the workload; None when the
  workload's last second still has a miss.
- flaps: scale events that reverse the previous one's direction within 300 s.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from scaler.sim.simulation import RunRecord

RECOVERY_HOLD_S = 30.0
FLAP_WINDOW_S = 300.0
TTFT_BIN_S = 10.0


@dataclass(frozen=True)
class Summary:
    workload: str
    policy: str
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    ttft_p99_s: float | None
    slo_attainment_all: float
    slo_attainment_admitted: float | None
    goodput_rps: float
    refusal_rate: float
    gpu_replica_seconds: float
    recovery_s: float | None
    scale_events: int
    flaps: int

    def as_json(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


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


def recovery(record: RunRecord, slo_s: float, burst_end_s: float, duration_s: float) -> float | None:
    seconds = int(math.ceil(duration_s))
    bad = [False] * seconds
    for r in record.requests:
        ttft = r.ttft
        if ttft is None or ttft > slo_s:
            bad[min(seconds - 1, int(r.arrival.time))] = True
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


def summarize(record: RunRecord, slo_s: float, burst: tuple[float, float], duration_s: float) -> Summary:
    n = len(record.requests)
    ttfts = sorted(r.ttft for r in record.requests if r.ttft is not None)
    met = sum(1 for t in ttfts if t <= slo_s)
    admitted = sum(1 for r in record.requests if r.admitted_at is not None)
    good = sum(1 for r in record.requests if r.finished is not None and r.ttft <= slo_s)
    refused = sum(1 for r in record.requests if r.refused)
    return Summary(
        workload=record.workload, policy=record.policy,
        ttft_p50_s=percentile(ttfts, 0.50), ttft_p95_s=percentile(ttfts, 0.95), ttft_p99_s=percentile(ttfts, 0.99),
        slo_attainment_all=met / n if n else 1.0,
        slo_attainment_admitted=met / admitted if admitted else None,
        goodput_rps=good / duration_s if duration_s > 0 else 0.0,
        refusal_rate=refused / n if n else 0.0,
        gpu_replica_seconds=record.gpu_replica_seconds,
        recovery_s=recovery(record, slo_s, burst[1], duration_s),
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
