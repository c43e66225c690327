"""The source interface and what a source reports for one model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from scaler.server.metadata import SourceSpec

# Bounds on what one target or Prometheus answer may cost us (docs/scaler.md, "Bounds").
MAX_RESPONSE_BYTES = 16 << 20  # a Prometheus answer for every model of a round
MAX_PAGE_BYTES = 4 << 20  # one /metrics page after decompression (vLLM's is ~100 KB)
MAX_CONCURRENT_FETCHES = 32  # /metrics fetches in flight at once


class SourceError(Exception):
    """The source could not say anything about a model (or any model, when raised by a round)."""


class NoSeries(SourceError):
    """The source answered, without any series of this model: no evidence either way (the pods
    may be gone, or the path from Prometheus to them). Never read as zero replicas."""


@dataclass(frozen=True)
class ModelQuery:
    model: str
    spec: SourceSpec


@dataclass(frozen=True)
class Observation:
    """vLLM's queue for one model at one instant, summed over its ready replicas."""

    time: float  # when the data was measured (the scrape time), epoch seconds
    waiting: float
    running: float
    ready_replicas: int
    completed_total: float | None  # monotonic across replica restarts (see counters.py)
    # vllm:generation_tokens_total, monotonic the same way; None when no replica reports it.
    generation_tokens_total: float | None = None
    # vllm:request_time_per_output_token_seconds: (le, count) cumulative, +Inf last, each count
    # monotonic the same way; () when no replica reports the histogram.
    tpot_buckets: tuple[tuple[float, float], ...] = ()
    # vllm:prompt_tokens_total, monotonic the same way; None when no replica reports it.
    prompt_tokens_total: float | None = None
    note: str = ""  # why a value is what it is, when that is not obvious (e.g. no ready pod)


class Source(Protocol):
    kind: str  # "prometheus" | "scrape", a label on our own metrics

    async def observe(self, queries: Sequence[ModelQuery], now: float) -> dict[str, Observation | SourceError]:
        """One round of I/O for every query; raises SourceError when nothing could be read."""

    async def close(self) -> None: ...
