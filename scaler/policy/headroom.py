"""Headroom from history: the bursts the recent past has shown, over windows up to the scale-up
horizon, and the replicas that must already be up to absorb one like them.

Capacity asked for now lands after the scale-up latency L, so a burst of A requests over w <= L
seconds falls on the replicas already up. N replicas hold it within the SLO while what they
complete (c x w each) plus what their batches absorb (a share of their S slots, less the R
requests already running) covers it:

    N >= (A_w + R) / (c x w + share x S)

with `share` the part of the safe concurrency S a burst may fill (the caller's: all of it,
BURST_SLOT_SHARE in decide).

Requests are not all the same work: a burst of long prompts (documents sent in a batch) fills the
prefill, not the slots, and its count looks like any other. So the same history is kept in prompt
tokens, and N replicas hold a burst of T_w prompt tokens over w seconds while their prefill, at a
share of its throughput V_P (the caller's: decide.prefill_share, the target utilisation and at most
TPOT_TARGET_SHARE, as the requests decoding beside a prefill wait for its chunks), clears it and
the P tokens already in flight before the burst's last request has waited out the TTFT budget B:

    N >= (T_w + P) / (share x V_P x (w + B))

A_w (T_w) is the largest count of arrivals (prompt tokens) seen in any w seconds, forgotten with a half-life,
so a model learns its own burstiness online and lets go of one it no longer shows. The half-life
is learned too: a burst seen once fades within minutes (ONCE_HALF_LIFE_S), and one that has come
back, at least RETURN_SHARE of its size after the count had stayed below that for a scale-up
latency, is kept with HISTORY_HALF_LIFE_S (`Peak`). Waves closer than that are one burst (the
capacity the first asked for is still up), and a burst more than 1 / RETURN_SHARE the size of the
one that came back is a new one, seen once, however many ticks it takes to build. The same marks
give the trend over the scale-up horizon, whose halves are long enough for a rise from a low rate
to stand out of the noise before the capacity it needs is late (`trend`). Pure functions of
numbers and a small frozen state.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

from scaler.policy.signals import TREND_MIN_Z

# Window lengths (s) over which bursts are counted; those longer than L are not needed (capacity
# asked for at a burst's start lands by then) and L itself is always counted. The 1 s window is a
# clump that arrives at once (a client's replay, a fan-out): its last request has the TTFT budget
# alone to be prefilled in, where the 5 s window would credit it with 5 s more.
BURST_WINDOWS_S = (1.0, 5.0, 15.0, 30.0, 60.0)
# A burst that has come back, seen this long ago, counts for half.
HISTORY_HALF_LIFE_S = 1200.0
# A burst seen once counts for half this long after: one that never returns (a day's peak, a batch
# job, a single flash crowd) held the fleet sized for a second one for the whole 20 minutes
# (diurnal-chat at 1.0: 6-8 replicas through an evening its floor of 5 carries), while bursts that
# return (azure-code's, after gaps longer than five minutes) need the long memory.
ONCE_HALF_LIFE_S = 300.0
# A count back to this share of the remembered peak, after falling below it, is the burst returning;
# one over 1 / RETURN_SHARE x the peak is a new burst, seen once.
RETURN_SHARE = 0.5
# Cumulative-arrival marks are kept at least this far apart: the shortest window's resolution (ticks
# further apart interpolate between marks, so a 1 s count reads as that stretch's mean rate).
MARK_SPACING_S = 1.0


def memory_half_life(returns: float) -> float:
    """How fast a remembered burst fades: ONCE_HALF_LIFE_S seen once, HISTORY_HALF_LIFE_S once it
    has come back (`returns`, decayed, at least 1), in between as a return fades."""
    return ONCE_HALF_LIFE_S + (HISTORY_HALF_LIFE_S - ONCE_HALF_LIFE_S) * min(1.0, returns)


def faded_returns(returns: float, dt: float) -> float:
    """The count of returns `dt` seconds on: each fades with HISTORY_HALF_LIFE_S."""
    return returns * 0.5 ** (dt / HISTORY_HALF_LIFE_S)


@dataclass(frozen=True)
class Peak:
    """The largest count seen in a window of `window_s`, decayed, and how often it came back."""
    window_s: float
    count: float = 0.0
    returns: float = 0.0  # times a burst came back to RETURN_SHARE of the peak, decayed with HISTORY_HALF_LIFE_S
    size: float = 0.0  # the burst the returns were counted on (0: none seen yet), decayed as the peak is
    rising: float | None = None  # the largest count of the burst under way (None: below RETURN_SHARE of the peak)
    below_s: float = 0.0  # how long the count has stayed below RETURN_SHARE of the peak

    def half_life(self) -> float:
        return memory_half_life(self.returns)

    def observe(self, count: float | None, dt: float, gap_s: float) -> Peak:
        """The peak after `dt` seconds more, with the count over its window now (None: not known
        yet). A burst returns when the count comes back to RETURN_SHARE of the peak after staying
        below it for `gap_s`; one whose largest count, once it is over, is more than 1 / RETURN_SHARE
        the size the returns were counted on was a new one, seen once.

        Judged tick by tick against the peak, a burst that builds over several ticks grew it by
        less than twice a tick and kept the returns of the noise before it (outage-retry's
        retries, 5x the 5 s prompt-token peak, kept 14 returns and the 20-minute half-life), and
        one that comes back in waves seconds apart counted each wave as a return."""
        returns = faded_returns(self.returns, dt)
        decay = 0.5 ** (dt / self.half_life())
        kept, size = self.count * decay, self.size * decay
        if count is None:
            return Peak(self.window_s, kept, returns, size, self.rising, self.below_s)
        if count >= RETURN_SHARE * kept:  # a burst under way
            if self.rising is None and size > 0 and self.below_s >= gap_s:  # back from below: it returned
                returns += 1.0
            return Peak(self.window_s, max(count, kept), returns, size, max(count, self.rising or 0.0))
        if self.rising is None:
            return Peak(self.window_s, kept, returns, size, None, self.below_s + dt)
        if self.rising * RETURN_SHARE > size:  # the burst just over outgrew the one that came back
            return Peak(self.window_s, kept, 0.0, self.rising)
        return Peak(self.window_s, kept, returns, max(size, self.rising))


@dataclass(frozen=True)
class BurstHistory:
    marks: tuple[tuple[float, float], ...] = ()  # (time, arrivals so far), oldest first, over the longest window
    peaks: tuple[Peak, ...] = ()  # per window, shortest first
    arrived: float = 0.0  # cumulative arrivals (counted, or integrated from the rate)
    last: float | None = None  # time of the last update

    def peak(self, window_s: float) -> float:
        return next((p.count for p in self.peaks if p.window_s == window_s), 0.0)

    def half_life(self, window_s: float) -> float:
        """How fast the peak over `window_s` fades (0: no such window)."""
        return next((p.half_life() for p in self.peaks if p.window_s == window_s), 0.0)


def windows(scale_up_s: float) -> tuple[float, ...]:
    return tuple(sorted({*(w for w in BURST_WINDOWS_S if w < scale_up_s), max(scale_up_s, MARK_SPACING_S)}))


def observe(history: BurstHistory, now: float, arrivals_total: float | None, arrival_rps: float,
            scale_up_s: float) -> BurstHistory:
    """One tick: the cumulative arrivals (the RLS counter when wired, else the rate integrated)."""
    dt = 0.0 if history.last is None else max(0.0, now - history.last)
    if arrivals_total is not None:
        arrived = arrivals_total
        if history.marks and arrived < history.marks[-1][1]:  # the counter restarted: start over
            history = BurstHistory()
    else:
        arrived = history.arrived + arrival_rps * dt
    grid = windows(scale_up_s)
    longest = grid[-1]
    # Marks are oldest first: those still within the longest window are a suffix, found by bisection.
    first = bisect_left(history.marks, True, key=lambda m: now - m[0] <= longest + MARK_SPACING_S)
    marks = list(history.marks[first:])
    if not marks or now - marks[-1][0] >= MARK_SPACING_S:
        marks.append((now, arrived))
    old = {p.window_s: p for p in history.peaks}
    peaks = tuple(old.get(w, Peak(w)).observe(_count_since(marks, now - w, arrived), dt, scale_up_s) for w in grid)
    return BurstHistory(tuple(marks), peaks, arrived, now)


def count_over(history: BurstHistory, now: float, span_s: float) -> float | None:
    """Arrivals in the last `span_s` seconds; None while the history does not reach back that far."""
    return _count_since(history.marks, now - span_s, history.arrived)


def _count_since(marks: Sequence[tuple[float, float]], since: float, arrived: float) -> float | None:
    """Arrivals after `since`; None while the history does not reach back that far."""
    if not marks or marks[0][0] > since + 1e-9:
        return None
    i = bisect_left(marks, since, key=itemgetter(0))
    if i < len(marks) and abs(marks[i][0] - since) < 1e-9:
        return arrived - marks[i][1]
    (t0, a0), (t1, a1) = marks[i - 1], marks[min(i, len(marks) - 1)]
    at = a0 if t1 <= t0 else a0 + (a1 - a0) * (since - t0) / (t1 - t0)
    return arrived - at


def trend(history: BurstHistory, now: float, span_s: float) -> float:
    """The rise in arrival rate per second over the last `span_s` seconds (the late half's rate
    minus the early half's, over half the span), kept only when it stands out of the two halves'
    noise by TREND_MIN_Z; 0 while the history does not reach back that far, or for a fall.

    The noise is Poisson's made larger by each half's index of dispersion (the spread of its counts
    between marks against their mean): a stream that comes in clumps shows rises and falls of its
    own that no trend makes, and Poisson's test would read them as one."""
    half = span_s / 2
    if half <= 0:
        return 0.0
    marks = history.marks
    late, both = count_over(history, now, half), count_over(history, now, span_s)
    if late is None or both is None:
        return 0.0
    early_rps, late_rps = (both - late) / half, late / half
    variance = (early_rps * _dispersion(marks, now - span_s, now - half, early_rps)
                + late_rps * _dispersion(marks, now - half, now, late_rps)) / half
    if variance <= 0 or late_rps - early_rps < TREND_MIN_Z * math.sqrt(variance):
        return 0.0
    return (late_rps - early_rps) / half


def rate_noise(history: BurstHistory, now: float, span_s: float) -> float:
    """The standard deviation of the mean arrival rate over `span_s` seconds if arrivals are
    Poisson at the rate the last span showed; 0 while the history does not reach back that far.

    Poisson's alone, not widened by the counts' dispersion as the trend's test is: clumps are
    the burst term's to absorb (in batch slots), and counted here too they would buy capacity
    for them twice (widened, rl-rollouts cost 22% more GPU-seconds at 1.0 and 6% at 0.8, for
    the same attainment)."""
    count = count_over(history, now, span_s)
    if count is None or count <= 0 or span_s <= 0:
        return 0.0
    return math.sqrt(count) / span_s


def _dispersion(marks: Sequence[tuple[float, float]], start: float, end: float, rate: float) -> float:
    """The index of dispersion of the counts between consecutive marks within [start, end] about
    `rate` (their squared deviations over their expected counts), never under Poisson's 1."""
    deviation = expected = 0.0
    for (t0, a0), (t1, a1) in zip(marks, marks[1:]):
        if t0 >= start - 1e-9 and t1 <= end + 1e-9:
            mean = rate * (t1 - t0)
            deviation += (a1 - a0 - mean) ** 2
            expected += mean
    return max(1.0, deviation / expected) if expected > 0 else 1.0


def burst_replicas(history: BurstHistory, *, running: float, capacity_rps: float | None, slots: float | None,
                   slot_share: float, target_utilization: float) -> tuple[float, float]:
    """Replica-equivalents that absorb the largest recent burst, filling each batch to `slot_share`
    of its slots, and the window it was seen over."""
    if not capacity_rps:
        return 0.0, 0.0
    if slots:
        return _largest(history, lambda w, count: (count + running) / (capacity_rps * w + slot_share * slots))
    return _largest(history, lambda w, count: count / (capacity_rps * target_utilization * w))


def prefill_replicas(history: BurstHistory, *, in_flight: float, prefill_tps: float | None, budget_s: float,
                     share: float) -> tuple[float, float]:
    """Replica-equivalents whose prefill, at `share` of its throughput, clears the largest recent
    burst of prompt tokens (a history kept in tokens) and the tokens in flight within the burst's
    window plus the TTFT budget, and the window it was seen over."""
    if not prefill_tps:
        return 0.0, 0.0
    return _largest(history, lambda w, tokens: (tokens + in_flight) / (share * prefill_tps * (w + budget_s)))


def _largest(history: BurstHistory, replicas) -> tuple[float, float]:
    """The most replicas `replicas(window, peak)` asks for over the history's windows, and that window."""
    best, where = 0.0, 0.0
    for p in history.peaks:
        if p.count > 0:
            w, need = p.window_s, replicas(p.window_s, p.count)
            if need > best:
                best, where = need, w
    return (best if math.isfinite(best) else 0.0), where
