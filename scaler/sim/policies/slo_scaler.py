"""`slo-scaler`: ours. The queue-SLO policy core, KEDA external scaler and Envoy shedding.

Source: this project (scaler/policy, scaler/admission, templates/keda/scaledobject.yaml.j2).
- signals: a direct scrape of the replicas every second (waiting, running, ready, completions,
  output and prompt token counters, in-flight prompt tokens as llm-d's EPP counts them) plus the rate-limit service's exact count of offered requests and the starting pods' ages;
- decision: scaler.policy.decide with ttftSloSeconds from the bench, expectedPrefillSeconds =
  idle TTFT of the workload's median prompt, scaleUpLatencySeconds = the cold-start median,
  perReplicaCapacity = the calibrated saturated throughput, maxConcurrency = the calibrated
  safe concurrency (TTFT p95 within half the SLO), prefillTokensPerSecond = the calibrated
  prefill velocity (as llm-d's), capacityPromptTokens = the calibration sample's mean prompt,
  targetUtilization (the knob, default 0.8) as
  render deploys it, every other key at its default;
- floor: burstReplicas as `render` derives it from the spec's traffic profile (base, peak and burst
  growth of the workload's 1-minute rate over the tuning window), scale-up latency and request
  duration (safe concurrency / capacity), in the trigger metadata as `render` puts it: the policy
  holds it while the traffic reaches it (scaler.policy.burst_floor), starting with the returns
  burstRecurrence gives from the same profile's peak over its base; minReplicaCount is the spec's
  replicas.min, 1, and the fleet starts with the floor up;
- actuation: KEDA external trigger, metricType AverageValue, target 1, value = demand, read
  fresh at each HPA sync (15 s); pollingInterval 5 (interactive); HPA behavior from
  scaler.policy.behavior: scale up max(100%, 4 pods) per 15 s with no window, scale down 100% per
  15 s after a 15 s window (the policy itself holds ready replicas for one scale-up latency and
  lets starting ones be cancelled);
- shedding: scaler.admission.admit on every attempt (GREEN and YELLOW admit, RED admits the
  drainable rate by class priority and tenant share, Retry-After), tenants of the workload
  configured with equal weights. `yellowShedClasses` is set to none: the bench holds every class
  to the same SLO, so a batch request refused while the fleet still meets it is a miss bought
  for nothing (the shipped default sheds batch and background in YELLOW, for deployments whose
  batch traffic has no TTFT SLO).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from scaler.admission import AdmissionConfig, AdmissionState, TenantConfig, admit
from scaler.admission import Request as AdmissionRequest
from scaler.autoscaling import HpaSpec, KedaSpec, Reading, ScalingPolicy, ScalingRules, Trigger, keda
from scaler.policy import ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.policy import behavior
from scaler.policy.decide import Decision
from scaler.render.derive import burst_recurrence, burst_replicas, request_seconds, target_concurrency
from scaler.sim.observe import FleetView
from scaler.sim.policies.base import Policy, PolicyContext, Refusal
from scaler.spec.model import Replicas
from scaler.sources.vllm import tpot_over

MODEL = "model"
SCRAPE_INTERVAL_S = 1.0
POLLING_INTERVAL_S = 5.0


def _rules(direction: behavior.Direction) -> ScalingRules:
    return ScalingRules(direction.stabilization_window_s,
                        tuple(ScalingPolicy(r.type, r.value, r.period_s) for r in direction.policies),
                        direction.select_policy)


# The HPA behaviour that goes with the policy's demand (scaler.policy.behavior, one definition).
SCALE_UP, SCALE_DOWN = _rules(behavior.SCALE_UP), _rules(behavior.SCALE_DOWN)
TARGET_UTILIZATION = PolicyConfig.target_utilization  # the shipped default, the knob's default
SPEC_MIN_REPLICAS = Replicas.model_fields["min"].default  # replicas.min an operator leaves unset


def policy_config(ctx: PolicyContext, target_utilization: float = TARGET_UTILIZATION) -> PolicyConfig:
    setup, calibration = ctx.setup, ctx.calibration
    prefill = min(calibration.median_prefill_s, 0.5 * setup.ttft_slo_s)
    config = PolicyConfig(ttft_slo_s=setup.ttft_slo_s, tpot_slo_s=setup.tpot_slo_s, expected_prefill_s=prefill,
                          scale_up_latency_s=setup.cold_start.median_s,
                          per_replica_capacity_rps=calibration.capacity_rps,
                          max_concurrency=float(calibration.safe_concurrency),
                          prefill_tps=calibration.prefill_velocity,
                          capacity_prompt_tokens=calibration.mean_prompt_tokens,
                          target_utilization=target_concurrency(calibration.safe_concurrency, target_utilization)[1])
    config.check()
    return config


def replica_floor(ctx: PolicyContext, config: PolicyConfig) -> int:
    """burstReplicas as `slo-scaler render` derives it (scaler.render.derive.burst_replicas) from the
    traffic profile an operator would write for this workload (measured on the tuning window)."""
    base, peak, growth = ctx.profile
    carry = config.per_replica_capacity_rps * config.target_utilization
    request_s = request_seconds(ctx.calibration.safe_concurrency, config.per_replica_capacity_rps)
    needed, _ = burst_replicas(base, peak, growth, config.scale_up_latency_s, carry, request_s)
    return min(max(1, needed), ctx.sizing.peak)


def profile_recurrence(ctx: PolicyContext) -> float:
    """burstRecurrence as `slo-scaler render` derives it (scaler.render.derive.burst_recurrence) from
    the same profile."""
    base, peak, _ = ctx.profile
    return burst_recurrence(base, peak)


class SloScaler(Policy):
    name = "slo-scaler"
    knob = "targetUtilization"
    knob_default = TARGET_UTILIZATION
    knob_grid = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

    def __init__(self, ctx: PolicyContext, knob_value: float | None = None, config: PolicyConfig | None = None,
                 shedding: bool = True):
        super().__init__(ctx, knob_value)
        config = config or policy_config(ctx, self.knob_value)
        self.floor = replica_floor(ctx, config)
        self.config = replace(config, burst_replicas=float(self.floor), burst_recurrence=profile_recurrence(ctx))
        self.window = SignalWindow(self.config.rate_window_s)
        self.model_state = ModelState()
        self.decision: Decision | None = None
        self.keda = KedaSpec(hpa=HpaSpec(min_replicas=self.min_replicas, max_replicas=self.max_replicas,
                                         scale_up=SCALE_UP, scale_down=SCALE_DOWN),
                             polling_interval_s=POLLING_INTERVAL_S)
        self.keda_state = self.keda_state(self.keda)
        tenants = sorted({a.tenant for a in ctx.arrivals})
        self.shedding = shedding  # False: the scaler alone (for ablations), every attempt admitted
        self.admission = AdmissionConfig(tenants={t: TenantConfig() for t in tenants}, yellow_shed=frozenset(),
                                         miss_ratio=self.config.red_enter_ratio,
                                         red_queue_ratio=self.config.red_exit_ratio)
        self.admission_state = AdmissionState()
        self._rng = random.Random(f"admission-{ctx.seed}")
        self._last_scrape: float | None = None
        self.state_seconds: Counter[str] = Counter()
        self.transitions = 0
        self.verdicts: Counter[str] = Counter()

    def control(self, now: float, view: FleetView) -> int | None:
        if self._last_scrape is None or now - self._last_scrape >= SCRAPE_INTERVAL_S - 1e-9:
            self._last_scrape = now
            slow, finished = tpot_over(view.tpot_histogram, self.config.tpot_slo_s)
            self.window.push(Snapshot(time=now, waiting=float(view.waiting), running=float(view.running),
                                      ready_replicas=view.ready, completed_total=float(view.completed_total),
                                      arrivals_total=float(view.offered_total), starting_ages=view.starting_ages(),
                                      prompt_tokens_in_flight=float(sum(m.prefill_tokens for m in view.scraped)),
                                      generation_tokens_total=float(view.generation_total),
                                      tpot_slow_total=slow, tpot_finished_total=finished,
                                      prompt_tokens_total=float(view.prompt_total),
                                      refused_total=float(view.offered_total - view.admitted_total)))
            self.decision, self.model_state = decide(MODEL, self.config, self.window, self.model_state, now)
            self.state_seconds[self.decision.state.value] += SCRAPE_INTERVAL_S
            self.transitions += int(self.decision.state_changed)
        if now < self.hpa_start_s:
            return None
        result, self.keda_state = keda.step(self.keda, self.keda_state, now, view.desired, self._triggers)
        return result.replicas

    @property
    def min_replicas(self) -> int:
        return SPEC_MIN_REPLICAS  # the floor is the policy's (burstReplicas)

    def initial_replicas(self) -> int:
        return max(self.ctx.sizing.initial, self.floor)

    def _triggers(self) -> list[Trigger]:
        demand = self.decision.demand if self.decision is not None else 0.0
        return [Trigger(Reading("AverageValue", 1.0, value=demand))]

    def admit(self, now: float, request) -> Refusal | None:
        if not self.shedding:
            return None
        arrival = request.arrival
        ask = AdmissionRequest(model=MODEL, request_class=arrival.request_class, class_source="header",
                               tenant=arrival.tenant)
        verdict, self.admission_state = admit(self.admission, self.admission_state, ask, self.decision, now,
                                              self._rng.random(), self.config.max_staleness_s)
        self.verdicts[verdict.reason] += 1
        if verdict.admitted:
            return None
        return Refusal(verdict.code or 503, verdict.reason, verdict.retry_after_s)

    def summary(self) -> dict:
        return {"seconds_in_state": dict(self.state_seconds), "state_changes": self.transitions,
                "verdicts": dict(self.verdicts)}
