"""What one replica can do, measured on the replica model itself (as an operator would calibrate).

- `saturated_throughput`: completions per second of one replica whose queue never empties, on a
  sample of the workload's own request lengths (what the policy core learns as mu / N while the
  queue is non-empty);
- `prefill_velocity`: llm-d's `peakPrefillThroughput` calibration, V_P = CHUNK / TTFT of one
  CHUNK-token prompt on an idle replica (CHUNK = --max-num-batched-tokens);
- `idle_ttft`: the TTFT floor of a prompt on an idle replica.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from scaler.engine import EngineParams, Replica, Request
from scaler.workloads import Arrival

SAMPLE_SIZE = 600
# Completions in this middle share of the run measure the steady rate (the first requests
# finish while the batch fills, the last ones decode alone).
STEADY_SHARE = (0.2, 0.8)


@dataclass(frozen=True)
class Calibration:
    capacity_rps: float  # saturated completions per second of one replica
    prefill_velocity: float  # V_P, prompt tokens per second
    median_prompt_tokens: int
    median_prefill_s: float  # idle TTFT of the median prompt
    mean_prompt_tokens: float
    mean_output_tokens: float


def _fits(params: EngineParams, prompt: int, output: int) -> tuple[int, int]:
    output = max(1, min(output, params.max_model_len - 1))
    return max(1, min(prompt, params.max_model_len - output)), output


def saturated_throughput(params: EngineParams, lengths: list[tuple[int, int]]) -> float:
    replica = Replica(params)
    for i, (prompt, output) in enumerate(lengths):
        prompt, output = _fits(params, prompt, output)
        replica.add(Request(id=str(i), prompt_tokens=prompt, max_tokens=output, arrival_time=0.0), 0.0)
    done: list[float] = []
    now = 0.0
    while replica.has_work:
        outcome = replica.step(now)
        done.extend(outcome.end for _ in outcome.finished)
        now = outcome.end
    lo, hi = (int(len(done) * share) for share in STEADY_SHARE)
    span = done[hi - 1] - done[lo]
    if span <= 0:
        return len(done) / max(now, 1e-9)
    return (hi - 1 - lo) / span


def idle_ttft(params: EngineParams, prompt_tokens: int) -> float:
    replica = Replica(params)
    prompt, _ = _fits(params, prompt_tokens, 1)
    request = Request(id="probe", prompt_tokens=prompt, max_tokens=1, arrival_time=0.0)
    replica.add(request, 0.0)
    now = 0.0
    while request.first_token_time is None:
        now = replica.step(now).end
    return request.first_token_time


def prefill_velocity(params: EngineParams) -> float:
    chunk = min(params.max_num_batched_tokens, params.max_model_len - 1)
    return chunk / idle_ttft(params, chunk)


def calibrate(params: EngineParams, arrivals: list[Arrival], seed: int) -> Calibration:
    if not arrivals:
        raise ValueError("arrivals: expected at least one request to calibrate on")
    rng = random.Random(seed)
    sample = [(a.prompt_tokens, a.max_tokens) for a in
              (rng.sample(arrivals, SAMPLE_SIZE) if len(arrivals) > SAMPLE_SIZE else arrivals)]
    median_prompt = int(statistics.median(p for p, _ in sample))
    return Calibration(
        capacity_rps=saturated_throughput(params, sample),
        prefill_velocity=prefill_velocity(params),
        median_prompt_tokens=median_prompt,
        median_prefill_s=idle_ttft(params, median_prompt),
        mean_prompt_tokens=statistics.fmean(p for p, _ in sample),
        mean_output_tokens=statistics.fmean(o for _, o in sample),
    )
