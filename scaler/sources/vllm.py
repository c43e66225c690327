"""vLLM's /metrics page, read with prometheus_client's parser: the four series the policy needs."""

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
_WANTED = (WAITING, RUNNING, COMPLETED, GENERATED)
_PREFIXES = tuple(f"{name}{sep}" for name in _WANTED for sep in ("{", " "))


@dataclass(frozen=True)
class ModelSample:
    """One model on one replica (engines summed)."""

    waiting: float
    running: float
    completed: float | None  # request_success_total over finished reasons; None if absent or NaN
    generated: float | None = None  # generation_tokens_total; None if absent or NaN


def parse_page(text: str) -> dict[str, ModelSample]:
    """Per model_name on this page. A model whose waiting or running value is NaN or missing is
    left out: the replica cannot be counted as serving it. The same series twice (same name and
    labels) is a malformed page: ValueError, not a sum (it would double the queue)."""
    # A vLLM page is ~600 lines; parsing only the series we read keeps a scrape cheap.
    kept = "\n".join(line for line in text.splitlines() if line.startswith(_PREFIXES))
    sums: dict[str, dict[str, float]] = {}
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
            values = sums.setdefault(model, {})
            values[sample.name] = values.get(sample.name, 0.0) + sample.value
    out = {}
    for model, values in sums.items():
        waiting, running = values.get(WAITING), values.get(RUNNING)
        if waiting is None or running is None or not (math.isfinite(waiting) and math.isfinite(running)):
            continue
        out[model] = ModelSample(max(0.0, waiting), max(0.0, running), _finite(values.get(COMPLETED)),
                                 _finite(values.get(GENERATED)))
    return out


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
