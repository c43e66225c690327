"""One tick's evidence about one model, computed once: rates, capacity, batch slots, scale-up time,
replicas on their way, and what the policy learns from them (docs/policy.md, Inputs).

`estimate(config, window, state, now)` is pure; the Estimate it returns is what every formula of
the decision reads, by keyword, so each concept has one name and one value per tick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.policy.config import PolicyConfig
from scaler.policy.signals import RECENT_S, SignalWindow, Snapshot

# Learned values move by this fraction of each new sample (EWMA), so one odd sample cannot swing them.
LEARN_RATE = 0.3
# A configured capacity gives way to the measured one only below this share of it: closer, the
# difference is within what half a window of a varied mix moves by, and the operator's value stands.
CAPACITY_TRUST_SHARE = 0.9


@dataclass(frozen=True)
class Learned:
    """What the policy learns online and carries between ticks."""

    capacity_rps: float | None = None  # saturated completions per replica; never above a configured value
    scale_up_s: float | None = None
    concurrency: float | None = None
    ready_since: float | None = None  # when the ready count last changed (None: not since the policy started)


@dataclass(frozen=True)
class Estimate:
    time: float
    waiting: float  # W
    running: float  # R
    peak_in_flight: float  # the most of W + R read over the last budget: slots a turning batch refills
    ready: int  # N
    prompt_tokens_in_flight: float | None  # P: prompt tokens not yet at their first token
    arrival_rps: float  # lambda
    arrival_trend_rps2: float  # d lambda / dt, 0 unless it beats Poisson noise
    completion_rps: float  # mu
    tpot_s: float | None  # seconds per output token of a running request: R / output token rate, over RECENT_S
    decode_tpot_s: float | None  # the same over the last decode (R / mu seconds): what a request's mean TPOT sees
    history_s: float  # how much history the rates rest on
    capacity_rps: float | None  # c, per replica
    capacity_source: str  # configured | learned-below-configured | learned | prior | unknown
    slots: float | None  # S: requests one replica's batch holds within the SLO
    scale_up_s: float  # L
    pending: tuple[float, ...]  # when each replica not yet ready was asked for, oldest first
    landings: tuple[float, ...]  # seconds until each pending replica (not overdue) is ready, sorted
    drain_rps: float  # r0 = max(mu, N * c): how fast the queue starts
    stalled: bool  # requests wait, replicas are ready, nothing completed in half a window of work
    rates_settled: bool  # half a window of history: rates from fewer seconds are noise
    notes: tuple[str, ...]

    @property
    def step_rps(self) -> float:
        """What one more ready replica adds to the drain rate."""
        return self.capacity_rps or (self.completion_rps / self.ready if self.ready else 0.0)


def estimate(config: PolicyConfig, window: SignalWindow, learned: Learned, pending_since: tuple[float, ...],
             last_ready: int, now: float) -> tuple[Estimate, Learned]:
    snap = window.latest
    if snap is None:
        raise ValueError("decide: the window holds no snapshot yet")
    rates = window.rates()
    mu = rates.completion_rps if rates else 0.0
    lam = rates.arrival_rps if rates else 0.0
    trend = rates.arrival_trend_rps2 if rates else 0.0
    history_s = rates.span_s if rates else 0.0
    generation = rates.generation_tps if rates else None
    generation_running = rates.generation_running if rates else None
    ready = snap.ready_replicas
    notes: list[str] = []

    # Replicas becoming ready teach us the scale-up latency (the oldest request is served first).
    became_ready = max(0, ready - last_ready)
    learned_l = learned.scale_up_s
    for asked in pending_since[:became_ready]:
        sample = now - asked
        learned_l = _learn(learned_l, sample)
        notes.append(f"replica ready after {sample:.1f}s")
    if snap.starting_ages is not None:
        pending = tuple(sorted(now - age for age in snap.starting_ages))
    else:
        pending = tuple(pending_since[became_ready:])
    scale_up = config.scale_up_latency_s
    if scale_up is None:
        scale_up = learned_l if learned_l is not None else config.scale_up_prior_s

    # A saturated window (queue non-empty for a while) shows what a replica can do and how many
    # requests its batch holds.
    learned_c, learned_s = learned.capacity_rps, learned.concurrency
    half_window = config.rate_window_s / 2
    # Dated by the snapshot (the window's clock), so the rates can be cut where the fleet changed.
    ready_since = snap.time if ready != last_ready and rates is not None else learned.ready_since
    if ready > 0 and window.queue_sustained():
        learned_s = _learn(learned_s, snap.running / ready)
    slots = config.max_concurrency if config.max_concurrency is not None else learned_s
    measured = _saturated_capacity(window, ready, slots, ready_since, half_window)
    configured = config.per_replica_capacity_rps
    if measured is not None:
        # Configured, it is where the EWMA starts and its ceiling: a measurement may lower it, never raise it.
        learned_c = _learn(learned_c if learned_c is not None else configured, measured)
        if configured is not None:
            learned_c = min(learned_c, configured)
    capacity, source = _capacity(config, learned_c)
    if source == "learned-below-configured":
        notes.append(f"capacity {capacity:.2f}/s per replica measured while saturated, "
                     f"below the configured {configured:g}/s: draining at the measured one")

    # A replica past its expected scale-up latency is late for a reason we cannot see (no GPU,
    # image pull): count no capacity from it until it is actually ready.
    landings = tuple(sorted(scale_up - (now - asked) for asked in pending if now - asked < scale_up))
    if len(landings) < len(pending):
        notes.append(f"{len(pending) - len(landings)} replica(s) overdue past {scale_up:.0f}s")
    drain = max(mu, ready * capacity) if capacity else mu
    # Nothing completed while work was in flight for half a window: the silence before a fleet wakes
    # completes nothing either (rebalance-stall: RED the second a consumer group came back).
    busy_s = window.busy_s()
    stalled = snap.waiting > 0 and ready > 0 and mu == 0 and busy_s >= half_window
    # The first seconds of work after an idle spell are prompts in prefill, not a batch: their output
    # tokens read as a slow one (rebalance-stall: 333 ms per token a second after the wake, 29 ms a
    # second later). No TPOT until the work has lasted the shortest reading, or the whole window
    # where it holds less (a rate window under RECENT_S).
    reads_batch = busy_s >= min(RECENT_S, window.span_s)
    est = Estimate(
        time=now, waiting=snap.waiting, running=snap.running, ready=ready,
        peak_in_flight=window.peak_in_flight(snap.time - config.budget_s),
        prompt_tokens_in_flight=snap.prompt_tokens_in_flight, arrival_rps=lam, arrival_trend_rps2=trend,
        completion_rps=mu,
        tpot_s=_tpot(config, snap.running, snap.prompt_tokens_in_flight, generation, generation_running) if reads_batch else None,
        decode_tpot_s=_decode_tpot(config, window, snap, mu) if reads_batch else None,
        history_s=history_s, capacity_rps=capacity, capacity_source=source, slots=slots,
        scale_up_s=scale_up, pending=pending, landings=landings, drain_rps=drain, stalled=stalled,
        rates_settled=history_s >= half_window, notes=tuple(notes),
    )
    return est, Learned(capacity_rps=learned_c, scale_up_s=learned_l, concurrency=learned_s, ready_since=ready_since)


def _saturated_capacity(window: SignalWindow, ready: int, slots: float | None, ready_since: float | None,
                        half_window: float) -> float | None:
    """Requests per second one replica completed while requests waited in every snapshot, or None
    when that says nothing about capacity. Counted over the trailing stretch of such snapshots
    less its first batch turnover (R / mu, Little's law: a batch that filled as the queue formed
    finishes together, a turnover later, so the stretch's first seconds read low), and only from
    half a window after the ready count last changed (new replicas have completed nothing yet).
    None: less than half a window left to count (a short sample), no completion counted (missing
    data teaches nothing), or free batch slots now (a queue on one replica while another has room
    is not the fleet's limit; one slot a replica of slack for a request that finished between two
    scheduler steps)."""
    snap = window.latest
    if ready <= 0 or (slots is not None and snap.running < ready * (slots - 1)):
        return None
    since = -math.inf if ready_since is None else ready_since + half_window
    rate, span = window.saturated_completion_rps(since)
    if rate <= 0:
        return None
    rate, span = window.saturated_completion_rps(snap.time - span + snap.running / rate)
    if span < half_window or rate <= 0:
        return None
    return rate / ready


def _tpot(config: PolicyConfig, running: float, prompt_tokens: float | None, generation: float | None,
          generation_running: float | None) -> float | None:
    """Seconds per output token of the requests decoding: the running ones over the output token
    rate, less those still in prefill (prompt tokens in flight over a typical prompt), which make
    no token yet and would read a clump that just started as a slow batch. No more than the batch
    that made the tokens counted (the running requests averaged over the rate's seconds): a clump
    that began decoding within them made few of those tokens, and counted whole it reads as a slow
    batch (ramp-and-spikes, seed 0 at 590 s: 1.14 x the TPOT SLO, 0.58 x five seconds later with
    the same batch)."""
    if not generation:
        return None
    prefilling = 0.0
    if prompt_tokens and config.prefill_tps and config.expected_prefill_s > 0:
        prefilling = prompt_tokens / (config.expected_prefill_s * config.prefill_tps)
    decoding = max(0.0, running - prefilling)
    if generation_running is not None:
        decoding = min(decoding, generation_running)
    return decoding / generation if decoding > 0 else None


def _decode_tpot(config: PolicyConfig, window: SignalWindow, snap: Snapshot, mu: float) -> float | None:
    """The time per output token over the last decode, R / mu seconds (at least RECENT_S): the TPOT
    SLO bounds a request's mean over its decode, so a step slowed for a second or two by a clump's
    prefill costs a request that decodes for half a minute nothing."""
    decode_s = snap.running / mu if mu > 0 else RECENT_S
    tps, running = window.generation_over(max(RECENT_S, decode_s))
    return _tpot(config, snap.running, snap.prompt_tokens_in_flight, tps, running)


def _capacity(config: PolicyConfig, learned: float | None) -> tuple[float | None, str]:
    configured = config.per_replica_capacity_rps
    if configured is not None:
        # A calibration on lighter requests than the live mix overstates the drain, and RED then
        # admits more than completes: what the fleet measurably completes wins when clearly less.
        if learned is not None and learned <= CAPACITY_TRUST_SHARE * configured:
            return learned, "learned-below-configured"
        return configured, "configured"
    if learned is not None:
        return learned, "learned"
    if config.capacity_prior_rps is not None:
        return config.capacity_prior_rps, "prior"
    return None, "unknown"


def _learn(current: float | None, sample: float) -> float:
    return sample if current is None else current + LEARN_RATE * (sample - current)
