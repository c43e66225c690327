"""Model time for the emulator: wall time stretched by --speed.

With speed 10 one wall second is ten model seconds: engine steps, cold starts and every
latency the emulator reports run in model seconds, so histograms look like the uncompressed
run while the demo finishes ten times sooner.
"""

from __future__ import annotations

import asyncio
import math
import time


class ModelClock:
    def __init__(self, speed: float = 1.0) -> None:
        if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not math.isfinite(speed) or speed <= 0:
            raise ValueError(f"speed: expected a number > 0, got {speed!r}")
        self.speed = float(speed)
        self._wall0 = time.monotonic()
        self._epoch0 = time.time()

    def now(self) -> float:
        """Model seconds since the emulator started."""
        return (time.monotonic() - self._wall0) * self.speed

    def to_epoch(self, model_t: float) -> float:
        """The Unix time at which the wall clock reaches model time `model_t`."""
        return self._epoch0 + model_t / self.speed

    def wall_seconds(self, model_seconds: float) -> float:
        return model_seconds / self.speed

    async def sleep_until(self, model_t: float) -> None:
        # Always yields, so zero-length steps still let the HTTP handlers run.
        await asyncio.sleep(max(0.0, (model_t - self.now()) / self.speed))
