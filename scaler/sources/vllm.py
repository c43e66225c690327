"""vLLM's /metrics page, read with prometheus_client's parser: the series the policy needs."""

from __future__ import annotations

import math
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

WAITING = "vllm:num_requests_waiting"
RUNNING = "vllm:num_requests_running"
COMPLETED = "vllm:request_success_total"
# Output tokens made (a counter, in the v0 and v1 engines alike): its rate gives the batch's time
# per output token, the policy's TPOT term.
GENERATED = "vllm:generation_tokens_total"
# Prompt tokens prefilled (a counter, counted at each request's first token): its bursts are the
# policy's prefill headroom.
PROMPT = "vllm:prompt_tokens_total"
# Each finished request's mean time per output token (vLLM V1, observed at the finish; 0 for a
# single token): its buckets say how many missed the TPOT SLO, the policy's slow-token term.
TPOT = "vllm:request_time_per_output_token_seconds"
TPOT_BUCKET = f"{TPOT}_bucket"
# vLLM V1's bucket bounds for its token-latency histograms (inter-token latency and the
# per-request mean, vllm:request_time_per_output_token_seconds), as in a real 0.29.0 scrape.
TOKEN_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
                         20.0, 40.0, 80.0)
_WANTED = (WAITING, RUNNING, COMPLETED, GENERATED, PROMPT, TPOT_BUCKET)
_PREFIXES = tuple(f"{name}{sep}" for name in _WANTED for sep in ("{", " "))


@dataclass(frozen=True)
class ModelSample:
    """One model on one replica (engines summed)."""

    waiting: float
    running: float
    completed: float | None  # request_success_total over finished reasons; None if absent or NaN
    generated: float | None = None  # generation_tokens_total; None if absent or NaN
    tpot_buckets: tuple[tuple[float, float], ...] = ()  # (le, cumulative count), le ascending, +Inf last; () if absent
    prompt: float | None = None  # prompt_tokens_total; None if absent or NaN


def parse_page(text: str) -> dict[str, ModelSample]:
    """Per model_name on this page. A model whose waiting or running value is NaN or missing is
    left out: the replica cannot be counted as serving it. The same series twice (same name and
    labels) is a malformed page: ValueError, not a sum (it would double the queue)."""
    # A vLLM page is ~600 lines; parsing only the series we read keeps a scrape cheap.
    kept = "\n".join(line for line in text.splitlines() if line.startswith(_PREFIXES))
    sums: dict[str, dict[str, float]] = {}
    buckets: dict[str, dict[float, float]] = {}
    seen: set[tuple] = set()
    for family in text_string_to_metric_families(kept + "\n"):
        for sample in family.samples:
            model = sample.labels.get("model_name")
            if model is None or sample.name not in _WANTED:
                continue
            series = (sample.name, tuple(sorted(sample.labels.items())))
            if series in seen:
                raise ValueError(f"duplicate series {sample.name} for model_name={model[:100]!r}")
            seen.add(series)
            if sample.name == TPOT_BUCKET:
                le = bucket_bound(sample.labels.get("le"))
                if le is not None and math.isfinite(sample.value):
                    counts = buckets.setdefault(model, {})
                    counts[le] = counts.get(le, 0.0) + sample.value
                continue
            values = sums.setdefault(model, {})
            values[sample.name] = values.get(sample.name, 0.0) + sample.value
    out = {}
    for model, values in sums.items():
        waiting, running = values.get(WAITING), values.get(RUNNING)
        if waiting is None or running is None or not (math.isfinite(waiting) and math.isfinite(running)):
            continue
        out[model] = ModelSample(max(0.0, waiting), max(0.0, running), _finite(values.get(COMPLETED)),
                                 _finite(values.get(GENERATED)), _cumulative(buckets.get(model, {})),
                                 _finite(values.get(PROMPT)))
    return out


def tpot_over(buckets: tuple[tuple[float, float], ...], slo_s: float | None) -> tuple[float | None, float | None]:
    """(finished requests whose mean TPOT may exceed `slo_s`, finished requests) from the
    histogram's cumulative buckets: those above the largest bound at or under the SLO, as an `le`
    bucket reads, so never fewer than missed it. (None, None) without a TPOT SLO or without a
    +Inf bucket (no count)."""
    if slo_s is None or not buckets or not math.isinf(buckets[-1][0]):
        return None, None
    finished = buckets[-1][1]
    within = [count for le, count in buckets if le <= slo_s]  # ascending: the last is the largest bound
    return max(0.0, finished - (within[-1] if within else 0.0)), finished


def bucket_bound(le: str | None) -> float | None:
    """A histogram bucket's `le` label as a number (+Inf included); None if it is not one."""
    try:
        bound = float(le) if le is not None else None
    except ValueError:
        return None
    return bound if bound is not None and not math.isnan(bound) and bound >= 0 else None


def _cumulative(counts: dict[float, float]) -> tuple[tuple[float, float], ...]:
    """Buckets in ascending order; a page without its +Inf bucket has no count: none at all."""
    if math.inf not in counts:
        return ()
    return tuple(sorted(counts.items()))


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
