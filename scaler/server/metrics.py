"""The scaler's own Prometheus metrics, read from the registry at scrape time (a Collector).

Every family is prefixed `slo_scaler_` and labelled by `namespace` and `model` (the same served
name in two namespaces is two models; "" when a model was configured without one); dashboards and alerts in
manifests/ use these names, docs/scaler.md lists them.
"""

from __future__ import annotations

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from scaler.policy.decide import MAX_FORECAST_GROWTH, State
from scaler.policy.headroom import HISTORY_HALF_LIFE_S, ONCE_HALF_LIFE_S
from scaler.server.registry import ModelRegistry

# (name, help, value of a Decision); the decision's inputs and outputs, one gauge each.
DECISION_GAUGES = (
    ("waiting_requests", "vLLM requests waiting, summed over ready replicas.", lambda d: d.waiting),
    ("running_requests", "vLLM requests running, summed over ready replicas.", lambda d: d.running),
    ("ready_replicas", "Replicas whose signals were read this round.", lambda d: d.ready_replicas),
    ("starting_replicas", "Replicas asked for or seen starting, not yet ready.", lambda d: d.starting_replicas),
    ("arrival_rate", "Estimated arrivals, requests per second (exact when the RLS counts them).",
     lambda d: d.arrival_rps),
    ("arrival_forecast_rate", "Arrivals forecast one scale-up latency ahead, requests per second: the rate plus "
     f"its rise over the rate window or the scale-up horizon, at most {MAX_FORECAST_GROWTH:g}x the rate.",
     lambda d: d.arrival_forecast_rps),
    ("trend_share", "Share of the arrival trend's rise the forecast extrapolates: how much of their rise the "
     "trend's recent forecasts carried one scale-up latency later (1 until any is scored).",
     lambda d: d.trend_share),
    ("completion_rate", "Completions, requests per second.", lambda d: d.completion_rps),
    ("replica_capacity", "Requests per second one replica completes (configured, learned or prior).",
     lambda d: d.capacity_rps),
    ("scale_up_latency_seconds", "Seconds from asking for a replica to it being ready (configured or learned).",
     lambda d: d.scale_up_latency_s),
    ("ttft_budget_seconds", "Queue budget: TTFT SLO minus expected prefill.", lambda d: d.budget_s),
    ("estimated_wait_seconds", "Estimated queue wait of a request arriving now.", lambda d: d.wait_s),
    ("peak_wait_seconds", "Worst projected wait before capacity asked for now can arrive.", lambda d: d.peak_wait_s),
    ("demand_replicas", "Demand in replica-equivalents, the value sent to KEDA (desired = ceil).",
     lambda d: d.demand),
    ("pressure", "Demand per ready replica.", lambda d: d.pressure),
    ("deferred_replicas", "Replicas the demand holds back: recent excursions like this one ended before a scale-up could land.",
     lambda d: d.deferred),
    ("prefill_burst_replicas", "Replicas whose prefill clears the largest recent burst of prompt tokens "
     f"(vllm:prompt_tokens_total, plus the RLS's refusals at the mean prompt; {ONCE_HALF_LIFE_S / 60:g}-minute "
     f"half-life while seen once, {HISTORY_HALF_LIFE_S / 60:g} minutes once one has come back).", lambda d: d.prefill_burst),
    ("burst_half_life_seconds", f"Half-life of the burst that sets the need: {ONCE_HALF_LIFE_S:g} while it has been "
     f"seen once, up to {HISTORY_HALF_LIFE_S:g} once one at least half its size has come back after a scale-up "
     "latency below half of it (0 when no burst sets it).",
     lambda d: d.burst_half_life_s),
    ("burst_floor_replicas", "Replicas render's burst floor (burstReplicas) holds now: whole while the traffic "
     f"reaches the rate of its last replica, then fading with a half-life of up to {HISTORY_HALF_LIFE_S:g} s "
     f"(burstRecurrence 1; {ONCE_HALF_LIFE_S:g} s at 0) that shortens towards {ONCE_HALF_LIFE_S:g} s while the traffic "
     "does not come back to it after a scale-up latency below half of that rate.", lambda d: d.burst_floor),
    ("prompt_weight", "Calibrated requests' replica time one request of the live mix takes, by its prompt "
     "(capacityPromptTokens); the sustained need divides the capacity by it. 1 when not weighed.",
     lambda d: d.prompt_weight),
    ("tpot_slow_share", "Share of recently finished requests whose time per output token missed its SLO "
     "(60 s half-life); above 0.5% it asks for replicas.", lambda d: d.tpot_slow_share),
    ("admission_rate", "RED only: requests per second current capacity drains within budget.",
     lambda d: d.admission_rps),
    ("retry_after_seconds", "Retry-After the shedder would send now.", lambda d: d.retry_after_s),
)


class ScalerCollector(Collector):
    def __init__(self, registry: ModelRegistry) -> None:
        self._registry = registry

    def collect(self):
        now = self._registry.clock()
        entries = self._registry.models()
        for name, doc, read in DECISION_GAUGES:
            family = GaugeMetricFamily(f"slo_scaler_{name}", doc, labels=["namespace", "model"])
            for entry in entries:
                value = read(entry.decision) if entry.decision is not None else None
                if value is not None:
                    family.add_metric([*entry.key], float(value))
            yield family

        state = GaugeMetricFamily("slo_scaler_state", "Queue-SLO state, one-hot.", labels=["namespace", "model", "state"])
        decisions = CounterMetricFamily("slo_scaler_decisions", "Policy decisions by state and reason.",
                                        labels=["namespace", "model", "state", "reason"])
        age = GaugeMetricFamily("slo_scaler_input_age_seconds", "Age of the latest good observation.",
                                labels=["namespace", "model"])
        latency = GaugeMetricFamily("slo_scaler_source_query_seconds",
                                    "Duration of the source round that gave the latest observation.",
                                    labels=["namespace", "model", "source"])
        up = GaugeMetricFamily("slo_scaler_source_up", "1 when the latest round observed the model, else 0.",
                                    labels=["namespace", "model", "source"])
        for entry in entries:
            source = entry.metadata.source.kind
            if entry.decision is not None:
                for s in State:
                    state.add_metric([*entry.key, s.value], 1.0 if entry.decision.state is s else 0.0)
            for (state_name, reason), count in entry.decisions_total.items():
                decisions.add_metric([*entry.key, state_name, reason], count)
            input_age = entry.input_age(now)
            if input_age is not None:
                age.add_metric([*entry.key], input_age)
            if entry.query_seconds is not None:
                latency.add_metric([*entry.key, source], entry.query_seconds)
            up.add_metric([*entry.key, source], 0.0 if entry.error or entry.observation is None else 1.0)
        yield from (state, decisions, age, latency, up)
