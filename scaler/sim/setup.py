"""Settings of one simulated run that every policy shares: engine, SLO, cold starts, clients."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from scaler.engine import EngineParams


@dataclass(frozen=True)
class ColdStart:
    """Seconds from asking for a replica to it serving: lognormal around `median_s`.

    The k-th replica any policy starts gets the k-th draw of one seeded stream, so policies that
    start the same number of replicas pay the same cold starts.
    """

    median_s: float = 60.0
    sigma: float = 0.2  # lognormal shape: about +-20% around the median
    low_factor: float = 0.5  # draws are clipped to [low, high] x median
    high_factor: float = 2.0

    def __post_init__(self):
        if not (math.isfinite(self.median_s) and self.median_s >= 0):
            raise ValueError(f"cold_start: expected seconds >= 0, got {self.median_s!r}")
        if not self.sigma >= 0:
            raise ValueError(f"cold_start sigma: expected >= 0, got {self.sigma!r}")

    def draws(self, seed: int):
        rng = random.Random(f"cold-start-{seed}")
        while True:
            if self.median_s == 0:
                yield 0.0
                continue
            x = rng.lognormvariate(math.log(self.median_s), self.sigma) if self.sigma > 0 else self.median_s
            yield min(max(x, self.low_factor * self.median_s), self.high_factor * self.median_s)

    def quantile(self, q: float) -> float:
        """The q-quantile of the (clipped) distribution, for planners that budget for it."""
        from statistics import NormalDist
        if self.sigma == 0 or self.median_s == 0:
            return self.median_s
        x = math.exp(math.log(self.median_s) + self.sigma * NormalDist().inv_cdf(q))
        return min(max(x, self.low_factor * self.median_s), self.high_factor * self.median_s)


@dataclass(frozen=True)
class Clients:
    """How clients react to a refusal: wait Retry-After (or back off exponentially when the
    refusal carries none) and try again, at most `max_retries` times."""

    max_retries: int = 2
    backoff_s: float = 1.0  # first backoff without Retry-After; doubles per retry
    jitter: float = 0.1  # +-10% on every wait

    def __post_init__(self):
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries: expected an integer >= 0, got {self.max_retries!r}")

    def wait(self, attempt: int, retry_after_s: float | None, rng: random.Random) -> float:
        base = retry_after_s if retry_after_s is not None else self.backoff_s * 2 ** (attempt - 1)
        return base * (1 + rng.uniform(-self.jitter, self.jitter))


@dataclass(frozen=True)
class Setup:
    params: EngineParams = field(default_factory=EngineParams)
    # MLPerf Inference's server-scenario limits for Llama-3.1-8B: TTFT 2 s, TPOT 100 ms.
    ttft_slo_s: float = 2.0
    tpot_slo_s: float = 0.1
    cold_start: ColdStart = field(default_factory=ColdStart)
    clients: Clients = field(default_factory=Clients)
    control_interval_s: float = 1.0  # the simulator's control tick: scrapes, controllers, samples
    # Every run stops at the workload's end plus this tail, and GPU-seconds are counted to there:
    # replicas a policy still holds after the traffic are charged, requests unfinished by then miss.
    tail_s: float = 300.0
    target_utilization: float = 0.8  # sizing: a replica is planned at this share of its capacity
    seed: int = 0
    # Apply plain decode steps in runs (same results, much faster); False steps every iteration.
    fast_forward: bool = True

    def __post_init__(self):
        if not (math.isfinite(self.ttft_slo_s) and self.ttft_slo_s > 0):
            raise ValueError(f"ttft_slo: expected seconds > 0, got {self.ttft_slo_s!r}")
        if not (math.isfinite(self.tpot_slo_s) and self.tpot_slo_s > 0):
            raise ValueError(f"tpot_slo: expected seconds > 0, got {self.tpot_slo_s!r}")
        if not (math.isfinite(self.tail_s) and self.tail_s >= 0):
            raise ValueError(f"tail_s: expected seconds >= 0, got {self.tail_s!r}")
        if not 0 < self.control_interval_s <= 15:
            raise ValueError(f"control_interval_s: expected seconds in (0, 15], got {self.control_interval_s!r}")
        if not 0 < self.target_utilization <= 1:
            raise ValueError(f"target_utilization: expected a fraction in (0, 1], got {self.target_utilization!r}")
