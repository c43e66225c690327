"""Policy configuration, one field per KEDA trigger metadata key (camelCase, like KEDA's scalers).

Values arrive as strings (KEDA passes trigger metadata verbatim); `PolicyConfig.from_metadata`
parses and checks them, naming the key and what was expected on every error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Mapping

REQUEST_CLASSES = ("interactive", "agent", "background", "batch")
AUTO = "auto"


class ConfigError(ValueError):
    """A metadata value that cannot be used; `key` names it, the message says what was expected."""

    def __init__(self, key: str, expected: str, got: object = None):
        self.key = key
        shown = "" if got is None else f", got {str(got)[:80]!r}"
        super().__init__(f"{key}: expected {expected}{shown}")


@dataclass(frozen=True)
class PolicyConfig:
    ttft_slo_s: float = 2.0
    # Mean time per output token a request may see; None: not part of the SLO.
    tpot_slo_s: float | None = None
    request_class: str = "interactive"
    expected_prefill_s: float = 0.0
    # None means `auto`: learned from observed replica readiness / saturated throughput.
    scale_up_latency_s: float | None = 60.0
    per_replica_capacity_rps: float | None = None
    # Requests one replica's batch holds within the SLO (calibrated safe concurrency, or vLLM's
    # max_num_seqs); None: learned as R / N while requests wait (the batch is then full).
    max_concurrency: float | None = None
    target_utilization: float = 0.8
    # One replica's prefill throughput in prompt tokens/s (llm-d's peakPrefillThroughput); None:
    # unknown, the TTFT predictor then counts the queue only.
    prefill_tps: float | None = None
    # Mean prompt tokens per request of the mix `per_replica_capacity_rps` was measured on; None:
    # the configured capacity is taken as the live mix's (no prompt weighting, docs/policy.md).
    capacity_prompt_tokens: float | None = None
    # Replicas `render` sized for a burst like the spec's traffic profile's (0: none): held as a floor
    # on the demand while the traffic keeps reaching it, fading when it does not (burst_floor).
    burst_replicas: float = 0.0
    # How surely bursts like the profile's come back, 0-1 (`render`'s burstRecurrence): the returns
    # the floor starts with. 1 (unset): a burst that returns, held with the 20-minute half-life.
    burst_recurrence: float = 1.0
    yellow_enter_ratio: float = 0.4
    yellow_exit_ratio: float = 0.3
    red_enter_ratio: float = 1.0
    red_exit_ratio: float = 0.8
    state_hold_s: float = 30.0
    backlog_drain_ratio: float = 0.5
    rate_window_s: float = 30.0
    max_staleness_s: float = 30.0
    # Until a capacity is learned in `auto` mode, this prior is used (server-wide default).
    capacity_prior_rps: float | None = None
    # Used in `auto` mode until a replica has been seen becoming ready.
    scale_up_prior_s: float = 60.0

    @property
    def budget_s(self) -> float:
        """B: the part of the TTFT SLO a request may spend waiting in the queue."""
        return self.ttft_slo_s - self.expected_prefill_s

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str], defaults: Mapping[str, str] | None = None) -> "PolicyConfig":
        merged = {**(defaults or {}), **metadata}
        values: dict[str, object] = {}
        for key, (name, parse) in _KEYS.items():
            if key in merged:
                values[name] = parse(key, merged[key])
        config = cls(**values)
        config.check()
        return config

    def check(self) -> None:
        if self.expected_prefill_s >= self.ttft_slo_s:
            raise ConfigError("expectedPrefillSeconds", f"less than ttftSloSeconds ({self.ttft_slo_s})", self.expected_prefill_s)
        if not self.yellow_exit_ratio <= self.yellow_enter_ratio:
            raise ConfigError("yellowExitRatio", "at most yellowEnterRatio (hysteresis band)", self.yellow_exit_ratio)
        if not self.red_exit_ratio <= self.red_enter_ratio:
            raise ConfigError("redExitRatio", "at most redEnterRatio (hysteresis band)", self.red_exit_ratio)
        if not self.yellow_enter_ratio <= self.red_enter_ratio:
            raise ConfigError("yellowEnterRatio", "at most redEnterRatio", self.yellow_enter_ratio)
        if self.capacity_prompt_tokens is not None and self.prefill_tps is None:
            # The weight prices a prompt's difference at the prefill throughput: without it the key
            # would do nothing, silently.
            raise ConfigError("capacityPromptTokens", "only with prefillTokensPerSecond set", self.capacity_prompt_tokens)

    def to_metadata(self) -> dict[str, str]:
        """The inverse of from_metadata, for rendering and tests."""
        out = {}
        by_name = {name: key for key, (name, _) in _KEYS.items()}
        for f in fields(self):
            key = by_name.get(f.name)
            value = getattr(self, f.name)
            if key is None or (value is None and key not in _AUTO_KEYS):
                continue
            out[key] = AUTO if value is None else str(value)
        return out


def _number(low: float, high: float = math.inf, *, low_open: bool = True, high_open: bool = False):
    lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
    expected = f"a number in {lo}{low}, {high}{hi}"

    def parse(key: str, raw: str) -> float:
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise ConfigError(key, expected, raw) from None
        if not math.isfinite(value):
            raise ConfigError(key, expected, raw)
        if value < low or (low_open and value == low) or value > high or (high_open and value == high):
            raise ConfigError(key, expected, raw)
        return value

    return parse


def _number_or_auto(low: float):
    number = _number(low)

    def parse(key: str, raw: str) -> float | None:
        if str(raw).strip().lower() == AUTO:
            return None
        try:
            return number(key, raw)
        except ConfigError:
            raise ConfigError(key, f"a number > {low} or 'auto'", raw) from None

    return parse


def _choice(options: tuple[str, ...]):
    def parse(key: str, raw: str) -> str:
        if raw not in options:
            raise ConfigError(key, "one of " + "|".join(options), raw)
        return raw

    return parse


_KEYS = {
    "ttftSloSeconds": ("ttft_slo_s", _number(0.0, 3600.0)),
    "tpotSloSeconds": ("tpot_slo_s", _number(0.0, 60.0)),
    "requestClass": ("request_class", _choice(REQUEST_CLASSES)),
    "expectedPrefillSeconds": ("expected_prefill_s", _number(0.0, 3600.0, low_open=False)),
    "scaleUpLatencySeconds": ("scale_up_latency_s", _number_or_auto(0.0)),
    "perReplicaCapacity": ("per_replica_capacity_rps", _number_or_auto(0.0)),
    "maxConcurrency": ("max_concurrency", _number_or_auto(0.0)),
    "targetUtilization": ("target_utilization", _number(0.0, 1.0)),
    "prefillTokensPerSecond": ("prefill_tps", _number(0.0, 1e9)),
    "capacityPromptTokens": ("capacity_prompt_tokens", _number(0.0, 1e9)),
    "burstReplicas": ("burst_replicas", _number(0.0, 1000.0, low_open=False)),
    "burstRecurrence": ("burst_recurrence", _number(0.0, 1.0, low_open=False)),
    "yellowEnterRatio": ("yellow_enter_ratio", _number(0.0, 10.0)),
    "yellowExitRatio": ("yellow_exit_ratio", _number(0.0, 10.0)),
    "redEnterRatio": ("red_enter_ratio", _number(0.0, 10.0)),
    "redExitRatio": ("red_exit_ratio", _number(0.0, 10.0)),
    "stateHoldSeconds": ("state_hold_s", _number(0.0, 3600.0, low_open=False)),
    "backlogDrainRatio": ("backlog_drain_ratio", _number(0.0, 1.0)),
    "rateWindowSeconds": ("rate_window_s", _number(1.0, 3600.0, low_open=False)),
    "maxStalenessSeconds": ("max_staleness_s", _number(0.0, 3600.0)),
    "capacityPrior": ("capacity_prior_rps", _number(0.0)),
    "scaleUpLatencyPrior": ("scale_up_prior_s", _number(0.0, 3600.0)),
}

METADATA_KEYS = tuple(_KEYS)
_AUTO_KEYS = {"scaleUpLatencySeconds", "perReplicaCapacity", "maxConcurrency"}
