"""The SLO decision: predicted TTFT, demand, pressure, GREEN/YELLOW/RED, admission and Retry-After.

`decide(model, config, window, state, now)` is a pure function: it reads the window of snapshots
and the previous explicit state, computes the tick's Estimate once (scaler.policy.estimate), and
returns a Decision (frozen, with its reason) and the next state. The formulas and a worked
example are in docs/policy.md.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import asdict, dataclass, field
from enum import Enum

from scaler.autoscaling.hpa import Reading, replicas_for
from scaler.policy import burst_floor, excursions as excursion, forecast_skill, headroom, slow_tokens
from scaler.policy.config import PolicyConfig
from scaler.policy.estimate import Estimate, Learned, estimate
from scaler.policy.predict import Prediction, predict_ttft
from scaler.policy.queue import beyond_slots, peak_wait
from scaler.policy.signals import SignalWindow, Snapshot

# A linear trend measured over seconds must not extrapolate into a wall over a minute.
MAX_FORECAST_GROWTH = 3.0
RETRY_AFTER_BOUNDS_S = (1.0, 60.0)
# Ready replicas are held while anything in this many scale-up latencies needed them: a replica
# released now is back no sooner than one latency, so the need of the last latency is the forecast
# a release must survive (bursts beyond it are the burst headroom's, remembered for 20 minutes).
# Three latencies (the hold until 2026-12) cost 2-9% more GPU-seconds on nine of the bench's eleven
# tuned points for the same attainment (azure-code at 0.5: 99.2% with 3, 99.6% with 1, for 0.6%
# fewer; scripts/policy_ablation.py prints the previous hold as ours-hold-3-latencies).
RELEASE_HOLD_LATENCIES = 1.0
# No model needs more replicas than this; the bound keeps a poisoned input (a page with a billion
# waiting) from making one round plan, and book, a billion pending pods.
MAX_DEMAND_REPLICAS = 1000
# A demand this little over a whole number of replicas is that number: float noise on a need of
# exactly 3 must not ask for a fourth.
WHOLE_REPLICA_SLACK = 1e-9
# Replicas are added until the measured time per output token sits at this share of the TPOT SLO
# (a request's mean TPOT varies around the fleet's: busier replicas, prefill-heavy seconds), and
# until the batches hold at least this share of the safe concurrency S, where TPOT p95 reaches its
# SLO (batch_share). It also caps the share of the prefill throughput a burst's prompt tokens may
# take (prefill_share).
TPOT_TARGET_SHARE = 0.7
# A burst shorter than a scale-up may fill the ready replicas' batches to all of S: the share
# above is for the batch a replica keeps, and a burst passes. (Stops 37-39 filled them to
# TPOT_TARGET_SHARE; with `render`'s floor that held no workload more and cost up to 10% where
# bursts come: standard-burst, tenant-mix, outage-retry, batch-backfill; diurnal-chat 3%.
# scripts/policy_ablation.py prints that share as ours-burst-slots-at-target.)
BURST_SLOT_SHARE = 1.0
# The sustained need carries the rate at least this many standard deviations of its Poisson noise
# over the scale-up horizon above the forecast at the saturated throughput, whatever the target
# utilisation: near 1 a fleet sized on the mean rate runs saturated half the time, and a rise that
# needs a replica asks for it only once the fleet is already short (morning-ramp at 1.0, seed 0:
# the need at 2.8-3.2 with 3 ready for 80 s, and 97 TTFT misses before the fourth landed).
# Its share of the need falls as the rate grows, as square-root staffing's does. Two (stops 44-53)
# also paid for the HPA's 10% tolerance, which held a need of 3.2 against 3 until 3.3; since the
# demand is asked as whole replicas (stop 53) one is enough: morning-ramp at 1.0 holds (99.34%),
# and a level rate near the count stops buying a replica it does not use (timeout-retries and
# activity-retries at 1.0, -3%; scripts/policy_ablation.py prints two as ours-rate-noise-2-sd).
RATE_NOISE_Z = 1.0


class State(str, Enum):
    GREEN = "GREEN"
    YELLOW = "YELLOW"
    RED = "RED"
    UNKNOWN = "UNKNOWN"  # no or stale evidence: set by the server, never by decide(); sheds nothing

    @property
    def severity(self) -> int:
        """GREEN < YELLOW < RED; UNKNOWN is below GREEN, so any evidence escalates from it."""
        return ("UNKNOWN", "GREEN", "YELLOW", "RED").index(self.value) - 1


@dataclass(frozen=True)
class ModelState:
    """What the policy carries between ticks of one model."""

    state: State = State.GREEN
    since: float | None = None
    relax_since: float | None = None  # when the condition to relax was first seen, held since
    learned: Learned = Learned()
    pending_since: tuple[float, ...] = ()  # when each replica not yet ready was asked for, oldest first
    last_ready: int = 0
    bursts: headroom.BurstHistory = headroom.BurstHistory()
    prompt_bursts: headroom.BurstHistory = headroom.BurstHistory()  # the same history in prompt tokens
    # (times, replicas needed) over the release hold, needs decreasing: two arrays of numbers, 16 bytes
    # an entry (a steadily decaying need keeps every round's: 180 at L = 60 s); replaced, never changed.
    needs: tuple[array, array] = (array("d"), array("d"))
    excursions: excursion.Excursions = excursion.Excursions()
    slow: slow_tokens.SlowTokens = slow_tokens.SlowTokens()
    trend: forecast_skill.ForecastSkill = forecast_skill.ForecastSkill()
    floor: burst_floor.BurstFloor = burst_floor.BurstFloor()  # render's burst floor: when the traffic last reached it


@dataclass(frozen=True)
class Decision:
    model: str
    time: float
    state: State
    reason: str  # a stable code, for metrics labels
    detail: str  # one sentence with the numbers, for logs
    waiting: float
    running: float
    ready_replicas: int
    starting_replicas: int
    completion_rps: float
    arrival_rps: float
    capacity_rps: float | None
    capacity_source: str
    scale_up_latency_s: float
    budget_s: float
    wait_s: float  # slot wait of a request arriving now (part of ttft_s)
    peak_wait_s: float  # worst slot wait before capacity asked for now could arrive
    demand: float  # replica-equivalents; KEDA AverageValue target 1 => desired = ceil(demand), outside the HPA's tolerance
    pressure: float  # demand / ready replicas, for people and dashboards
    admission_rps: float | None  # RED only: what current capacity serves within the SLO
    retry_after_s: float
    ttft_s: float = 0.0  # predicted TTFT of a request arriving now (slot wait + prefill through the batch)
    need: float = 0.0  # replicas the SLO needs now: sustained rate or the largest recent burst, whichever is more
    deferred: float = 0.0  # replicas the demand holds back: recent excursions like this one ended before they could land
    burst_window_s: float = 0.0  # the window the burst that sets the headroom was seen over (0: none)
    burst_half_life_s: float = 0.0  # how fast that burst fades: short while seen once, long once it came back (0: none)
    prefill_burst: float = 0.0  # replicas whose prefill clears the largest recent burst of prompt tokens
    burst_floor: float = 0.0  # replicas render's burst floor holds now: burstReplicas, fading while the traffic stays below it
    arrival_forecast_rps: float = 0.0  # arrivals one scale-up latency ahead: the rate plus its rise (the sustained need's)
    trend_share: float = 1.0  # the share of the trend's rise the forecast extrapolates: what past forecasts carried
    prompt_weight: float = 1.0  # calibrated requests' replica time one live request takes, by its prompt (1: not weighed)
    slots: float | None = None  # S: requests one replica's batch holds within the SLO (None: not known)
    drain_rps: float = 0.0  # r0: how fast the queue drains (admission projects it between decisions)
    tpot_slow_share: float | None = None  # recently finished requests over the TPOT SLO (None: not counted)
    state_changed: bool = False
    previous_state: State | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def active(self) -> bool:
        """Work to do now: requests waiting, running or arriving. The demand a remembered burst keeps
        is not work: it decays over the history's half-life and never reaches zero, and a model with
        nothing to serve for a rate window may scale to zero (KEDA's IsActive)."""
        return self.waiting + self.running > 0 or self.arrival_rps > 0

    def log_fields(self) -> dict:
        out = asdict(self)
        out["state"] = self.state.value
        out["previous_state"] = self.previous_state.value if self.previous_state else None
        return {k: (round(v, 4) if isinstance(v, float) and math.isfinite(v) else v) for k, v in out.items()}


def decide(model: str, config: PolicyConfig, window: SignalWindow, state: ModelState, now: float) -> tuple[Decision, ModelState]:
    est, learned = estimate(config, window, state.learned, state.pending_since, state.last_ready, now)
    notes = list(est.notes)
    budget = config.budget_s

    prediction = _predict(config, est)
    peak = _peak_wait(est, prediction)
    if not est.rates_settled:
        notes.append(f"projection waits for {config.rate_window_s / 2:.0f}s of history")

    snap = window.latest
    bursts = headroom.observe(state.bursts, now, snap.arrivals_total, est.arrival_rps, est.scale_up_s)
    prompt_bursts = _observe_prompt_tokens(state.prompt_bursts, snap, now, est.scale_up_s)
    stay = est.running / est.completion_rps if est.completion_rps > 0 else config.rate_window_s
    slow = slow_tokens.observe(state.slow, now, snap.tpot_slow_total, snap.tpot_finished_total, est.ready,
                               overloaded=state.state is not State.GREEN, stay_s=stay)
    slow_need = slow_tokens.replicas(slow, est.arrival_rps)
    trended, horizon_rise = _forecast(config, est, bursts)
    trend = forecast_skill.observe(state.trend, now, rate=est.arrival_rps, forecast=trended, horizon_s=est.scale_up_s)
    forecast = est.arrival_rps + trend.share * (trended - est.arrival_rps)
    if horizon_rise:
        notes.append(f"arrivals rising {horizon_rise:.3f}/s per s over the last {est.scale_up_s:.0f}s, beyond the "
                     f"rate window's noise: {forecast:.2f}/s forecast one scale-up latency ahead")
    if forecast < trended:
        notes.append(f"the trend's recent forecasts carried {trend.share:.0%} of their rise one scale-up latency "
                     f"later: {forecast:.2f}/s forecast, not {trended:.2f}/s")
    weight = _prompt_weight(config, est, bursts, prompt_bursts)
    if weight != 1.0:
        notes.append(f"prompts of the last {_mix_span(config, est):.0f}s weigh {weight:.2f} x the calibrated mix's "
                     f"on a replica: capacity {est.capacity_rps / weight:.2f}/s per replica")
    noise = RATE_NOISE_Z * headroom.rate_noise(bursts, now, est.scale_up_s)
    need, seen, burst_window, prefill_burst = _need(config, est, forecast, noise, bursts, prompt_bursts, slow_need,
                                                    weight)
    at_target, at_capacity = _sustained(config, est, forecast, noise, weight) if est.capacity_rps else (0.0, 0.0)
    if at_capacity > at_target and at_capacity >= need:
        notes.append(f"the forecast's Poisson noise over {est.scale_up_s:.0f}s ({noise:.2f}/s at {RATE_NOISE_Z:g} sd) is "
                     f"more than the target utilisation's margin: {at_capacity:.2f} replicas at the saturated throughput")
    in_tokens = bool(prefill_burst) and prefill_burst >= need
    burst_memory = (prompt_bursts if in_tokens else bursts).half_life(burst_window) if burst_window else 0.0
    if in_tokens:
        notes.append(f"the largest recent burst of prompt tokens (over {burst_window:.0f}s) needs "
                     f"{prefill_burst:.2f} replicas' prefill{_memory(burst_memory)}")
    elif burst_window:
        notes.append(f"the largest recent burst of requests (over {burst_window:.0f}s) needs {need:.2f} replicas' "
                     f"batches{_memory(burst_memory)}")
    if slow_need and slow_need >= need:
        notes.append(f"{slow.share:.1%} of recently finished requests missed the TPOT SLO (target "
                     f"{slow_tokens.TARGET_SHARE:.1%}): {slow_need:.2f} replicas")
    demand, needs = _release(est, need, seen, state.needs)
    excursions = excursion.observe(state.excursions, now, need=need, ready=est.ready)
    held = est.ready + len(est.pending)  # what KEDA already has: more would start new replicas
    deferred = 0.0
    if demand > held:
        wait = excursion.lands_too_late(excursions, now, est.scale_up_s)
        if wait is not None:
            deferred, demand = demand - held, float(held)
            notes.append(wait)
    floor, floor_state = _burst_floor(config, est, bursts, state.floor, now)
    floor_replicas = burst_floor.replicas(floor, returns=floor_state.returns)
    if floor_replicas > demand:
        demand = float(floor_replicas)
        quiet = now - floor_state.reached if floor_state.reached is not None else 0.0
        notes.append(f"render's burst floor holds {demand:.0f} of burstReplicas {config.burst_replicas:g}"
                     + (f" (the traffic last reached it {quiet:.0f}s ago: it fades with a "
                        f"{floor_state.half_life() / 60:.0f}-minute half-life)" if quiet > 0 else ""))
    if not demand <= MAX_DEMAND_REPLICAS:  # also NaN: hostile inputs must not plan millions of pods
        notes.append(f"demand {demand:.3g} capped at {MAX_DEMAND_REPLICAS} replicas")
        demand = float(MAX_DEMAND_REPLICAS)
    # The HPA keeps its count while the metric is within its tolerance (10%) of it: 3.2 against 3
    # replicas started nothing until 3.3, and each step of a slow climb came a sync or two late
    # (capped-scaleout at 0.7: 82.5% -> 90.5%). Asked as the whole replicas it needs, a demand past
    # what KEDA has leaves the tolerance up to 10 replicas (11 against 10 is just over it). What
    # KEDA has is known from the pods: replicas decide only expects (no pod listing) may not be
    # started yet, and a demand read against them would fall back inside the tolerance.
    known = est.ready + (len(est.pending) if snap.starting_ages is not None else 0)
    whole = math.ceil(demand - WHOLE_REPLICA_SLACK)
    if known > 0 and whole > known and whole > demand:
        notes.append(f"demand {demand:.2f} asked as {whole} whole replicas: the HPA keeps its {known} while the "
                     f"demand is within its 10% tolerance of them")
        demand = float(whole)
    pressure = demand / max(est.ready, 1)

    target, reason, detail = _target_state(config, est, prediction, peak)
    pressure_ratio = max(_delay(config, prediction) / budget, _tpot_ratio(config, est))
    if state.state is State.RED:
        # Shedding keeps the queue short, so the delay alone would say "recovered" while the
        # offered load still outpaces what drains before new capacity lands: leave RED only
        # once the projected peak wait (offered arrivals, landings counted) fits too.
        pressure_ratio = max(pressure_ratio, peak / budget)
    new_state, reason, detail, relax_since = _hysteresis(config, state, target, reason, detail, pressure_ratio, now)
    changed = new_state != state.state
    admission, retry = _admission_and_retry(config, est, new_state, prediction, peak)

    # Replicas asked for but not ready, where no pod listing says: what KEDA's HPA sets for the
    # demand. Within its tolerance of the count it has (10%) it keeps that count, so a demand of
    # 3.2 against 3 starts nothing (counted as starting, it read as capacity on its way).
    pending = list(est.pending)
    if snap.starting_ages is None:
        want = max(0, replicas_for(Reading("AverageValue", 1.0, value=demand), held) - est.ready)
        pending = pending[:want] + [now] * max(0, want - len(pending))

    decision = Decision(
        model=model, time=now, state=new_state, reason=reason, detail=detail,
        waiting=est.waiting, running=est.running, ready_replicas=est.ready, starting_replicas=len(pending),
        completion_rps=est.completion_rps, arrival_rps=est.arrival_rps, capacity_rps=est.capacity_rps,
        capacity_source=est.capacity_source, scale_up_latency_s=est.scale_up_s, budget_s=budget,
        ttft_s=prediction.ttft_s, wait_s=prediction.queue_s, peak_wait_s=peak, need=need, deferred=deferred,
        burst_window_s=burst_window, burst_half_life_s=burst_memory, prefill_burst=prefill_burst, burst_floor=floor,
        arrival_forecast_rps=forecast,
        trend_share=trend.share, demand=demand,
        prompt_weight=weight,
        pressure=pressure, admission_rps=admission,
        slots=est.slots, drain_rps=est.drain_rps, tpot_slow_share=slow.share if slow.totals is not None else None,
        retry_after_s=retry, state_changed=changed, previous_state=state.state if changed else None,
        notes=tuple(notes),
    )
    next_state = ModelState(
        state=new_state,
        since=now if changed or state.since is None else state.since,
        relax_since=relax_since,
        learned=learned,
        pending_since=tuple(pending),
        last_ready=est.ready,
        bursts=bursts,
        prompt_bursts=prompt_bursts,
        needs=needs,
        excursions=excursions,
        slow=slow,
        trend=trend,
        floor=floor_state,
    )
    return decision, next_state


def _burst_floor(config: PolicyConfig, est: Estimate, bursts: headroom.BurstHistory, floor: burst_floor.BurstFloor,
                 now: float) -> tuple[float, burst_floor.BurstFloor]:
    """render's burst floor as held now (scaler.policy.burst_floor): the traffic's highest rate over
    the burst history's windows of a burst, as counted and less its noise, against the rate one
    replica carries at the target utilisation, at the capacity render sized the floor with (the
    configured one; the learned one where it is `auto`)."""
    counts = [(count, w) for w in headroom.windows(est.scale_up_s) if w >= burst_floor.RATE_WINDOW_MIN_S
              for count in [headroom.count_over(bursts, now, w)] if count is not None]
    capacity = config.per_replica_capacity_rps or est.capacity_rps or 0.0
    reached = [burst_floor.reached_rate(count, w) for count, w in counts]
    return burst_floor.observe(floor, burst_replicas=config.burst_replicas, now=now,
                               rate_rps=max((count / w for count, w in counts), default=None),
                               reached_rps=max(reached, default=None),
                               carry_rps=capacity * config.target_utilization, recurrence=config.burst_recurrence,
                               gap_s=est.scale_up_s)


def _memory(half_life_s: float) -> str:
    if half_life_s <= 0:
        return ""
    seen = "seen once" if half_life_s <= headroom.ONCE_HALF_LIFE_S else "it has come back"
    return f" ({seen}: it fades with a {half_life_s / 60:.0f}-minute half-life)"


def _predict(config: PolicyConfig, est: Estimate) -> Prediction:
    if est.stalled:
        return Prediction(math.inf, math.inf, config.expected_prefill_s)
    return predict_ttft(waiting=est.waiting, running=est.running, ready=est.ready, slots=est.slots,
                        drain_rps=est.drain_rps, step_rps=est.step_rps, landings=list(est.landings),
                        prompt_tokens_in_flight=est.prompt_tokens_in_flight, prefill_tps=config.prefill_tps,
                        expected_prefill_s=config.expected_prefill_s)


def _delay(config: PolicyConfig, prediction: Prediction) -> float:
    """What a request arriving now loses beyond an idle replica's prefill: compared with B."""
    return max(0.0, prediction.ttft_s - config.expected_prefill_s)


def _peak_wait(est: Estimate, prediction: Prediction) -> float:
    """The worst slot wait a request arriving before capacity asked for now lands would see."""
    if est.stalled or not est.rates_settled:
        return prediction.queue_s
    # Requests beyond what the ready batches hold, as in the predictor's slot wait; free slots
    # (negative) fill first.
    if est.slots is not None:
        excess = beyond_slots(est.waiting, est.running, est.ready, est.slots)
    else:
        excess = est.waiting if est.waiting > 0 else -math.inf
    lam = est.arrival_rps
    return peak_wait(excess, lam, est.arrival_trend_rps2, est.drain_rps, est.step_rps, list(est.landings),
                     est.scale_up_s, absorb=est.slots or 0.0, max_arrival_rps=MAX_FORECAST_GROWTH * lam)


def _forecast(config: PolicyConfig, est: Estimate, bursts: headroom.BurstHistory) -> tuple[float, float]:
    """Arrivals per second one scale-up latency ahead (the rate plus its rising trend over the
    horizon, at most MAX_FORECAST_GROWTH x the rate), and the trend over the scale-up horizon where
    it is what rises (0 otherwise). The rate window's halves are seconds long: a rise from a low
    rate stays inside their Poisson noise until it is too late to answer, and over the horizon's
    halves it stands out sooner (the burst history's marks, headroom.trend)."""
    lam, window_rise = est.arrival_rps, _window_rise(config, est, bursts)
    horizon_rise = headroom.trend(bursts, est.time, est.scale_up_s)
    trend = max(window_rise, horizon_rise)
    forecast = min(lam + trend * est.scale_up_s, MAX_FORECAST_GROWTH * lam) if lam > 0 else 0.0
    return forecast, (horizon_rise if horizon_rise > window_rise and forecast > lam else 0.0)


def _window_rise(config: PolicyConfig, est: Estimate, bursts: headroom.BurstHistory) -> float:
    """The rate window's rise, where it stands out of Poisson's noise (the window's own test) and
    of the noise of the counts as they come (the horizon's test over the window's span: an
    overdispersed stream rises and falls by itself). On Poisson's test alone, gamma-api's clumps
    (CV > 1) read as rises of 0.3 req/s per s every minute or two: forecasts of 30-40 req/s at a
    rate of 13-16, and replicas started and cancelled (seed 0 at 0.9, 940-1,170 s)."""
    if est.arrival_trend_rps2 <= 0:
        return 0.0
    return headroom.trend(bursts, est.time, config.rate_window_s)


def _need(config: PolicyConfig, est: Estimate, forecast: float, noise: float, bursts: headroom.BurstHistory,
          prompt_bursts: headroom.BurstHistory, slow_need: float, weight: float) -> tuple[float, float, float, float]:
    """Replica-equivalents the SLO needs once capacity asked for now is ready: the sustained rate
    at the target utilisation of a replica's capacity for the live prompts (`weight`, from
    `_prompt_weight`; the `forecast` one scale-up latency ahead, with the queue spread over the
    horizon; and at the saturated capacity, the forecast plus `noise`, RATE_NOISE_Z standard
    deviations of its Poisson noise over the horizon: `_sustained`), the replicas that keep the
    time per output token within its SLO (measured, or read from how full the batches are, or from
    the share of requests that missed it: `slow_need`), or the largest recent burst the ready
    replicas must absorb (in requests, or in prompt tokens their prefill must clear), whichever is
    more. Returns (need, seen, burst window, prefill burst): `seen` is the same need without the
    trend's forecast, what the traffic already seen needs; the last is the prompt-token burst's
    replicas."""
    lam, capacity = est.arrival_rps, est.capacity_rps
    if capacity is None:
        # Without a capacity we cannot convert rates into replicas: grow with the queue only.
        ready, waiting, running = est.ready, est.waiting, est.running
        if ready == 0:
            need = 1.0 if waiting + running > 0 or lam > 0 else 0.0
        else:
            need = ready * (running + waiting) / running if waiting > 0 and running > 0 else float(ready)
        return need, need, 0.0, 0.0
    sustained = max(_sustained(config, est, forecast, noise, weight))
    burst, window = headroom.burst_replicas(bursts, running=est.running, capacity_rps=capacity, slots=est.slots,
                                            slot_share=BURST_SLOT_SHARE, target_utilization=config.target_utilization)
    prefill, prefill_window = headroom.prefill_replicas(prompt_bursts, in_flight=est.prompt_tokens_in_flight or 0.0,
                                                        prefill_tps=config.prefill_tps, budget_s=config.budget_s,
                                                        share=prefill_share(config))
    if prefill > burst:
        burst, window = prefill, prefill_window
    decode = max(_tpot_replicas(config, est), _batch_replicas(config, est), slow_need)
    seen = max(*_sustained(config, est, lam, noise, weight), burst, decode)
    if burst > max(sustained, decode):
        return burst, seen, window, prefill
    return max(sustained, decode), seen, 0.0, prefill


def prefill_share(config: PolicyConfig) -> float:
    """The share of a replica's prefill throughput a burst's prompt tokens may take: the target
    utilisation, and at most TPOT_TARGET_SHARE. Not all of it, as a burst's requests may take of the
    slots: while a replica's steps are all prefill chunks, the requests decoding beside them get one
    token per full step (0.29 s at vLLM's 8,192-token budget), so the backlog a burst leaves must be
    short, and a fleet planned at a lower share of its capacity plans its prompt bursts there too."""
    return min(TPOT_TARGET_SHARE, config.target_utilization)


def _sustained(config: PolicyConfig, est: Estimate, rate: float, noise: float, weight: float) -> tuple[float, float]:
    """Replicas that carry `rate` arrivals/s and the queue spread over the horizon: at the target
    utilisation of a replica's capacity for the live prompts, and at that capacity saturated with
    `noise` more arrivals/s (the rate's noise over the horizon must fit too). The need is the
    larger; the sustained term needs a capacity."""
    backlog_rps = est.waiting / max(config.backlog_drain_ratio * config.budget_s, est.scale_up_s)
    saturated = est.capacity_rps / weight
    return (rate + backlog_rps) / (saturated * config.target_utilization), (rate + noise + backlog_rps) / saturated


def _mix_span(config: PolicyConfig, est: Estimate) -> float:
    """The seconds the live mix is read over: the rate window, or less where the burst histories'
    marks reach back less far (a scale-up latency shorter than the window)."""
    return min(config.rate_window_s, headroom.windows(est.scale_up_s)[-1])


def _prompt_weight(config: PolicyConfig, est: Estimate, bursts: headroom.BurstHistory,
                   prompt_bursts: headroom.BurstHistory) -> float:
    """How many calibrated requests' time one request of the live mix takes on a replica, as far as
    its prompt differs: a replica spends 1/c seconds of its saturated time per calibrated request,
    p_cal / V of them in prefill, so a request of p prompt tokens takes 1/c + (p - p_cal) / V and
    the capacity for the live mix is c / (1 + c (p - p_cal) / V). p is the mean over the last rate
    window: the prompt tokens that arrived (prefilled, in flight, refused) over the requests that
    did. Only a configured capacity is weighed (a measured one is the live mix's already), and only
    by the prompts: output length is the batch and TPOT terms', since a longer decode holds a slot
    more than it takes a step (weighing outputs the same way cost 10-20% on tenant-shift and
    thinking-upgrade for no attainment). Without the calibrated prompt, the prefill throughput or
    either history over the span: 1.
    long-context-tenant at 0.9, seed 0 (stop 42): a tenant's documents come in runs of a minute
    or two at 2-3x the prompt tokens per second, at the same request rate. Unweighed, the need
    read 1.6-1.8 between two runs (345-400 s) and the third replica never came; 548 TTFT and 182
    TPOT misses came at 390-480 s. Weighed, it read 1.9-2.4 and three replicas served the next
    run without a miss."""
    c, p_cal, v = est.capacity_rps, config.capacity_prompt_tokens, config.prefill_tps
    if not (c and p_cal and v) or est.capacity_source != "configured" or c * p_cal >= v or not est.rates_settled:
        return 1.0
    span = _mix_span(config, est)
    tokens = headroom.count_over(prompt_bursts, est.time, span)
    requests = headroom.count_over(bursts, est.time, span)
    if tokens is None or requests is None or requests <= 0:
        return 1.0
    weight = 1.0 + c * (tokens / requests - p_cal) / v
    return weight if math.isfinite(weight) else 1.0  # a poisoned counter weighs nothing


def _observe_prompt_tokens(history: headroom.BurstHistory, snap: Snapshot, now: float,
                           scale_up_s: float) -> headroom.BurstHistory:
    """The burst history in prompt tokens: those prefilled (vllm:prompt_tokens_total) plus those in
    flight when the source counts them (without them, a burst beyond what the fleet prefills waits,
    and the backlog term sees it). Arrivals never go back: the two are read a step apart, and a
    request counted in flight and prefilled at once reads as a drop a moment later."""
    if snap.prompt_tokens_total is None:
        return history
    arrived = snap.prompt_tokens_total + (snap.prompt_tokens_in_flight or 0.0) + _refused_prompt_tokens(snap)
    arrived = max(arrived, history.arrived)
    return headroom.observe(history, now, arrived, 0.0, scale_up_s)


def _refused_prompt_tokens(snap: Snapshot) -> float:
    """Prompt tokens of the attempts the RLS refused, at the mean prompt of the requests prefilled
    (those finished and running). Without them a burst that RED refused is remembered by its
    requests but not by its prompts, and the prefill term sizes the fleet after it for a smaller
    burst than came (azure-code at 0.5, seed 0: 4.1-4.8 replicas' prefill with shedding against
    5.4-6.7 without, and the fleet one replica short in the evaluation window). Without the
    completion counter there is no mean to take: the running requests alone would make every
    prompt since the start look like theirs."""
    if not snap.refused_total or snap.completed_total is None or snap.completed_total + snap.running <= 0:
        return 0.0
    return snap.refused_total * snap.prompt_tokens_total / (snap.completed_total + snap.running)


def _tpot_replicas(config: PolicyConfig, est: Estimate) -> float:
    """Replicas that bring the time per output token to TPOT_TARGET_SHARE of its SLO: a replica's
    step time grows with its batch and its share of prefill, both in proportion to its load, so
    the load is spread over more replicas in proportion to how far TPOT is above the target."""
    if config.tpot_slo_s is None or est.tpot_s is None or est.ready <= 0 or not est.rates_settled:
        return 0.0
    return est.ready * est.tpot_s / (TPOT_TARGET_SHARE * config.tpot_slo_s)


def _batch_replicas(config: PolicyConfig, est: Estimate) -> float:
    """Replicas whose batches hold the batch the arrivals sustain (`_sustained_batch`) at
    `batch_share` of the calibrated safe concurrency S (`maxConcurrency`, judged on TPOT as
    well as TTFT). The measured TPOT lags the batch that slows it, by the decode of the requests
    that made the tokens, so a batch growing towards S is read from the count while its TPOT still
    looks fine (diurnal-chat's morning rise at 0.9: 58 requests a replica with S = 60 and the
    rate-based need at 4 of the 4 ready, the TPOT misses a minute on). A batch size learned while
    requests wait is the engine's limit, not S, and counts nothing here (from it every sustained
    queue would ask for 1 / 0.7 of the ready replicas); what waits is the backlog term's (counted
    here too, a queue would ask a replica per 0.7 S)."""
    if not config.max_concurrency:
        return 0.0
    return _sustained_batch(est) / (batch_share(config) * config.max_concurrency)


def batch_share(config: PolicyConfig) -> float:
    """The share of S the batches are planned at: the target utilisation, as the rate is planned
    at that share of the capacity (a replica at u x c holds about u x S by Little's law), and never
    below TPOT_TARGET_SHARE, where the measured TPOT's target already keeps them. At 0.7 of S at
    every target (until stop 47), the batch asked for a replica the rate did not: push-wave at 1.0,
    seed 0, 460-620 s, 2 replicas at 11-15 requests/s (2 x c = 14.5), the need at 1.8-3.0 and a
    third replica started and cancelled twice (105 of the evaluation window's 2,306 replica-seconds);
    planned at the target, the need stays at 1.8-2.2 and the seed costs 2,201, a static 2's."""
    return max(TPOT_TARGET_SHARE, config.target_utilization)


def _sustained_batch(est: Estimate) -> float:
    """The running requests the batches settle at: while arrivals outpace completions the batch
    is still growing, and by Little's law it settles at `lambda x R / mu` (the arrival rate times
    the measured stay in the batch); never less than the running ones, which must be held
    whatever comes next."""
    if est.rates_settled and est.completion_rps > 0:
        return est.running * max(1.0, est.arrival_rps / est.completion_rps)
    return est.running


def _release(est: Estimate, need: float, seen: float, recent: tuple[array, array]) -> tuple[float, tuple[array, array]]:
    """Demand: what is needed now, but ready replicas are held while the traffic seen in the last
    RELEASE_HOLD_LATENCIES scale-up latencies needed them (a replica released now could not come
    back sooner: no flapping). The hold keeps what was seen, not what the trend forecast: on an
    overdispersed stream the trend clears its noise test every few tens of seconds, and the
    largest forecast of the last three minutes held replicas that no traffic used (azure-conv at
    0.8: 8 ready for 25 minutes while the traffic seen needed 4-7). Replicas still starting are
    not held: once nothing needs them they are cancelled."""
    hold_s = RELEASE_HOLD_LATENCIES * est.scale_up_s
    # Only needs that can still be the largest are kept (each larger than every later one), so
    # the first is the maximum over the hold and a round costs a few entries, not 180 of them.
    times, needs = recent
    start, end = 0, len(times)
    while start < end and est.time - times[start] >= hold_s:  # oldest first: expire from the front
        start += 1
    while end > start and needs[end - 1] <= seen:
        end -= 1
    times, needs = times[start:end], needs[start:end]  # copies: the previous state stays as it was
    times.append(est.time)
    needs.append(seen)
    return max(need, min(needs[0], float(est.ready))), (times, needs)


def _target_state(config: PolicyConfig, est: Estimate, prediction: Prediction, peak: float):
    budget = config.budget_s
    if est.stalled:
        return State.RED, "queue-stalled", f"{est.waiting:.0f} waiting and no completion in the window"
    delay = _delay(config, prediction)
    if delay >= config.red_enter_ratio * budget:
        return State.RED, "wait-exceeds-budget", (
            f"predicted TTFT {_fmt(prediction.ttft_s)} (slot wait {_fmt(prediction.queue_s)}, prefill "
            f"{prediction.prefill_s:.2f}s) leaves {_fmt(delay)} >= {config.red_enter_ratio:g} x budget {budget:.2f}s "
            f"for requests admitted now ({est.ready} ready, arrivals {est.arrival_rps:.2f}/s)")
    slow = _tpot_ratio(config, est)
    if slow >= config.red_enter_ratio:
        return State.RED, "tpot-exceeds-slo", (
            f"the batch makes {est.decode_tpot_s * 1000:.0f} ms per output token >= {config.red_enter_ratio:g} x TPOT SLO "
            f"{config.tpot_slo_s * 1000:.0f} ms: requests admitted now would miss it ({est.ready} ready, "
            f"{est.running:.0f} running)")
    growing = est.arrival_rps > est.drain_rps
    if max(delay / budget, slow) >= config.yellow_enter_ratio and peak >= config.yellow_enter_ratio * budget and growing:
        return State.YELLOW, "queue-growing", (
            f"predicted TTFT {_fmt(prediction.ttft_s)}, projected slot wait {_fmt(peak)} >= "
            f"{config.yellow_enter_ratio:g} x budget and arrivals {est.arrival_rps:.2f}/s outpace drain "
            f"{est.drain_rps:.2f}/s")
    return State.GREEN, "within-budget", (
        f"predicted TTFT {_fmt(prediction.ttft_s)} within the SLO (projected slot wait {_fmt(peak)})")


def _tpot_ratio(config: PolicyConfig, est: Estimate) -> float:
    """The batch's time per output token over the TPOT SLO, as it bears on requests admitted now
    (0 when either is unknown): measured over the last decode (R / mu seconds), since the SLO
    bounds a request's mean over its decode. Over 5 s, the seconds a clump's prefill chunks share
    the steps read as a slow batch, and RED refused requests that no shedding served within the
    SLO (ramp-and-spikes, diurnal-chat: 1.03-1.16 x the SLO over 5 s, 0.42-0.73 x over the
    decode). With fewer requests in flight than ready replicas, a replica is idle and
    a request admitted now decodes in a batch of one or two: a reading over the SLO there is the
    output-token rate lagging a batch that has just begun, not a slow batch."""
    if config.tpot_slo_s is None or est.decode_tpot_s is None or est.running + est.waiting < est.ready:
        return 0.0
    return est.decode_tpot_s / config.tpot_slo_s


def _batch_excess(est: Estimate) -> float:
    """Requests running beyond what the ready replicas' batches hold within the SLO (N x S); 0
    without S."""
    return max(0.0, est.running - est.ready * est.slots) if est.slots is not None else 0.0


def _admission_and_retry(config: PolicyConfig, est: Estimate, state: State, prediction: Prediction, peak: float):
    """The RED admission rate and the Retry-After for refused requests (docs/policy.md)."""
    budget, drain = config.budget_s, est.drain_rps
    slots, ready = est.slots, est.ready
    # What current capacity can take within budget: the drain rate, plus the free batch slots
    # (they start requests at once) filled within one budget, or minus the queue beyond what
    # drains within budget, removed within one budget. Free slots are not saved for later: a
    # refused request is a miss now, so holding a slot back only trades it for a later one. A
    # slot is free only if no reading of the last budget had it taken: a batch that finished
    # together and refills reads empty between two polls, and its slots come back as completions,
    # which the drain rate already counts.
    free_slots = max(0.0, ready * slots - est.peak_in_flight) if slots is not None else 0.0
    queued_excess = max(0.0, est.waiting - drain * budget * config.red_exit_ratio)
    until_capacity = est.landings[0] if est.landings else est.scale_up_s
    admission = None
    if state is State.RED:
        if free_slots > 0:
            admission = drain + free_slots / budget
        else:
            admission = max(0.0, drain - queued_excess / budget)
        admission = min(admission, _prefill_admission(config, est, prediction))
        if _tpot_ratio(config, est) >= config.red_exit_ratio:
            # The batch is too slow already: admit only what completes, less what it holds beyond
            # N x S removed within one budget, so it shrinks back to its safe size.
            admission = min(admission, max(0.0, est.completion_rps - _batch_excess(est) / budget))
    # Come back when the excess has drained (queued now, projected, or prompt tokens beyond what
    # the prefill budget clears in time), or when capacity arrives, if that is sooner.
    drain_excess = queued_excess / drain if drain > 0 else math.inf
    over = max(drain_excess, peak - budget, _delay(config, prediction) - budget)
    retry = min(over, until_capacity)
    return admission, min(max(retry, RETRY_AFTER_BOUNDS_S[0]), RETRY_AFTER_BOUNDS_S[1])


def _prefill_admission(config: PolicyConfig, est: Estimate, prediction: Prediction) -> float:
    """Requests/s the ready replicas' prefill keeps within the SLO: their prefill throughput in
    typical requests, less the prompt tokens beyond what clears within the budget, removed within
    one budget. Unbounded when the prefill throughput is not known."""
    tps = config.prefill_tps
    if not tps or config.expected_prefill_s <= 0 or est.ready <= 0:
        return math.inf
    typical = config.expected_prefill_s * tps
    fleet_tps = est.ready * tps
    ok = fleet_tps * config.budget_s * config.red_exit_ratio
    ahead = prediction.prefill_s * fleet_tps - est.ready * typical
    return max(0.0, (fleet_tps - max(0.0, ahead - ok) / config.budget_s) / typical)


def _relax_target(config, current: State, ratio: float) -> State | None:
    if ratio < config.yellow_exit_ratio:
        return State.GREEN
    if current is State.RED and ratio < config.red_exit_ratio:
        return State.YELLOW
    return None


def _hysteresis(config, state: ModelState, target: State, reason, detail, ratio, now):
    """Escalate at once; relax only after the exit condition held for `state_hold_s`. `ratio` is
    the larger of the predicted delay over the budget and the batch's TPOT over its SLO."""
    current = state.state
    if target.severity >= current.severity:
        return target, reason, detail, None
    relax = _relax_target(config, current, ratio)
    if relax is None:
        return current, f"holding-{current.value.lower()}", (
            f"predicted delay/TPOT at {ratio:.2f} of their limits, not yet under the exit threshold of {current.value}"), None
    since = state.relax_since if state.relax_since is not None else now
    if now - since >= config.state_hold_s:
        return relax, "recovered", f"predicted delay/TPOT at {ratio:.2f} of their limits, under the exit threshold for {now - since:.0f}s", None
    return current, f"holding-{current.value.lower()}", (
        f"exit condition held {now - since:.0f}s of {config.state_hold_s:.0f}s"), since


def _fmt(seconds: float) -> str:
    return "unbounded" if math.isinf(seconds) else f"{seconds:.2f}s"
