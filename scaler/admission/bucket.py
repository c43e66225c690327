"""A token bucket as a value: refilling returns a new bucket, time is always passed in."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bucket:
    tokens: float
    time: float  # when `tokens` was last brought up to date

    def refill(self, now: float, rate: float, burst: float) -> "Bucket":
        elapsed = max(0.0, now - self.time)  # a clock that steps back adds nothing
        return Bucket(min(burst, self.tokens + rate * elapsed), max(now, self.time))

    def take(self, n: float) -> "Bucket":
        return Bucket(self.tokens - n, self.time)

    def seconds_until(self, n: float, rate: float) -> float:
        """How long until `n` tokens are there at `rate` (inf when the bucket never refills)."""
        missing = n - self.tokens
        if missing <= 0:
            return 0.0
        return missing / rate if rate > 0 else float("inf")
