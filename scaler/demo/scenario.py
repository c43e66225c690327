"""The demo's numbers in one place: the emulated replica, the SLO, the burst and the actuator.

Time is compressed about 5x against production (docs/demo.md): a 12 s cold start stands for a
one-minute GPU scale-up, KEDA polls every 6 s instead of 30 s, the HPA syncs every 3 s instead
of 15 s and holds scale-downs for 60 s instead of 300 s. The emulated replica runs in real time
(--speed 1) with a 30 ms step floor so that four replicas' token streams fit in two CPU cores;
`slo-scaler calibrate` on it at the burst's mean sizes (prompt 558, output 33, TTFT p95 0.5 s), as
the checklist says, measures a safe concurrency of 9 and 6.3 requests/s per replica, which is the
capacity the scaler is configured with (at prompt 256 it measures 6.9/s, which overstates what a
replica drains of this mix: 5.6/s in RED, `scripts/demo_misses.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from scaler.autoscaling import HpaSpec, KedaSpec, ScalingPolicy, ScalingRules
from scaler.loadgen.workload import WorkloadOptions, build_arrivals
from scaler.workloads import Arrival, LengthMix

MODEL = "demo-llm"


@dataclass(frozen=True)
class DemoScenario:
    # The emulated replica (slo-scaler emulate flags).
    max_num_seqs: int = 8
    step_base_s: float = 0.03
    cold_start_s: float = 12.0
    min_replicas: int = 1
    max_replicas: int = 4
    # What the scaler is told (trigger metadata), measured with slo-scaler calibrate at the
    # burst's mean prompt and output sizes.
    ttft_slo_s: float = 1.0
    expected_prefill_s: float = 0.05
    capacity_rps: float = 6.3
    state_hold_s: float = 5.0
    rate_window_s: float = 12.0
    # The burst: base rate, then burst_factor x the normal peak, then base again. The warm-up
    # (base rate, not measured, no actuator yet) gives the scaler a full rate window of steady
    # traffic, as a service that was running before the demo looked at it.
    warmup_s: float = 12.0
    base_rps: float = 3.5
    peak_rps: float = 5.0
    burst_factor: float = 3.0
    low_s: float = 10.0
    burst_s: float = 25.0
    after_s: float = 16.0
    class_mix: tuple[tuple[str, float], ...] = (("interactive", 0.8), ("batch", 0.2))
    lengths: LengthMix = field(default_factory=lambda: LengthMix(
        prompt_median=256, prompt_sigma=0.5, prompt_max=1024, long_prompt_frac=0.1, long_prompt_range=(2048, 4096),
        output_median=32, output_sigma=0.3, output_max=64, long_output_frac=0.0))
    # The actuator (KEDA + HPA), compressed like the cold start.
    polling_interval_s: float = 6.0
    hpa_sync_s: float = 3.0
    scale_down_window_s: float = 60.0
    # Baseline autoscaling: KServe's example, vllm:num_requests_running per replica, set below
    # the calibrated safe concurrency.
    baseline_running_target: float = 6.0
    baseline_average_s: float = 10.0
    # Clients: one retry, as Retry-After says (bounded).
    max_retries: int = 1
    backoff_cap_s: float = 8.0
    seed: int = 7
    # Run the two arms one after the other (the figures in docs/demo.md), or side by side.
    parallel_arms: bool = False

    @property
    def engine_flags(self) -> tuple[str, ...]:
        return ("--max-num-seqs", str(self.max_num_seqs), "--step-base-s", str(self.step_base_s))

    @property
    def duration_s(self) -> float:
        return self.low_s + self.burst_s + self.after_s

    def shortened(self) -> "DemoScenario":
        """A quicker run for tests: same shape, shorter phases, cold start and averaging windows,
        and the two arms side by side."""
        return replace(self, cold_start_s=3.0, warmup_s=3.5, low_s=2.0, burst_s=3.0, after_s=1.5,
                       polling_interval_s=1.0, hpa_sync_s=1.0, state_hold_s=2.0, rate_window_s=3.5,
                       baseline_average_s=3.5, parallel_arms=True)

    def arrivals(self) -> list[Arrival]:
        """The warm-up then the burst; the measured part starts at `warmup_s`."""
        options = WorkloadOptions(
            profile="burst", seed=self.seed, rate_rps=self.base_rps, peak_rps=self.peak_rps,
            burst_factor=self.burst_factor, low_s=self.warmup_s + self.low_s, burst_s=self.burst_s, after_s=self.after_s,
            length_mix=self.lengths, class_mix=dict(self.class_mix))
        return build_arrivals(options)

    def keda(self) -> KedaSpec:
        hpa = HpaSpec(
            min_replicas=self.min_replicas, max_replicas=self.max_replicas, sync_period_s=self.hpa_sync_s,
            # Kubernetes' default behaviour with the windows compressed like everything else.
            scale_up=ScalingRules(0.0, (ScalingPolicy("Pods", 4, 15.0), ScalingPolicy("Percent", 100, 15.0))),
            scale_down=ScalingRules(self.scale_down_window_s, (ScalingPolicy("Percent", 100, 15.0),)),
        )
        return KedaSpec(hpa=hpa, polling_interval_s=self.polling_interval_s)

    def trigger_metadata(self, source: dict[str, str]) -> dict[str, str]:
        """The ScaledObject trigger's metadata for the SLO-aware arm (values as KEDA passes them)."""
        return {
            "model": MODEL,
            **source,
            "ttftSloSeconds": str(self.ttft_slo_s),
            "requestClass": "interactive",
            "expectedPrefillSeconds": str(self.expected_prefill_s),
            "perReplicaCapacity": str(self.capacity_rps),
            "maxConcurrency": str(self.max_num_seqs),  # the batch slots of one replica
            "scaleUpLatencySeconds": str(self.cold_start_s),
            "stateHoldSeconds": str(self.state_hold_s),
            "rateWindowSeconds": str(self.rate_window_s),
        }
