"""vLLM's /metrics page, read with prometheus_client's parser: the three series the policy needs."""

from __future__ import annotations

import math
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

WAITING = "vllm:num_requests_waiting"
RUNNING = "vllm:num_requests_running"
COMPLETED = "vllm:request_success_total"
_WANTED = (WAITING, RUNNING, COMPLETED)
_PREFIXES = tuple(f"{name}{sep}" for name in _WANTED for sep in ("{", " "))


@dataclass(frozen=True)
class ModelSample:
    """One model on one replica (engines summed)."""

    waiting: float
    running: float
    completed: float | None  # request_success_total over finished reasons; None if absent or NaN


def parse_page(text: str) -> dict[str, ModelSample]:
    """Per model_name on this page. A model whose waiting or running value is NaN or missing is
    left out: the replica cannot be counted as serving it. The same series twice (same name and
    labels) is a malformed page: ValueError, not a sum (it would double the queue)."""
    # A vLLM page is ~600 lines; parsing only the three series we read keeps a scrape cheap.
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
        completed = values.get(COMPLETED)
        out[model] = ModelSample(max(0.0, waiting), max(0.0, running),
                                 completed if completed is not None and math.isfinite(completed) else None)
    return out
