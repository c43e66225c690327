"""What each part of the policy core contributes: ours against ours with one part taken out.

Runs the bench's protocol (scaler.sim.sweep.run_point: seeds vary cold starts, lengths and clock
phases; scored on the evaluation window, the last two thirds plus the tail) for ours at its
default configuration (one configuration for every workload, never tuned) and for each ablation:

- no-shedding: the gateway admits everything;
- count-predictor: TTFT predicted from request counts only (no prefillTokensPerSecond);
- projection-sheds: RED also when the queue is only projected over the scale-up horizon (the
  previous rule);
- no-burst-headroom: demand without the largest recent bursts in requests (those in prompt tokens
  kept: no-prefill-bursts);
- no-tpot: demand without the time-per-output-token term;
- slow-release: the previous HPA behaviour (scale down 1 pod a minute after a 300 s window);
- spread-admission: RED spreads the free batch slots until capacity lands (the previous rule)
  instead of filling them within one budget;
- yellow-sheds: the shipped default yellowShedClasses (batch, background refused in YELLOW);
- ttft-only-slots: maxConcurrency calibrated on TTFT alone (the previous calibration);
- quarter-burst-slots: a burst may fill a quarter of the safe concurrency (an earlier share);
- burst-slots-at-target: a burst may fill the batches to the share they are kept at
  (TPOT_TARGET_SHARE of the safe concurrency; stops 37-39), not all of it;
- split-slots: the TTFT-judged batch for the predictor's slot wait, the TPOT-judged one for
  bursts and RED admission (two concurrencies instead of one maxConcurrency);
- tpot-on-offered-load: the TPOT need scaled by arrivals over completions (tried, not in).
- no-tpot-red: TPOT never makes RED nor limits RED admission (its demand term kept);
- hold-forecast: the release hold keeps the need with the trend's forecast (the previous release),
  not what the traffic seen needed;
- tpot-red-5s: RED reads the TPOT over the last 5 s, as the need does (the previous rule), not
  over the last decode;
- tpot-whole-batch: the TPOT counts the running requests now, not the batch that made the tokens
  (the previous estimate), for RED and the need alike;
- peak-counts-running: the projected peak wait starts from every request beyond the slots, the
  running ones too (the previous projection; the predictor's slot wait kept);
- every-scale-up: every scale-up starts at once, even when recent excursions like the current one
  ended before a replica could land (the previous demand);
- wait-on-one: a scale-up waits on a single similar excursion (EVIDENCE 1 instead of 2);
- counted-evidence: two similar excursions are evidence by count, not by their decayed weights
  summed (tried in stop 43, not in: docs/policy.md);
- hold-3-latencies: ready replicas are held while anything in three scale-up latencies needed
  them (the previous release hold) instead of one;
- no-batch-need: demand without the batch term (replicas whose batches hold the running
  requests at the target utilisation of the calibrated safe concurrency, at least
  TPOT_TARGET_SHARE of it; the demand before the batch term);
- batch-now: the batch term counts the running requests only, not the batch the arrivals
  sustain (`R x lambda / mu` while arrivals outpace completions; the previous term);
- free-slots-now: RED reads the free batch slots from the latest snapshot alone (the previous
  admission), not as those no reading of the last budget had taken;
- floor-one: without `render`'s floor (minReplicas 1, the fleet starting at the bench's opening
  size), to show what the floor costs or saves;
- floor-always-returns: `render`'s floor starting as a burst that has come back whatever the
  profile's burstRecurrence (a level profile's floor held with the 20-minute half-life: the floor
  to stop 49);
- floor-reached-by-noise: `render`'s floor whole again whenever a burst's window counts the
  rate of its last replica, noise included (the floor to stop 54), not only when the count stands
  above it by one standard deviation of its Poisson noise;
- floor-kept-until-whole: `render`'s floor keeping each replica until it has faded whole (the
  floor to stop 55), also where the traffic has not come back to it, instead of rounding a floor
  whose returns are under a quarter (`burst_floor.ROUNDED_BELOW_RETURNS`);
- short-burst-memory: bursts forgotten with a 5-minute half-life instead of 20 minutes, those that
  came back too (a probe of the history's memory, not a candidate: the half-life is not tuned on
  the scoreboard);
- rate-at-capacity: the sustained rate at the saturated throughput and the batch term at
  targetUtilization x S (the target concurrency `render` deploys) instead of 0.7 x S: the first
  candidate for a headroom from history (tried, not in: docs/policy.md);
- no-prefill-bursts: without the prompt-token burst history (bursts counted in requests only, the
  previous headroom);
- no-slow-tokens: without the slow-token term (the share of finished requests over the TPOT SLO
  asks for no replicas);
- unweighed-capacity: the configured capacity taken as the live mix's whatever its prompts (no
  weighing by capacityPromptTokens; the sustained need to stop 41);
- no-rate-noise: the sustained need at the saturated throughput without the forecast's Poisson
  noise over the scale-up horizon (RATE_NOISE_Z 0; the need to stop 43);
- rate-noise-2-sd: room for two standard deviations of that noise, not one (the need of stops
  44-53, when the HPA's tolerance still held a need just over the count back);
- rate-noise-widened: that noise widened by the counts' index of dispersion, as the trend's test
  is (tried in stop 44, not in: docs/policy.md);
- no-one-second-window: the burst histories counted over 5 s windows at the shortest, not 1 s
  (the headroom to stop 44);
- prefill-at-tpot-share: a burst's prompt tokens planned at TPOT_TARGET_SHARE of the prefill
  throughput whatever the target utilisation (the prefill term to the first half of stop 45);
- trend-unchecked: the trend's rise extrapolated in full over the scale-up horizon, whatever its
  past forecasts carried (the forecast to stop 45);
- batch-at-tpot-share: the batches planned at TPOT_TARGET_SHARE of the safe concurrency whatever
  the target utilisation (the batch term to stop 46);
- one-burst-memory: a burst seen once remembered with the 20-minute half-life of one that came
  back (the burst histories to stop 46).

It also prints each workload's safe concurrency per seed, judged with and without the TPOT SLO, and
`render`'s floor per seed at the knob, with the traffic profile it is derived from.

Prints, per workload, each variant's SLO attainment (TTFT and TPOT), TTFT-only attainment,
GPU-seconds and TTFT p99 on the evaluation window: mean and min-max over the seeds; the TTFT p99
of served requests (from their first attempt: a request refused and served on retry carries the
wait) and of admitted attempts (from the attempt admitted to its first token: what shedding
controls); and, when no-shedding ran too, the seeds on which it beats the variant; with
--per-seed, each seed's attainment and GPU-seconds under each variant's row.

    python scripts/policy_ablation.py [--workload standard-burst ...] [--trace FILE ...] [--seeds 5]
        [--knob 0.8] [--jobs 2] [--only slo-scaler,slo-scaler-no-shedding] [--per-seed] [--silence 600:180]

`--knob` runs every variant at that targetUtilization instead of the default (a tuned point, say);
`--trace` adds trace files (scripts/unseen_traces.py writes three a set), scored the same way;
`--silence START:SECONDS` drops every arrival in that span of each workload, so the traffic stops
and comes back at its rate: the risk a rule that releases an idle model's capacity takes, which no
scored trace shows (docs/policy.md, "Letting an idle model's bursts go: tried, not in").
"""

from __future__ import annotations

import argparse
import importlib
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.admission import AdmissionConfig  # noqa: E402
from scaler.autoscaling import ScalingPolicy, ScalingRules  # noqa: E402
from scaler.policy import burst_floor, excursions, forecast_skill, headroom, slow_tokens  # noqa: E402
from scaler.policy.predict import Prediction  # noqa: E402
from scaler.policy.signals import RECENT_S, SignalWindow  # noqa: E402
from scaler.sim import calibrate, policies  # noqa: E402
from scaler.sim.policies.slo_scaler import SloScaler, policy_config, replica_floor  # noqa: E402
from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.sweep import context, run_point  # noqa: E402
from scaler.sim.workload import WORKLOADS, build, trace_file  # noqa: E402

decide_module = importlib.import_module("scaler.policy.decide")  # the module, not the function
estimate_module = importlib.import_module("scaler.policy.estimate")
OLD_SCALE_DOWN = ScalingRules(300.0, (ScalingPolicy("Pods", 1, 60.0),), "Min")


@contextmanager
def patched(module, name, value):
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)


class Variant(SloScaler):
    patch: tuple | None = None  # (module, attribute, value) while the policy decides

    def control(self, now, view):
        if self.patch is None:
            return super().control(now, view)
        with patched(*self.patch):
            return super().control(now, view)


class CountPredictor(Variant):
    name = "ours-count-predictor"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.config = replace(self.config, prefill_tps=None)


class NoTpot(Variant):
    name = "ours-no-tpot"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.config = replace(self.config, tpot_slo_s=None)


def _projected_target(original):
    def target(config, est, prediction, peak):
        ttft = max(prediction.ttft_s, peak + config.expected_prefill_s)
        return original(config, est, Prediction(ttft, max(prediction.queue_s, peak), prediction.prefill_s), peak)
    return target


class ProjectionSheds(Variant):
    name = "ours-projection-sheds"
    patch = (decide_module, "_target_state", _projected_target(decide_module._target_state))


class NoBurstHeadroom(Variant):
    name = "ours-no-burst-headroom"
    patch = (headroom, "burst_replicas", lambda *a, **k: (0.0, 0.0))


class SlowRelease(Variant):
    name = "ours-slow-release"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.keda = replace(self.keda, hpa=replace(self.keda.hpa, scale_down=OLD_SCALE_DOWN))


def _spread_admission(original):
    def admission(config, est, state, prediction, peak):
        # The previous rule: free slots spread until the next replica lands, not filled within
        # one budget (every other bound the same, so the lower of the two).
        rate, retry = original(config, est, state, prediction, peak)
        free = max(0.0, est.ready * est.slots - est.running - est.waiting) if est.slots is not None else 0.0
        if rate is None or free <= 0:
            return rate, retry
        until = est.landings[0] if est.landings else est.scale_up_s
        return min(rate, est.drain_rps + free / max(until, config.budget_s)), retry
    return admission


class SpreadAdmission(Variant):
    name = "ours-spread-admission"
    patch = (decide_module, "_admission_and_retry", _spread_admission(decide_module._admission_and_retry))


class YellowSheds(SloScaler):
    name = "ours-yellow-sheds"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.admission = replace(self.admission, yellow_shed=AdmissionConfig.yellow_shed)


def ttft_only_slots(ctx) -> int:
    """The safe concurrency as the previous calibration judged it: TTFT p95 alone."""
    lengths = calibrate._sample(ctx.arrivals, ctx.seed)
    return calibrate.safe_concurrency(ctx.setup.params, lengths, calibrate.SAFE_TTFT_SHARE * ctx.setup.ttft_slo_s)


class TtftOnlySlots(Variant):
    name = "ours-ttft-only-slots"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.config = replace(self.config, max_concurrency=float(ttft_only_slots(ctx)))


def _burst_slot_share(original, share):
    def burst_replicas(history, *, slot_share, **rest):
        return original(history, slot_share=share, **rest)
    return burst_replicas


class QuarterBurstSlots(Variant):
    name = "ours-quarter-burst-slots"
    patch = (headroom, "burst_replicas", _burst_slot_share(headroom.burst_replicas, 0.25))


class BurstSlotsAtTarget(Variant):
    name = "ours-burst-slots-at-target"
    patch = (headroom, "burst_replicas", _burst_slot_share(headroom.burst_replicas, decide_module.TPOT_TARGET_SHARE))


class SplitSlots(SloScaler):
    name = "ours-split-slots"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        tpot_safe = self.config.max_concurrency
        self.config = replace(self.config, max_concurrency=float(ttft_only_slots(ctx)))
        scale = tpot_safe / self.config.max_concurrency
        burst, admission = headroom.burst_replicas, decide_module._admission_and_retry

        def tpot_burst(history, *, slots, **rest):
            return burst(history, slots=slots * scale if slots else slots, **rest)

        def tpot_admission(config, est, state, prediction, peak):
            return admission(config, replace(est, slots=est.slots * scale) if est.slots else est, state, prediction, peak)

        self._patches = ((headroom, "burst_replicas", tpot_burst), (decide_module, "_admission_and_retry", tpot_admission))

    def control(self, now, view):
        with patched(*self._patches[0]), patched(*self._patches[1]):
            return super().control(now, view)


def _tpot_on_offered_load(original):
    def tpot_replicas(config, est):
        offered = max(1.0, est.arrival_rps / est.completion_rps) if est.completion_rps > 0 else 1.0
        return offered * original(config, est)
    return tpot_replicas


class TpotOnOfferedLoad(Variant):
    name = "ours-tpot-on-offered-load"
    patch = (decide_module, "_tpot_replicas", _tpot_on_offered_load(decide_module._tpot_replicas))


class HoldForecast(Variant):
    name = "ours-hold-forecast"
    # The hold keeps the need with the trend's forecast in place of the seen need.
    patch = (decide_module, "_release",
             lambda est, need, seen, recent, _release=decide_module._release: _release(est, need, need, recent))


class NoTpotRed(Variant):
    name = "ours-no-tpot-red"
    # TPOT out of the state machine and RED admission; its demand term (_tpot_replicas) kept.
    patch = (decide_module, "_tpot_ratio", lambda config, est: 0.0)


class TpotRed5s(Variant):
    name = "ours-tpot-red-5s"
    # The TPOT RED reads is the need's, over the last RECENT_S.
    patch = (estimate_module, "_decode_tpot", lambda config, window, snap, mu: estimate_module._tpot(
        config, snap.running, snap.prompt_tokens_in_flight, *window.generation_over(RECENT_S)))


def _whole_batch(original):
    def tpot(config, running, prompt_tokens, generation, generation_running):
        return original(config, running, prompt_tokens, generation, None)
    return tpot


class TpotWholeBatch(Variant):
    name = "ours-tpot-whole-batch"
    patch = (estimate_module, "_tpot", _whole_batch(estimate_module._tpot))


class PeakCountsRunning(Variant):
    name = "ours-peak-counts-running"
    # decide's own reference: the predictor keeps counting only what waits.
    patch = (decide_module, "beyond_slots", lambda waiting, running, ready, slots: waiting + running - ready * slots)


class EveryScaleUp(Variant):
    name = "ours-every-scale-up"
    patch = (excursions, "lands_too_late", lambda history, now, scale_up_s: None)


class WaitOnOne(Variant):
    name = "ours-wait-on-one"
    patch = (excursions, "EVIDENCE", 1.0)


def _counted_evidence(history, now, scale_up_s):
    """excursions.lands_too_late with the similar excursions counted against EVIDENCE rather than
    their decayed weights summed (two weights under 1 never reach 2, so the rule asks for three)."""
    if history.start is None:
        return None
    count, alive, beyond = excursions.similar(history, now, scale_up_s)
    if count < excursions.EVIDENCE or beyond >= excursions.LAND_SHARE * alive:
        return None
    return f"scale-up waits: {count} similar excursions, {beyond / alive:.0%} outlasted a {scale_up_s:.0f}s scale-up"


class CountedEvidence(Variant):
    name = "ours-counted-evidence"
    patch = (excursions, "lands_too_late", _counted_evidence)


class Hold3Latencies(Variant):
    name = "ours-hold-3-latencies"
    patch = (decide_module, "RELEASE_HOLD_LATENCIES", 3.0)


class NoBatchNeed(Variant):
    name = "ours-no-batch-need"
    patch = (decide_module, "_batch_replicas", lambda config, est: 0.0)


class BatchNow(Variant):
    name = "ours-batch-now"
    patch = (decide_module, "_sustained_batch", lambda est: est.running)


class FreeSlotsNow(Variant):
    name = "ours-free-slots-now"
    patch = (SignalWindow, "peak_in_flight", lambda window, since: window.latest.waiting + window.latest.running)


class FloorOne(Variant):
    """Without `render`'s floor: burstReplicas 0, the fleet starting at the bench's opening size."""
    name = "ours-floor-one"

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.config = replace(self.config, burst_replicas=0.0)

    def initial_replicas(self) -> int:
        return self.ctx.sizing.initial


class _FloorRecurrence(Variant):
    """`render`'s floor starting with `recurrence` returns, whatever the profile's burstRecurrence."""
    recurrence: float

    def __init__(self, ctx, knob_value=None):
        super().__init__(ctx, knob_value)
        self.config = replace(self.config, burst_recurrence=self.recurrence)


class FloorSeenOnce(_FloorRecurrence):
    """`render`'s floor starting as a burst seen once: it fades with the 5-minute half-life until the
    traffic comes back to it (stop 48's first sweep)."""
    name = "ours-floor-seen-once"
    recurrence = 0.0


class FloorAlwaysReturns(_FloorRecurrence):
    """`render`'s floor starting as a burst that has come back, whatever the profile (to stop 49):
    a level profile's floor fades with the 20-minute half-life too."""
    name = "ours-floor-always-returns"
    recurrence = 1.0


class FloorRateOverAMinute(Variant):
    """`render`'s floor kept whole only while the rate over 60 s windows reaches its last replica."""
    name = "ours-floor-rate-over-a-minute"
    patch = (burst_floor, "RATE_WINDOW_MIN_S", 60.0)


class FloorReachedByNoise(Variant):
    """`render`'s floor reached by a window's rate as counted (to stop 54), not by the rate less its noise."""
    name = "ours-floor-reached-by-noise"
    patch = (burst_floor, "REACH_NOISE_Z", 0.0)


class FloorKeptUntilWhole(Variant):
    """`render`'s floor keeping each replica until it has faded whole (to stop 55), also where the
    traffic has not come back to it."""
    name = "ours-floor-kept-until-whole"
    patch = (burst_floor, "ROUNDED_BELOW_RETURNS", 0.0)


class StandingFloor(Variant):
    """`render`'s floor as minReplicaCount, held all run (to stop 47)."""
    name = "ours-standing-floor"

    @property
    def min_replicas(self) -> int:
        return self.floor


def _rate_at_capacity(original):
    """The sustained rate at the saturated throughput, the batch need at targetUtilization x S."""
    def need(config, est, forecast, noise, bursts, prompt_bursts, slow_need, weight):
        share = config.target_utilization / decide_module.TPOT_TARGET_SHARE
        slots = config.max_concurrency * share if config.max_concurrency else None
        with patched(decide_module, "batch_share", lambda config: decide_module.TPOT_TARGET_SHARE):  # as it was tried
            return original(replace(config, target_utilization=1.0, max_concurrency=slots), est, forecast, noise,
                            bursts, prompt_bursts, slow_need, weight)
    return need


class RateAtCapacity(Variant):
    """The first candidate for a headroom from history (tried, not in: docs/policy.md)."""
    name = "ours-rate-at-capacity"
    patch = (decide_module, "_need", _rate_at_capacity(decide_module._need))


class NoSlowTokens(Variant):
    """Without the slow-token term: the share of requests over the TPOT SLO asks for nothing."""
    name = "ours-no-slow-tokens"
    patch = (slow_tokens, "replicas", lambda state, arrival_rps: 0.0)


class NoPrefillBursts(Variant):
    """Without the prompt-token burst history: bursts counted in requests only."""
    name = "ours-no-prefill-bursts"
    patch = (headroom, "prefill_replicas", lambda history, **rest: (0.0, 0.0))


class PrefilledPromptsOnly(Variant):
    """The prompt-token burst history without the prompts the RLS refused (stop 40's input)."""
    name = "ours-prefilled-prompts-only"
    patch = (decide_module, "_refused_prompt_tokens", lambda snap: 0.0)


class WindowTrendOnly(Variant):
    """The forecast's trend read over the rate window only, not over the scale-up horizon too."""
    name = "ours-window-trend-only"
    patch = (headroom, "trend", lambda history, now, span_s: 0.0)


class PoissonWindowTrend(Variant):
    """The rate window's trend on Poisson's test alone, as to stop 40."""
    name = "ours-poisson-window-trend"
    patch = (decide_module, "_window_rise", lambda config, est, bursts: max(0.0, est.arrival_trend_rps2))


class PoissonHorizonTrend(Variant):
    """The horizon's trend tested against Poisson noise alone (the first version, tried)."""
    name = "ours-poisson-horizon-trend"
    patch = (headroom, "_dispersion", lambda marks, start, end, rate: 1.0)


class TrendUnchecked(Variant):
    """The trend's rise extrapolated in full, whatever its past forecasts carried (to stop 45)."""
    name = "ours-trend-unchecked"
    patch = (forecast_skill, "observe", lambda skill, now, **_: skill)


class UnweighedCapacity(Variant):
    """The configured capacity taken as the live mix's, whatever its prompts (to stop 41)."""
    name = "ours-unweighed-capacity"
    patch = (decide_module, "_prompt_weight", lambda config, est, bursts, prompt_bursts: 1.0)


class NoRateNoise(Variant):
    """Without room for the forecast's noise at the saturated throughput (to stop 43)."""
    name = "ours-no-rate-noise"
    patch = (decide_module, "RATE_NOISE_Z", 0.0)


class RateNoiseTwoSd(Variant):
    """Room for two standard deviations of the forecast's noise (stops 44-53), not one."""
    name = "ours-rate-noise-2-sd"
    patch = (decide_module, "RATE_NOISE_Z", 2.0)


def _widened(original):
    """headroom.rate_noise times the square root of the counts' index of dispersion over the span."""
    def rate_noise(history, now, span_s):
        noise = original(history, now, span_s)
        if not noise:
            return 0.0
        rate = headroom.count_over(history, now, span_s) / span_s
        return noise * headroom._dispersion(history.marks, now - span_s, now, rate) ** 0.5
    return rate_noise


class RateNoiseWidened(Variant):
    """The rate's noise widened by the stream's dispersion (tried in stop 44, not in)."""
    name = "ours-rate-noise-widened"
    patch = (headroom, "rate_noise", _widened(headroom.rate_noise))


class NoOneSecondWindow(Variant):
    """Bursts counted over 5 s at the shortest (to stop 44): a clump that arrives at once is credited
    5 s of service."""
    name = "ours-no-one-second-window"
    patch = (headroom, "BURST_WINDOWS_S", tuple(w for w in headroom.BURST_WINDOWS_S if w > 1.0))


class PrefillAtTpotShare(Variant):
    """A burst's prompt tokens planned at TPOT_TARGET_SHARE of the prefill throughput at every target
    utilisation (the prefill term to the first half of stop 45)."""
    name = "ours-prefill-at-tpot-share"
    patch = (decide_module, "prefill_share", lambda config: decide_module.TPOT_TARGET_SHARE)


class BatchAtTpotShare(Variant):
    """The batches planned at TPOT_TARGET_SHARE of the safe concurrency at every target utilisation
    (the batch term to stop 46)."""
    name = "ours-batch-at-tpot-share"
    patch = (decide_module, "batch_share", lambda config: decide_module.TPOT_TARGET_SHARE)


class OneBurstMemory(Variant):
    """A burst seen once remembered as long as one that came back (the burst histories to stop 46)."""
    name = "ours-one-burst-memory"
    patch = (headroom, "ONCE_HALF_LIFE_S", headroom.HISTORY_HALF_LIFE_S)


class ShortBurstMemory(Variant):
    """Bursts forgotten with a 5-minute half-life instead of 20 minutes."""
    name = "ours-short-burst-memory"
    patch = (headroom, "HISTORY_HALF_LIFE_S", 300.0)


VARIANTS = (CountPredictor, ProjectionSheds, NoBurstHeadroom, NoTpot, SlowRelease, SpreadAdmission, YellowSheds,
            TtftOnlySlots, QuarterBurstSlots, BurstSlotsAtTarget, SplitSlots, TpotOnOfferedLoad, NoTpotRed, HoldForecast,
            TpotRed5s, TpotWholeBatch, PeakCountsRunning, EveryScaleUp, WaitOnOne, CountedEvidence, Hold3Latencies,
            NoBatchNeed, BatchNow, FreeSlotsNow, FloorOne, StandingFloor, FloorSeenOnce, FloorAlwaysReturns,
            FloorRateOverAMinute, FloorReachedByNoise, FloorKeptUntilWhole,
            ShortBurstMemory, RateAtCapacity, NoSlowTokens,
            NoPrefillBursts, PrefilledPromptsOnly, WindowTrendOnly, PoissonWindowTrend,
            PoissonHorizonTrend, UnweighedCapacity, NoRateNoise, RateNoiseTwoSd, RateNoiseWidened, NoOneSecondWindow,
            PrefillAtTpotShare, TrendUnchecked, BatchAtTpotShare, OneBurstMemory)
for cls in VARIANTS:
    policies.ABLATIONS[cls.name] = cls

_BUILT: dict[tuple[str, int], object] = {}


def floor_at(ctx, knob: float | None) -> int:
    """minReplicas as ours deploys it at this knob (None: the default)."""
    config = policy_config(ctx) if knob is None else policy_config(ctx, knob)
    return replica_floor(ctx, config)


def silenced(workload, start_s: float, seconds: float):
    """The workload with no arrival in [start_s, start_s + seconds): traffic that stops and comes back
    at its rate, as after an upstream outage. No trace of the bench has a silence before its end, so a
    rule that lets an idle model's capacity go is scored on the 5-minute tail's saving and never on
    this risk (docs/policy.md, "Letting an idle model's bursts go: tried, not in"). The fleet's
    bounds stay the trace's."""
    end_s = start_s + seconds
    return replace(workload, arrivals=tuple(a for a in workload.arrivals if not start_s <= a.time < end_s))


def _silence(raw: str) -> tuple[float, float]:
    start, _, seconds = raw.partition(":")
    try:
        window = float(start), float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected START:SECONDS, got {raw!r}") from None
    if not (math.isfinite(window[0]) and math.isfinite(window[1]) and window[0] >= 0 and window[1] > 0):
        raise argparse.ArgumentTypeError(f"expected START >= 0 and SECONDS > 0, got {raw!r}")
    return window


def _run(task):
    name, seed, policy, knob, setup = task
    workload = _BUILT[(name, seed)]
    score = run_point(workload, policy, knob, setup, seed=seed).windows["eval"]
    return name, policy, seed, score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--trace", action="append", type=Path, default=[],
                        help="an Azure CSV or Mooncake JSONL trace, as `slo-scaler bench --trace` reads it (repeatable)")
    parser.add_argument("--knob", type=float, help="targetUtilization for ours and every variant (default: ours' default)")
    parser.add_argument("--only", help="comma-separated variants to run (default: all)")
    parser.add_argument("--per-seed", action="store_true", help="also print each seed's attainment and GPU-seconds")
    parser.add_argument("--silence", type=_silence, metavar="START:SECONDS",
                        help="drop every arrival in [START, START + SECONDS) s of each workload: the traffic stops, "
                             "then comes back at its rate")
    args = parser.parse_args()
    if args.knob is not None and not 0 < args.knob <= 1:
        parser.error(f"--knob: expected a targetUtilization in (0, 1], got {args.knob:g}")
    for path in args.trace:
        if not path.is_file():
            parser.error(f"--trace {path}: no such file")
    traces = {path.stem: path for path in args.trace}
    names = (args.workload or ([] if traces else list(WORKLOADS))) + list(traces)
    setup = Setup()
    seeds = list(range(args.seeds))
    for name in names:
        for seed in seeds:
            seeded = replace(setup, seed=seed)
            _BUILT[(name, seed)] = trace_file(traces[name], seeded, seed) if name in traces else build(name, seeded, seed)
            if args.silence:
                _BUILT[(name, seed)] = silenced(_BUILT[(name, seed)], *args.silence)
        judged = [_BUILT[(name, seed)].calibration.safe_concurrency for seed in seeds]
        alone = [ttft_only_slots(context(_BUILT[(name, seed)], setup, seed)) for seed in seeds]
        print(f"{name}: safe concurrency per seed, judged on TTFT and TPOT {judged}; on TTFT alone {alone}", flush=True)
        if args.silence:
            start, seconds = args.silence
            print(f"{name}: silenced from {start:g} s for {seconds:g} s (no arrival), then its traffic as it was", flush=True)
        contexts = [context(_BUILT[(name, seed)], setup, seed) for seed in seeds]
        base, peak, growth = contexts[0].profile
        print(f"{name}: render's floor per seed at targetUtilization {args.knob or 'default'}: "
              f"{[floor_at(ctx, args.knob) for ctx in contexts]} (first seed's traffic profile: base {base:.2f} "
              f"req/s, 1-minute peak {peak:.2f}, growth {growth:.3f} req/s per s)", flush=True)
    variants = ["slo-scaler", "slo-scaler-no-shedding", *(cls.name for cls in VARIANTS)]
    if args.only:
        variants = [v for v in variants if v in args.only.split(",")]
    tasks = [(n, s, p, args.knob, setup) for n in names for p in variants for s in seeds]
    results: dict[tuple[str, str], list] = {}
    with ProcessPoolExecutor(args.jobs) as pool:  # forked: the workers see the built workloads
        for done, (name, policy, seed, score) in enumerate(pool.map(_run, tasks), 1):
            results.setdefault((name, policy), []).append(score)
            print(f"\r{done}/{len(tasks)} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{'workload':15s} {'variant':24s} {'SLO eval (min-max)':>22s} {'TTFT-only':>9s} {'GPU-s eval (min-max)':>24s} "
          f"{'TTFT p99 (s): served':>22s} {'admitted':>8s}  seeds no-shedding beats")
    for name in names:
        ours, unshed = results.get((name, "slo-scaler")), results.get((name, "slo-scaler-no-shedding"))
        if ours and unshed:  # pool.map keeps the order: the same seeds, one by one
            worse = [(s, a.slo_attainment, b.slo_attainment) for s, a, b in zip(seeds, ours, unshed)
                     if b.slo_attainment > a.slo_attainment]
            print(f"{name}: seeds where no-shedding beats ours on attainment: "
                  + (", ".join(f"{s} ({b:.2%} without vs {a:.2%} with)" for s, a, b in worse) or "none"))
        for policy in variants:
            scores = results[(name, policy)]
            # Seeds on which no shedding beats this variant (the must-show holds ours to none).
            beaten = "-" if unshed is None or policy == "slo-scaler-no-shedding" else ",".join(
                str(s) for s, a, b in zip(seeds, scores, unshed) if b.slo_attainment > a.slo_attainment) or "none"
            slo = [s.slo_attainment for s in scores]
            ttft = [s.ttft_attainment for s in scores]
            gpu = [s.gpu_seconds for s in scores]
            p99 = [s.ttft_p99_s for s in scores if s.ttft_p99_s is not None]
            admitted = [s.admitted_ttft_p99_s for s in scores if s.admitted_ttft_p99_s is not None]
            served = f"{statistics.fmean(p99):8.2f} ({min(p99):.2f}-{max(p99):.2f})" if p99 else "-"
            served += f" {statistics.fmean(admitted):8.2f}" if admitted else " -"
            print(f"{name:15s} {policy:24s} {statistics.fmean(slo):7.1%} ({min(slo):.1%}-{max(slo):.1%}) "
                  f"{statistics.fmean(ttft):9.1%} {statistics.fmean(gpu):9,.0f} ({min(gpu):,.0f}-{max(gpu):,.0f}) "
                  f"{served:>31s}  {beaten}", flush=True)
            if args.per_seed:
                print(" " * 16 + "  ".join(f"seed {seed}: {score.slo_attainment:.2%} / {score.gpu_seconds:,.0f}"
                                           for seed, score in zip(seeds, scores)), flush=True)


if __name__ == "__main__":
    main()
