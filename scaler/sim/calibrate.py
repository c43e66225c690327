"""What one replica can do, measured on the replica model itself (as an operator would calibrate).

- `saturated_throughput`: completions per second of one replica whose queue never empties, on a
  sample of the workload's own request lengths (what the policy core learns as mu / N while the
  queue is non-empty);
- `prefill_velocity`: llm-d's `peakPrefillThroughput` calibration, V_P = CHUNK / TTFT of one
  CHUNK-token prompt on an idle replica (CHUNK = --max-num-batched-tokens);
- `idle_ttft`: the TTFT floor of a prompt on an idle replica;
- `safe_concurrency`: the launch checklist's first measurement, done as `slo-scaler calibrate`
  does it (same search, same judgement) but closed-loop on the replica model: the largest
  concurrency whose TTFT p95 meets SAFE_TTFT_SHARE of the TTFT SLO (the rest is the queue's
  budget) and, when the SLO has a TPOT part, whose TPOT p95 meets it: the batch a replica holds
  within the SLO, both parts. (With TTFT only, Azure code's safe level was 50 requests, at which
  every output token is slower than 100 ms; filling such slots during a burst cost 1.6 points
  of attainment on one seed.) Each TTFT is judged as the median prompt would have seen it (its
  own idle TTFT replaced by the median prompt's, `judge(own_prefill=)`): with one prompt size,
  as `slo-scaler calibrate` sends, that is the TTFT itself; on a length mix it keeps the longest
  prompts' own prefill from deciding the batch (Mooncake's safe concurrency was 1 on four seeds of five, 6 on the fifth).
"""

from __future__ import annotations

import functools
import itertools
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from scaler.engine import EngineParams, Replica, Request
from scaler.loadgen.calibrate import Level, judge, next_concurrency, safe_level
from scaler.loadgen.client import OK, Result
from scaler.workloads import Arrival

# 600 draws moved the saturated throughput by up to 23% from seed to seed on heavy-tailed mixes
# (agent-sessions, diurnal-chat).
SAMPLE_SIZE = 2400
MEASURED_COMPLETIONS = 4800
# The batch may spend this share of the TTFT SLO on its own prefill contention; the rest is what
# the queue may use.
SAFE_TTFT_SHARE = 0.5


@dataclass(frozen=True)
class Calibration:
    capacity_rps: float  # saturated completions per second of one replica
    prefill_velocity: float  # V_P, prompt tokens per second
    median_prompt_tokens: int
    median_prefill_s: float  # idle TTFT of the median prompt
    mean_prompt_tokens: float
    mean_output_tokens: float
    safe_concurrency: int  # requests one replica holds within the SLO (TTFT p95 within SAFE_TTFT_SHARE, TPOT p95)


def _fits(params: EngineParams, prompt: int, output: int) -> tuple[int, int]:
    output = max(1, min(output, params.max_model_len - 1))
    return max(1, min(prompt, params.max_model_len - output)), output


def saturated_throughput(params: EngineParams, lengths: list[tuple[int, int]], seed: int,
                         completions: int = MEASURED_COMPLETIONS) -> float:
    """Completions per second of one replica whose waiting queue never empties: more requests in
    flight than its batch can hold, each finished one replaced at once by a random draw from
    `lengths`, counted over `completions` after as many completions as were in flight at
    the start (the opening requests start together, and the short ones finish first).

    Two earlier measurements read high on heavy-tailed mixes: starting the sample at once and
    counting its middle 60% of completions (1.6x on a Zipf mix: the long requests finished after
    the counted share), and replacing each request by the next of the sample in order (one pass
    read 1.5x the long-run rate on a 10%-long mix: the same clumps of long requests came round
    every pass); both figures are from ad-hoc probes when this was written. Random draws converge:
    `scripts/calibration_spread.py` prints the 4,800-completion figure beside a 12,000 one."""
    return throughput_in_flight(params, lengths, max(len(lengths), params.max_num_seqs + 1), seed, completions)


def throughput_in_flight(params: EngineParams, lengths: list[tuple[int, int]], in_flight: int, seed: int,
                         completions: int = MEASURED_COMPLETIONS) -> float:
    """Completions per second of one replica holding exactly `in_flight` requests, each finished one
    replaced by a random draw from `lengths`, counted over `completions` after as many as were in
    flight at the start. Above the engine's batch limit requests wait: the saturated throughput."""
    rng = random.Random(seed)
    started = _keep_full(params, lambda: rng.choice(lengths), in_flight, stop_after=in_flight + completions)
    done = sorted(r.finish_time for r in started if r.finish_time is not None)
    return (completions - 1) / (done[-1] - done[-completions])


def _keep_full(params: EngineParams, draw: Callable[[], tuple[int, int]], concurrency: int,
               total: int | None = None, stop_after: int | None = None) -> list[Request]:
    """`concurrency` requests in flight on one replica, each replaced by a new one of `draw()`'s
    lengths the moment it finishes, until `total` have started (then drained) or `stop_after` have
    finished; the started requests, in order of start."""
    replica, now, started, finished = Replica(params), 0.0, [], 0

    def start(at: float) -> None:
        prompt, output = _fits(params, *draw())
        request = Request(id=str(len(started)), prompt_tokens=prompt, max_tokens=output, arrival_time=at)
        replica.add(request, at)
        started.append(request)

    for _ in range(concurrency):
        start(0.0)
    while replica.has_work and (stop_after is None or finished < stop_after):
        outcome = replica.step(now)
        now = outcome.end
        for _ in outcome.finished:
            finished += 1
            if total is None or len(started) < total:
                start(now)
    return started


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


def closed_loop(params: EngineParams, lengths: list[tuple[int, int]], concurrency: int) -> list[Result]:
    """Exactly `concurrency` requests in flight on one replica, 3 x concurrency of them in all,
    each replaced the moment it finishes; results in order of start."""
    cycle = itertools.cycle(lengths)
    started = _keep_full(params, lambda: next(cycle), concurrency, total=3 * concurrency + 20)
    return [Result(id=r.id, request_class="interactive", tenant="default", prompt_tokens=r.prompt_tokens,
                   max_tokens=r.max_tokens, scheduled=r.arrival_time, start=r.arrival_time, outcome=OK,
                   ttft_s=r.first_token_time - r.arrival_time, e2e_s=r.finish_time - r.arrival_time,
                   tpot_s=((r.finish_time - r.first_token_time) / (r.output_tokens - 1)) if r.output_tokens > 1 else None,
                   output_tokens=r.output_tokens) for r in started]


def safe_concurrency(params: EngineParams, lengths: list[tuple[int, int]], target_p95_s: float,
                     tpot_target_p95_s: float | None = None) -> int:
    alone = functools.cache(lambda prompt: idle_ttft(params, prompt))
    levels: list[Level] = []
    concurrency, _ = next_concurrency(levels, params.max_num_seqs)
    while concurrency is not None:
        levels.append(judge(concurrency, closed_loop(params, lengths, concurrency), target_p95_s, tpot_target_p95_s,
                            own_prefill=lambda result: alone(result.prompt_tokens)))
        concurrency, _ = next_concurrency(levels, params.max_num_seqs)
    best = safe_level(levels)
    return best.concurrency if best else 1


def _sample(arrivals: list[Arrival], seed: int, size: int = SAMPLE_SIZE) -> list[tuple[int, int]]:
    if not arrivals:
        raise ValueError("arrivals: expected at least one request to calibrate on")
    rng = random.Random(seed)
    return [(a.prompt_tokens, a.max_tokens) for a in
            (rng.sample(arrivals, size) if len(arrivals) > size else arrivals)]


def capacity_rps(params: EngineParams, arrivals: list[Arrival], seed: int) -> float:
    """Saturated completions per second of one replica on a sample of these arrivals' lengths."""
    return saturated_throughput(params, _sample(arrivals, seed), seed)


def calibrate(params: EngineParams, arrivals: list[Arrival], seed: int, ttft_slo_s: float,
              tpot_slo_s: float | None = None) -> Calibration:
    sample = _sample(arrivals, seed)
    median_prompt = int(statistics.median(p for p, _ in sample))
    return Calibration(
        capacity_rps=saturated_throughput(params, sample, seed),
        prefill_velocity=prefill_velocity(params),
        median_prompt_tokens=median_prompt,
        median_prefill_s=idle_ttft(params, median_prompt),
        mean_prompt_tokens=statistics.fmean(p for p, _ in sample),
        mean_output_tokens=statistics.fmean(o for _, o in sample),
        safe_concurrency=safe_concurrency(params, sample, SAFE_TTFT_SHARE * ttft_slo_s, tpot_slo_s),
    )
