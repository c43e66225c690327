"""Observations of one model and the windowed rates the policy needs.

A Snapshot is what a source saw at one instant, summed over the model's ready replicas. The
SignalWindow keeps the snapshots of the last `rate_window_s` seconds and turns counters into
rates, treating a counter that went down as a reset (a replica restarted), never as negative work.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass


# How many standard deviations of Poisson noise a change in arrival rate must exceed to count.
TREND_MIN_Z = 3.0
# Consecutive snapshots with a non-empty queue before the batch counts as full.
SUSTAINED_SNAPSHOTS = 3
# The output token rate describes the batch as it is now: over the last few seconds only.
RECENT_S = 5.0


@dataclass(frozen=True)
class Snapshot:
    time: float
    waiting: float
    running: float
    ready_replicas: int
    # vllm:request_success_total summed over replicas (a counter); None when the source lacks it.
    completed_total: float | None = None
    # Requests the rate-limit service admitted (a counter); exact arrivals when Envoy is wired.
    arrivals_total: float | None = None
    # Seconds each replica still starting has been starting; None when the source cannot see pods.
    starting_ages: tuple[float, ...] | None = None
    # Prompt tokens of requests not yet at their first token (llm-d EPP's in-flight tokens);
    # None when the source lacks it (the predictor then counts waiting requests).
    prompt_tokens_in_flight: float | None = None
    # vllm:generation_tokens_total summed over replicas (a counter); None when the source lacks it.
    generation_tokens_total: float | None = None
    # Finished requests whose mean time per output token was over the TPOT SLO, and all finished
    # ones (vllm:request_time_per_output_token_seconds, its bucket at the SLO and its count, both
    # counters); None when the source lacks the histogram or no TPOT SLO is set.
    tpot_slow_total: float | None = None
    tpot_finished_total: float | None = None
    # vllm:prompt_tokens_total summed over replicas (a counter: prompt tokens prefilled, counted at
    # each request's first token); None when the source lacks it.
    prompt_tokens_total: float | None = None
    # Attempts the rate-limit service refused (a counter, part of arrivals_total): their prompts
    # were offered and never reach vllm:prompt_tokens_total. None when nothing counts them.
    refused_total: float | None = None

    def __post_init__(self):
        for name in ("time", "waiting", "running"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"Snapshot.{name}: expected a finite number >= 0, got {value!r}")
        if self.ready_replicas < 0:
            raise ValueError(f"Snapshot.ready_replicas: expected >= 0, got {self.ready_replicas!r}")


@dataclass(frozen=True)
class Rates:
    completion_rps: float  # mu
    arrival_rps: float  # lambda
    arrival_trend_rps2: float  # d lambda / dt, for the forecast over the scale-up horizon
    span_s: float  # how much history the rates rest on
    arrivals_exact: bool  # counted by the RLS rather than inferred from the queue
    generation_tps: float | None = None  # output tokens per second over the last RECENT_S (or the last two readings); None without the counter
    generation_running: float | None = None  # requests running, averaged over the same seconds as generation_tps


# The counters a window turns into rates, by Snapshot field.
COUNTERS = ("arrivals_total", "completed_total", "generation_tokens_total")


class _Counter:
    """One counter's readings in a window: the snapshots that carry it (by sequence number), their
    times, and each reading's increase over the previous one (a drop is a reset: the new value
    is all new), so a range's increase is a sum over a slice, not a walk over the snapshots.
    Flat arrays of numbers, trimmed as the snapshots are."""

    __slots__ = ("seqs", "times", "increases", "last")

    def __init__(self) -> None:
        self.seqs = array("q")
        self.times = array("d")
        self.increases = array("d")  # [0] is unused: the first reading has no previous one
        self.last: float | None = None

    def push(self, seq: int, time: float, value: float) -> None:
        prev = value if self.last is None else self.last
        self.seqs.append(seq)
        self.times.append(time)
        self.increases.append(value - prev if value >= prev else value)
        self.last = value

    def drop_before(self, seq: int) -> None:
        n = bisect_left(self.seqs, seq)
        if n:
            del self.seqs[:n], self.times[:n], self.increases[:n]

    def readings(self, first: int, last: int) -> tuple[int, int]:
        """Index range [a, b) of the readings of snapshots `first`..`last` (sequence numbers)."""
        return bisect_left(self.seqs, first), bisect_right(self.seqs, last)

    def increase(self, a: int, b: int) -> float:
        """The increase over readings a..b-1: their successive increases summed in order."""
        return sum(self.increases[a + 1:b], 0.0)


class SignalWindow:
    """The last `span_s` seconds of one model's snapshots, oldest first, kept as columns of numbers
    (time, waiting, waiting + running, and each counter's readings) plus the latest Snapshot.

    Bounded by time: a snapshot leaves once the one after it is `span_s` old, so the window holds
    span_s x the push rate snapshots (31 at the defaults: a 30 s window polled each second), about
    100 bytes each and no object each: its size does not depend on how long the model has run."""

    def __init__(self, span_s: float):
        self.span_s = span_s
        self._latest: Snapshot | None = None
        self._first = 0  # sequence number of the oldest snapshot held
        self._times = array("d")
        self._waiting = array("d")
        self._queued = array("d")  # waiting + running
        self._counters = {name: _Counter() for name in COUNTERS}

    def push(self, snapshot: Snapshot) -> None:
        times = self._times
        if times and snapshot.time <= times[-1]:
            return  # the same scrape seen twice (a cached source): no new information
        seq = self._first + len(times)
        self._latest = snapshot
        times.append(snapshot.time)
        self._waiting.append(snapshot.waiting)
        self._queued.append(snapshot.waiting + snapshot.running)
        for name, counter in self._counters.items():
            value = getattr(snapshot, name)
            if value is not None:
                counter.push(seq, snapshot.time, value)
        dropped = 0
        while len(times) - dropped > 2 and snapshot.time - times[dropped + 1] >= self.span_s:
            dropped += 1
        if dropped:
            del times[:dropped], self._waiting[:dropped], self._queued[:dropped]
            self._first += dropped
            for counter in self._counters.values():
                counter.drop_before(self._first)

    @property
    def latest(self) -> Snapshot | None:
        return self._latest

    def __len__(self) -> int:
        return len(self._times)

    def queue_sustained(self, n: int = SUSTAINED_SNAPSHOTS) -> bool:
        """Requests waited in each of the last `n` snapshots: the batch is full, not merely
        between two scheduler steps (vLLM shows a request as waiting until the next step)."""
        waiting = self._waiting
        return len(waiting) >= n and all(waiting[-i] > 0 for i in range(1, n + 1))

    def busy_s(self) -> float:
        """Seconds requests have been in flight (waiting + running) without a break, as far back as
        the window holds; 0 with nothing in flight now. A fleet that has just woken has read nothing
        yet: its window's silence is no stalled engine, nor its first seconds' prefill a slow batch."""
        queued, times = self._queued, self._times
        if not times or queued[-1] <= 0:
            return 0.0
        first = len(times) - 1
        while first > 0 and queued[first - 1] > 0:
            first -= 1
        return times[-1] - times[first]

    def peak_in_flight(self, since: float) -> float:
        """The most requests in flight (waiting + running) at any snapshot at or after `since`, the
        latest always included; 0 on an empty window."""
        times = self._times
        first = len(times) - 1
        while first > 0 and times[first - 1] >= since:
            first -= 1
        return max(self._queued[max(first, 0):], default=0.0)

    def saturated_completion_rps(self, since: float) -> tuple[float, float]:
        """Completions per second over the trailing snapshots, taken at or after `since`, in each of
        which requests waited (the batch full throughout, not part of the window only), and the
        seconds that rests on; (0.0, 0.0) without two such snapshots."""
        waiting, times = self._waiting, self._times
        first = len(times)
        while first > 0 and waiting[first - 1] > 0 and times[first - 1] >= since:
            first -= 1
        last = len(times) - 1
        if last - first < 1:
            return 0.0, 0.0
        return self._completion_rate(first, last), self._span(first, last)

    def rates(self) -> Rates | None:
        if len(self._times) < 2:
            return None
        last = len(self._times) - 1
        generation_tps, generation_running = self.generation_over(RECENT_S)
        return Rates(
            completion_rps=self._completion_rate(0, last),
            arrival_rps=(arrival := self._arrival_rate(0, last))[0],
            arrival_trend_rps2=self._trend(),
            span_s=self._times[-1] - self._times[0],
            arrivals_exact=arrival[1],
            generation_tps=generation_tps,
            generation_running=generation_running,
        )

    def _span(self, first: int, last: int) -> float:
        return self._times[last] - self._times[first]

    def _completion_rate(self, first: int, last: int) -> float:
        """Completions per second over snapshots first..last (positions in the window)."""
        counter = self._counters["completed_total"]
        a, b = counter.readings(self._first + first, self._first + last)
        span = self._span(first, last)
        return counter.increase(a, b) / span if b - a >= 2 and span > 0 else 0.0

    def generation_over(self, seconds: float) -> tuple[float | None, float | None]:
        """Output tokens/s over the last `seconds`, or over the last two readings when they are further
        apart (Prometheus scraping every 15-30 s: one scrape interval is the freshest rate it has),
        and the requests running averaged over the same seconds (trapezoids between snapshots): the
        batch that made those tokens. (None, None) without two readings."""
        counter = self._counters["generation_tokens_total"]
        times, b = counter.times, len(counter.times)
        if b < 2:
            return None, None
        a = b - 1
        while a > 0 and times[-1] - times[a - 1] <= seconds + 1e-9:
            a -= 1
        if b - a < 2:
            a = b - 2
        span = times[b - 1] - times[a]
        if span <= 0:
            return None, None
        first, last = counter.seqs[a] - self._first, counter.seqs[b - 1] - self._first
        area = sum((self._running(i) + self._running(i + 1)) / 2 * (self._times[i + 1] - self._times[i])
                   for i in range(first, last))
        return counter.increase(a, b) / span, area / span

    def _running(self, i: int) -> float:
        return self._queued[i] - self._waiting[i]

    def _arrival_rate(self, first: int, last: int) -> tuple[float, bool]:
        """Exact from the RLS counter when present, else what finished plus what the queue grew by."""
        span = self._span(first, last)
        if span <= 0:
            return 0.0, False
        counter = self._counters["arrivals_total"]
        a, b = counter.readings(self._first + first, self._first + last)
        if b - a >= 2:
            return counter.increase(a, b) / span, True
        growth = self._queued[last] - self._queued[first]
        return max(0.0, self._completion_rate(first, last) + growth / span), False

    def _trend(self) -> float:
        """Late-half minus early-half arrival rate per second, kept only when it stands out of the
        Poisson noise of the counts (|z| >= TREND_MIN_Z); noise projected over a scale-up horizon
        would otherwise ratchet the fleet up."""
        n = len(self._times)
        if n < 4:
            return 0.0
        mid = n // 2
        early_s, late_s = self._span(0, mid), self._span(mid, n - 1)
        if early_s <= 0 or late_s <= 0:
            return 0.0
        early_rps, late_rps = self._arrival_rate(0, mid)[0], self._arrival_rate(mid, n - 1)[0]
        noise = math.sqrt(early_rps / early_s + late_rps / late_s)
        if noise == 0 or abs(late_rps - early_rps) < TREND_MIN_Z * noise:
            return 0.0
        return (late_rps - early_rps) / ((early_s + late_s) / 2)
