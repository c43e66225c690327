"""`llm-d-token`: llm-d's token-aware KEDA blueprint (experimental), P+D co-located (no shedding).

Source: llm-d, guides/workload-autoscaling/keda-epp-token-aware (README and
optimized-baseline/base/scaledobject.yaml). One ScaledObject, two AverageValue triggers, the
larger wins:
- prefill: sum(llm_d_epp_inflight_tokens) / V_P, seconds of queued prefill work, against
  threshold = TTFT SLO - ISL / V_P (the budget left after the idle prefill floor). V_P is
  calibrated as the guide's calibrate.sh does (CHUNK / idle TTFT of a CHUNK-token prompt) and
  ISL is the workload's median prompt;
- decode: sum(vllm:kv_cache_usage_perc), threshold 0.8 (pods' worth of full KV cache);
pollingInterval 15; HPA behavior as shipped: scale up at most 1 pod per 180 s (stabilisation 0),
scale down at most 1 pod per 300 s after a 300 s stabilisation window.
"""

from __future__ import annotations

from scaler.autoscaling import HpaSpec, Reading, ScalingPolicy, ScalingRules, Trigger
from scaler.sim.policies.keda_prometheus import PrometheusKeda

SCALE_UP = ScalingRules(0.0, (ScalingPolicy("Pods", 1, 180.0),))
SCALE_DOWN = ScalingRules(300.0, (ScalingPolicy("Pods", 1, 300.0),))
KV_THRESHOLD = 0.8
MIN_PREFILL_THRESHOLD_S = 0.1  # the guide's formula can go to zero for long prompts; keep it positive


class LlmdTokenAware(PrometheusKeda):
    name = "llm-d-token"
    knob = "prefill threshold (s of queued prefill per pod)"
    knob_default = 0.0  # 0: the guide's formula, TTFT SLO - ISL / V_P
    knob_grid = (0.025, 0.05, 0.1, 0.5)
    # And the guide's formula times these: its own value, and twice it as the grid's GPU-saving end.
    FORMULA_MULTIPLES = (1.0, 2.0)
    polling_interval_s = 15.0

    def __init__(self, ctx, knob_value: float | None = None):
        formula = self.formula_threshold_s(ctx)
        super().__init__(ctx, formula if not knob_value else knob_value)

    @staticmethod
    def formula_threshold_s(ctx) -> float:
        c = ctx.calibration
        floor = c.median_prompt_tokens / c.prefill_velocity
        return max(MIN_PREFILL_THRESHOLD_S, ctx.setup.ttft_slo_s - floor)

    @classmethod
    def grid(cls, ctx) -> tuple[float, ...]:
        formula = cls.formula_threshold_s(ctx)
        return tuple(sorted({round(v, 3) for v in (*cls.knob_grid, *(m * formula for m in cls.FORMULA_MULTIPLES))}))

    def hpa_spec(self) -> HpaSpec:
        return HpaSpec(min_replicas=self.min_replicas, max_replicas=self.max_replicas,
                       scale_up=SCALE_UP, scale_down=SCALE_DOWN)

    @property
    def prefill_threshold_s(self) -> float:
        return self.knob_value

    def triggers(self):
        backlog_s = self.scrape.sum(lambda m: m.prefill_tokens) / self.ctx.calibration.prefill_velocity
        kv = self.scrape.sum(lambda m: m.kv_usage)
        return [Trigger(Reading("AverageValue", self.prefill_threshold_s, value=backlog_s)),
                Trigger(Reading("AverageValue", KV_THRESHOLD, value=kv))]
