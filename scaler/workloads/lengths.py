"""Token-length distributions for synthetic workloads.

Short requests are lognormal around a chat-sized median; a fixed fraction of prompts and,
independently, of outputs are "long" (a RAG context, a long answer), drawn uniformly from a
long range. The defaults are documented in docs/simulator.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class LengthMix:
    prompt_median: int = 512
    prompt_sigma: float = 0.6
    prompt_max: int = 4096
    long_prompt_frac: float = 0.2
    long_prompt_range: tuple[int, int] = (4096, 8192)
    output_median: int = 128
    output_sigma: float = 0.6
    output_max: int = 512
    long_output_frac: float = 0.2
    long_output_range: tuple[int, int] = (1024, 2048)

    def __post_init__(self):
        for name in ("long_prompt_frac", "long_output_frac"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: expected a fraction in [0, 1], got {value!r}")
        for name in ("prompt_median", "prompt_max", "output_median", "output_max"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected an integer >= 1, got {getattr(self, name)!r}")
        for name in ("long_prompt_range", "long_output_range"):
            low, high = getattr(self, name)
            if not 1 <= low <= high:
                raise ValueError(f"{name}: expected (low, high) with 1 <= low <= high, got {(low, high)!r}")

    def __call__(self, rng: random.Random) -> tuple[int, int]:
        if rng.random() < self.long_prompt_frac:
            prompt = rng.randint(*self.long_prompt_range)
        else:
            prompt = _lognormal(rng, self.prompt_median, self.prompt_sigma, self.prompt_max)
        if rng.random() < self.long_output_frac:
            output = rng.randint(*self.long_output_range)
        else:
            output = _lognormal(rng, self.output_median, self.output_sigma, self.output_max)
        return prompt, output


def _lognormal(rng: random.Random, median: int, sigma: float, cap: int) -> int:
    return max(1, min(cap, int(round(rng.lognormvariate(math.log(median), sigma)))))
