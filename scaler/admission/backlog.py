"""The slot queue since the scaler's data (pure): admission counts what the decision cannot see.

A decision is made from data a scrape interval plus a poll interval old (1 s in the demo, 15-35 s
behind a production Prometheus); a burst fills the batches' free slots and queues faster than
that. The rate-limit service sees every request as it comes, so between decisions admission
projects the queue from the decision's own numbers: the requests in the ready batches at the data
time (R + W), every request admitted since (counted here, in BIN_S bins), and completions (a fluid
queue that cannot go below empty). A request is refused only if, even at that drain, it would wait
for a slot past a share of the TTFT budget: outside RED the policy's line for RED (it would miss),
in RED the share RED's admission rate aims at (`AdmissionConfig.miss_ratio`, `red_queue_ratio`).

The drain is the policy's r0 = max(mu, N x c) once the batches have turned over, one service
time T = S / c after the data time. Before that only the requests in the batches at the data time
can finish (one a slot admits now holds it about T): at R / T, or mu when the fleet measurably
completes faster, never above r0. A burst that fills half-empty batches therefore queues at the
rate the old batch finishes, not at the full fleet's (the demo's misses at a burst's onset).
Whatever is not known (no slots, no ready replica, no drain, a count that does not reach back to
the data time) admits; without a capacity the drain is r0 from the start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.policy.decide import Decision

BIN_S = 0.05  # admissions are counted in bins this wide; the one straddling the data time is left out
MAX_BINS = 1200  # 60 s of bins (the RLS ignores decisions older than that by default): bounded state

Bins = tuple[tuple[float, float], ...]  # (bin start, requests admitted in it), oldest first


@dataclass(frozen=True)
class Admitted:
    """Requests admitted recently, complete from `since` (None: nothing counted yet).

    `last` is the projection's latest point (the decision it was projected from, requests in the
    batches and when), so that the next request under the same decision continues from it instead
    of replaying every bin (a cache: a replay gives it again)."""

    bins: Bins = ()
    since: float | None = None
    last: tuple[tuple, float, float] | None = None

    def record(self, now: float, cost: float, keep_from: float | None,
               queue: "SlotQueue | None" = None) -> "Admitted":
        """Count `cost` admitted at `now` (joining `queue`, when projected); bins before `keep_from`
        (the current data time) can go."""
        start = math.floor(now / BIN_S) * BIN_S
        bins, since = self.bins, self.since if self.since is not None else start
        if keep_from is not None:
            cut = 0
            while cut < len(bins) and bins[cut][0] + BIN_S <= keep_from:
                cut += 1
            if cut:
                bins, since = bins[cut:], max(since, bins[cut - 1][0] + BIN_S)
        if bins and bins[-1][0] >= start:  # same bin (or a clock that stepped back)
            bins = bins[:-1] + ((bins[-1][0], bins[-1][1] + cost),)
        else:
            bins = bins + ((start, cost),)
        if len(bins) > MAX_BINS:
            bins, since = bins[-MAX_BINS:], max(since, bins[-MAX_BINS - 1][0] + BIN_S)
        last = (queue.key, queue.occupied + cost, now) if queue is not None else None
        return Admitted(bins, since, last)

    def after(self, t: float) -> Bins | None:
        """The bins wholly after `t`, or None when the count does not reach back to `t`."""
        if self.since is None or t < self.since:
            return None
        return tuple(b for b in self.bins if b[0] >= t)


@dataclass(frozen=True)
class Drain:
    """Completions after the data time: `early` requests/s until `turned`, `full` after."""

    early: float
    turned: float  # when the batches at the data time have turned over (data time + T)
    full: float  # r0

    def between(self, a: float, b: float) -> float:
        """Requests completed from `a` to `b`."""
        if b <= a:
            return 0.0
        early = max(0.0, min(b, self.turned) - a)
        return self.early * early + self.full * (b - a - early)

    def time_to(self, amount: float, start: float) -> float:
        """Seconds from `start` until `amount` requests have completed."""
        if amount <= 0:
            return 0.0
        early = self.early * max(0.0, self.turned - start)
        if amount <= early:
            return amount / self.early
        return max(0.0, self.turned - start) + (amount - early) / self.full


@dataclass(frozen=True)
class SlotQueue:
    """The queue a request admitted now would join, projected from the decision and the count."""

    waiting: float  # requests beyond the ready batches' slots now (negative: free slots)
    allowed: float  # what may wait: what drains within the given share of the budget
    drain: Drain
    now: float
    occupied: float  # in the batches (up to their slots) and waiting, now
    key: tuple  # the decision's data time, occupancy then and drain

    def wait_s(self, cost: float) -> float:
        return self.drain.time_to(self.waiting + cost, self.now)

    @property
    def rate_rps(self) -> float:
        """The drain now."""
        return self.drain.early if self.now < self.drain.turned else self.drain.full

    def excess_s(self, cost: float) -> float:
        """How long until a request refused now would fit under the line."""
        return self.drain.time_to(self.waiting + cost - self.allowed, self.now)


def project(decision: Decision, admitted: Admitted, observed_at: float, now: float, share: float) -> SlotQueue | None:
    """The slot queue now, or None when it cannot be known (admission then relies on the decision)."""
    slots, full, ready = decision.slots, decision.drain_rps, decision.ready_replicas
    if not slots or ready <= 0 or not full > 0 or not math.isfinite(full):  # no slots: S unknown (or 0)
        return None
    # In the batches, counted up to their slots, plus waiting: an engine that runs more than S
    # (vLLM's --max-num-seqs above the safe concurrency) has nobody waiting for those.
    in_batches = min(decision.running, ready * slots)
    start_occupied = in_batches + decision.waiting
    capacity = decision.capacity_rps
    turnover = slots / capacity if capacity and capacity > 0 and math.isfinite(capacity) else 0.0
    if 0 < turnover < math.inf:
        drain = Drain(min(full, max(decision.completion_rps, in_batches / turnover)), observed_at + turnover, full)
    else:  # no capacity (or S / c beyond a float's range): r0 from the start
        drain = Drain(full, observed_at, full)
    key = (observed_at, start_occupied, drain)
    last = admitted.last
    if last is not None and last[0] == key and last[2] <= now:
        occupied, t = last[1], last[2]  # where the previous request under this decision left it
    else:
        since = admitted.after(observed_at)
        if since is None:
            return None
        occupied, t = start_occupied, observed_at
        for start, n in since:
            occupied = max(0.0, occupied - drain.between(t, start)) + n
            t = max(t, start)
    occupied = max(0.0, occupied - drain.between(t, now))
    allowed = drain.between(now, now + decision.budget_s * share)
    return SlotQueue(occupied - ready * slots, allowed, drain, now, occupied, key)
