"""`slo-scaler calibrate`: the safe concurrency and capacity of one replica under a TTFT p95 target.

The launch checklist's first measurement: fix the model, the GPU and the length distribution,
then step the concurrency against one replica and find the largest concurrency whose TTFT p95
still meets the target. The search doubles the concurrency until a level misses the target, then
bisects between the last level that met it and the first that missed. Each level runs closed
loop (exactly c requests in flight), drops its first c results (the ramp) and reports:

- TTFT p50/p95/p99 and TPOT p50 of the rest;
- throughput by Little's law, c / mean end-to-end latency, which in a closed loop is the rate of
  completions without having to cut a measurement window.

Once the search has found a level that misses, one more level runs at SATURATION_FACTOR x that
concurrency: its throughput is the replica's saturated rate, what the scaler learns as its capacity
while requests wait and what the simulator validates the policy with (a replica kept full).

The result is the spec's calibration block: safeConcurrency, perReplicaCapacity (the saturated
throughput; the safe level's when no level missed) and expectedPrefillSeconds (TTFT p50 at
concurrency 1, where nothing queues).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from scaler.emulator.clock import ModelClock
from scaler.loadgen.client import OK, Client, Result
from scaler.loadgen.endpoint import Endpoint
from scaler.loadgen.retry import Backoff
from scaler.loadgen.runner import closed_loop, discover_model, new_session
from scaler.workloads import Arrival

# The saturation level runs at this multiple of the lowest concurrency that missed the target.
SATURATION_FACTOR = 2


@dataclass(frozen=True)
class Level:
    """One measured concurrency level and whether it met the target (with the reason)."""

    concurrency: int
    requests: int  # measured (after dropping the ramp)
    failed: int  # refused or errored, ramp included
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    ttft_p99_s: float | None
    tpot_p50_s: float | None
    e2e_mean_s: float | None
    throughput_rps: float | None
    passed: bool
    reason: str
    saturation: bool = False  # measured past the search, for the saturated throughput

    def to_json(self) -> dict:
        return asdict(self)


def judge(concurrency: int, results: Sequence[Result], target_p95_s: float,
          tpot_target_p95_s: float | None = None, *, own_prefill: Callable[[Result], float] | None = None) -> Level:
    """Measure a level from its results (ordered by start) against the TTFT p95 target and, when
    given, the TPOT p95 target: a batch that keeps its first tokens in time but slows every
    output token past the SLO does not hold the SLO either.

    With `own_prefill` (a request's TTFT alone on an idle replica), each TTFT is judged as the
    median prompt would have seen it: its own prefill replaced by the median one. With prompts of
    one size (`slo-scaler calibrate`) that is the TTFT itself; with a length mix it keeps the
    longest prompts' own prefill, which no batch size changes, from deciding the level (Mooncake:
    the p95 prompt alone takes 1.24 s against a 1 s target, so every level missed and one request
    was called safe by default)."""
    failed = sum(r.outcome != OK for r in results)
    kept = [r for r in results[concurrency:] if r.outcome == OK]
    if failed or not kept:
        why = f"{failed} of {len(results)} requests failed" if failed else "no request finished after the ramp"
        return Level(concurrency, len(kept), failed, None, None, None, None, None, None, False, why)
    ttft = np.asarray([r.ttft_s for r in kept])
    tpots = [r.tpot_s for r in kept if r.tpot_s is not None]
    e2e_mean = float(np.mean([r.e2e_s for r in kept]))
    p95 = float(np.percentile(ttft, 95))
    if own_prefill is None:
        judged, what = p95, "TTFT p95"
    else:
        own = [own_prefill(r) for r in kept]
        typical = float(np.median(own))
        judged = float(np.percentile([r.ttft_s - o + typical for r, o in zip(kept, own)], 95))
        what = "TTFT p95 at the median prompt's prefill"
    passed = judged <= target_p95_s
    relation = "meets" if passed else "misses"
    why = f"{what} {judged:.3f}s {relation} the {target_p95_s:g}s target"
    if tpot_target_p95_s is not None and tpots:
        tpot_p95 = float(np.percentile(tpots, 95))
        slow = tpot_p95 > tpot_target_p95_s
        passed = passed and not slow
        why += f"; TPOT p95 {tpot_p95 * 1000:.0f} ms {'misses' if slow else 'meets'} the {tpot_target_p95_s * 1000:g} ms target"
    return Level(
        concurrency, len(kept), 0, float(np.percentile(ttft, 50)), p95, float(np.percentile(ttft, 99)),
        float(np.median(tpots)) if tpots else None, e2e_mean, concurrency / e2e_mean, passed, why)


def next_concurrency(levels: Sequence[Level], max_concurrency: int, resolution: float = 0.05) -> tuple[int | None, str]:
    """The next level to measure and why, or (None, why the search is over)."""
    if not levels:
        return 1, "start at concurrency 1"
    first_miss = min((l.concurrency for l in levels if not l.passed), default=None)
    best = max((l.concurrency for l in levels if l.passed and (first_miss is None or l.concurrency < first_miss)),
               default=None)
    if best is None:
        return None, f"concurrency {first_miss} already misses the target"
    if first_miss is None:
        if best >= max_concurrency:
            return None, f"concurrency {best} meets the target and is the --max-concurrency limit"
        nxt = min(2 * best, max_concurrency)
        return nxt, f"{best} meets the target: doubling to {nxt}"
    if first_miss - best <= max(1, int(resolution * best)):
        return None, f"{best} meets the target and {first_miss} misses it"
    mid = (best + first_miss) // 2
    return mid, f"{best} meets the target and {first_miss} misses it: bisecting at {mid}"


def safe_level(levels: Sequence[Level]) -> Level | None:
    """The highest level of the search that met the target below the lowest that missed it."""
    searched = [l for l in levels if not l.saturation]
    first_miss = min((l.concurrency for l in searched if not l.passed), default=None)
    candidates = [l for l in searched if l.passed and (first_miss is None or l.concurrency < first_miss)]
    return max(candidates, key=lambda l: l.concurrency) if candidates else None


def saturation_concurrency(levels: Sequence[Level]) -> int | None:
    """Where to measure the saturated throughput once the search is over: SATURATION_FACTOR x the
    lowest concurrency that missed (None when none did). Where the miss was a queue (more requests
    than the engine's batch), twice as many keep it from emptying; where it was the TPOT of a
    large batch, the batch's throughput has mostly flattened by then (the simulator's replica on
    five of the fourth and fifth sets' mixes: 0.99-1.02 of the saturated rate at half the safe
    concurrency, 1.06-1.08 at it; `scripts/throughput_by_concurrency.py`)."""
    first_miss = min((l.concurrency for l in levels if not l.passed and not l.saturation), default=None)
    return None if first_miss is None else SATURATION_FACTOR * first_miss


def capacity_level(levels: Sequence[Level]) -> Level | None:
    """The level whose throughput is `perReplicaCapacity`: the saturation level, else the safe one."""
    return next((l for l in levels if l.saturation and l.throughput_rps), None) or safe_level(levels)


def level_requests(concurrency: int, prompt_tokens: int, max_tokens: int, count: int, spread: float,
                   rng: random.Random) -> list[Arrival]:
    """`count` requests of fixed prompt size; output sizes vary by +-spread so completions desynchronise."""
    low, high = max(1, round(max_tokens * (1 - spread))), max(1, round(max_tokens * (1 + spread)))
    return [Arrival(0.0, prompt_tokens, rng.randint(low, high)) for _ in range(count)]


def calibration_block(levels: Sequence[Level], target_p95_s: float, note: str, *, prompt_tokens: int) -> tuple[str, dict | None]:
    """The spec's `calibration:` block as YAML text (commented), and its values (None when nothing passed).
    `prompt_tokens` is the prompt every level sent: the mix the capacity holds for."""
    safe = safe_level(levels)
    first = next((l for l in levels if l.concurrency == 1), None)
    if safe is None or first is None or first.ttft_p50_s is None:
        return f"# {note}\n# no concurrency met the TTFT p95 target of {target_p95_s:g}s: no calibration block\n", None
    capacity = capacity_level(levels)
    measured_at = (f"saturated: {capacity.concurrency} in flight" if capacity.saturation
                   else "at safeConcurrency: no level missed, so no saturated level was measured")
    values = {
        "safeConcurrency": safe.concurrency,
        "perReplicaCapacity": round(capacity.throughput_rps, 3),
        "scaleUpLatencySeconds": "auto",
        "expectedPrefillSeconds": round(first.ttft_p50_s, 4),
        "capacityPromptTokens": prompt_tokens,
    }
    lines = [
        f"# {note}",
        "calibration:",
        f"  safeConcurrency: {values['safeConcurrency']}          "
        f"# at this concurrency: {safe.reason}",
        f"  perReplicaCapacity: {values['perReplicaCapacity']}    # requests/s one replica completes, {measured_at}",
        "  scaleUpLatencySeconds: auto  # or measure: scale-up decision to Ready on a cold node (node, image, weights)",
        f"  expectedPrefillSeconds: {values['expectedPrefillSeconds']}  # TTFT p50 at concurrency 1 (nothing queued)",
        f"  capacityPromptTokens: {prompt_tokens}  # the prompt every level sent: perReplicaCapacity holds for it",
    ]
    return "\n".join(lines) + "\n", values


# --- the measurement loop (I/O) ------------------------------------------------------------


@dataclass(frozen=True)
class CalibrateConfig:
    url: str
    target_p95_s: float
    tpot_target_p95_s: float | None = None  # None: TTFT alone judges a level
    api: str | None = None
    model: str | None = None
    speed: float = 1.0
    prompt_tokens: int = 512
    max_tokens: int = 128
    spread: float = 0.25
    min_requests: int = 30
    rounds: int = 4  # each level sends at least rounds x concurrency requests
    max_concurrency: int = 256
    resolution: float = 0.05
    timeout_s: float = 300.0
    seed: int = 1

    def check(self) -> "CalibrateConfig":
        for name in ("target_p95_s", "speed", "timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: expected a number > 0, got {getattr(self, name)!r}")
        if self.tpot_target_p95_s is not None and not self.tpot_target_p95_s > 0:
            raise ValueError(f"tpot_target_p95_s: expected a number > 0, got {self.tpot_target_p95_s!r}")
        for name in ("prompt_tokens", "max_tokens", "min_requests", "rounds", "max_concurrency"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
        if not 0 <= self.spread < 1:
            raise ValueError(f"spread: expected a fraction in [0, 1), got {self.spread!r}")
        if not 0 < self.resolution < 1:
            raise ValueError(f"resolution: expected a fraction in (0, 1), got {self.resolution!r}")
        return self


async def run_calibration(config: CalibrateConfig, on_level=None, on_progress=None) -> tuple[str, list[Level]]:
    """Measure levels until the search ends; returns the model name and the levels in measuring order.

    `on_level(level, why_next)` is called after each level, `on_progress(concurrency, done, total)`
    after each request.
    """
    config.check()
    endpoint = Endpoint.from_url(config.url, config.api)
    clock = ModelClock(config.speed)
    rng = random.Random(config.seed)
    levels: list[Level] = []
    async with new_session(config.timeout_s / config.speed) as session:
        model = config.model or await discover_model(session, endpoint.models_url)
        # Calibration wants to see refusals, not to retry past them.
        client = Client(session, endpoint, model, backoff=Backoff(max_retries=0), clock=clock.now,
                        sleep=lambda s: clock.sleep_until(clock.now() + s), rng=rng,
                        timeout_s=config.timeout_s / config.speed)
        concurrency, why = next_concurrency(levels, config.max_concurrency, config.resolution)
        saturating = False
        while concurrency is not None:
            count = max(config.min_requests, config.rounds * concurrency) + concurrency  # + the ramp
            requests = level_requests(concurrency, config.prompt_tokens, config.max_tokens, count, config.spread, rng)
            # Spread the first requests over one service time so completions do not come in waves.
            stagger = levels[0].e2e_mean_s if levels and levels[0].e2e_mean_s else 0.0
            done = 0

            def progress(_: Result, c=concurrency, total=count) -> None:
                nonlocal done
                done += 1
                if on_progress:
                    on_progress(c, done, total)

            results = await closed_loop(client, concurrency, requests, clock, progress, stagger, rng)
            level = judge(concurrency, results, config.target_p95_s, config.tpot_target_p95_s)
            levels.append(replace(level, saturation=saturating))
            if saturating:
                concurrency, why = None, "the saturated throughput is perReplicaCapacity"
            else:
                concurrency, why = next_concurrency(levels, config.max_concurrency, config.resolution)
                if concurrency is None and (saturated := saturation_concurrency(levels)) is not None:
                    concurrency, saturating = saturated, True
                    why = f"{why}; measuring the saturated throughput at {concurrency} in flight"
            if on_level:
                on_level(levels[-1], why)
    return model, levels
