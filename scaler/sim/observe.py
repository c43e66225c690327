"""What policies may look at: a read-only view of the fleet at one instant.

The simulator builds a FleetView at every control tick. Gauges are as vLLM exports them
(`vllm:num_requests_running`, `vllm:num_requests_waiting`, `vllm:kv_cache_usage_perc`); `busy_s` is
the cumulative time the GPU spent in engine steps (the source of a DCGM-style utilisation);
`prefill_tokens` is the prompt tokens routed to the replica whose first token has not come yet
(llm-d's `llm_d_epp_inflight_tokens`, as the router counts it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from scaler.engine import MemberState
from scaler.sources.vllm import TOKEN_LATENCY_BUCKETS


class MemberView(NamedTuple):
    """One replica as a policy sees it. Immutable like a frozen dataclass, built for every
    replica at every control tick at a third of the cost."""

    index: int
    state: MemberState
    created_at: float
    ready_at: float
    running: int
    waiting: int
    kv_usage: float
    busy_s: float
    prefill_tokens: int
    completed: int

    @property
    def ongoing(self) -> int:
        return self.running + self.waiting

    @property
    def scraped(self) -> bool:
        """A pod whose /metrics answers: ready or draining (a starting vLLM does not serve yet)."""
        return self.state is not MemberState.STARTING


@dataclass(frozen=True)
class FleetView:
    time: float
    members: tuple[MemberView, ...]
    desired: int  # the Deployment's spec.replicas
    completed_total: int  # vllm:request_success_total over the fleet's life (retired pods included)
    admitted_total: int  # attempts the gateway let through
    offered_total: int  # every attempt the gateway saw, refused ones included (what the RLS counts)
    held: int  # requests queued at the gateway (no replica may take them yet)
    generation_total: int = 0  # vllm:generation_tokens_total over the fleet's life (retired pods included)
    # vllm:request_time_per_output_token_seconds over the fleet's life: finished requests per
    # bucket of scaler.sources.vllm.TOKEN_LATENCY_BUCKETS (the last one is +Inf), not cumulative.
    tpot_buckets: tuple[int, ...] = ()
    prompt_total: int = 0  # vllm:prompt_tokens_total over the fleet's life (retired pods included)

    @property
    def tpot_histogram(self) -> tuple[tuple[float, float], ...]:
        """The histogram as a scrape reads it: (le, cumulative count), +Inf last."""
        bounds, total, out = (*TOKEN_LATENCY_BUCKETS, math.inf), 0, []
        for bound, count in zip(bounds, self.tpot_buckets):
            total += count
            out.append((bound, float(total)))
        return tuple(out)

    def _count(self, state: MemberState) -> int:
        return sum(1 for m in self.members if m.state is state)

    @property
    def ready(self) -> int:
        return self._count(MemberState.READY)

    @property
    def starting(self) -> int:
        return self._count(MemberState.STARTING)

    @property
    def scraped(self) -> tuple[MemberView, ...]:
        return tuple(m for m in self.members if m.scraped)

    @property
    def running(self) -> int:
        return sum(m.running for m in self.members)

    @property
    def waiting(self) -> int:
        return sum(m.waiting for m in self.members)

    def starting_ages(self) -> tuple[float, ...]:
        return tuple(self.time - m.created_at for m in self.members if m.state is MemberState.STARTING)
