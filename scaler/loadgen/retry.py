"""When a refused request is tried again: Retry-After first, bounded exponential backoff otherwise.

Pure: the attempt number, the header and a random draw go in, a delay with its reason comes out.
The launch checklist asks clients to back off exponentially with a bounded number of retries,
and servers that shed send Retry-After (429 or 503); a client that retries sooner than asked only
adds load to a service that is already refusing, so the server's value is a floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

RETRYABLE_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class Backoff:
    """Retry rules: at most `max_retries` retries; waits grow from `base_s`, never beyond `cap_s`."""

    max_retries: int = 3
    base_s: float = 0.5
    cap_s: float = 60.0
    jitter: float = 0.5  # the exponential part is scaled by a draw in [1 - jitter, 1]

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries: expected an integer >= 0, got {self.max_retries!r}")
        for name in ("base_s", "cap_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name}: expected seconds > 0, got {value!r}")
        if self.cap_s < self.base_s:
            raise ValueError(f"cap_s: expected at least the base wait ({self.base_s} s), got {self.cap_s!r}")
        if not isinstance(self.jitter, (int, float)) or not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter: expected a fraction in [0, 1], got {self.jitter!r}")

    def delay(self, retry: int, retry_after_s: float | None, draw: float) -> tuple[float, str]:
        """Seconds to wait before retry number `retry` (1-based), and why.

        `draw` is a uniform random number in [0, 1) supplied by the caller.
        """
        exponential = min(self.cap_s, self.base_s * 2 ** (retry - 1)) * (1 - self.jitter * draw)
        if retry_after_s is None:
            return exponential, f"no Retry-After: exponential backoff {exponential:.3f}s (retry {retry})"
        if retry_after_s > self.cap_s:
            return self.cap_s, f"Retry-After {retry_after_s:g}s above the cap: waiting {self.cap_s:g}s"
        if retry_after_s >= exponential:
            return retry_after_s, f"Retry-After {retry_after_s:g}s"
        return exponential, f"backoff {exponential:.3f}s is longer than Retry-After {retry_after_s:g}s"


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 10.2.3).

    None when absent or unreadable (the caller then backs off exponentially).
    """
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())
