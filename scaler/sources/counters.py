"""Per-replica counters made into one monotonic total per model, across restarts and churn.

Summing raw counters over replicas goes down when a replica restarts or leaves, and a new
replica's history would count as a burst of completions. So each series (one per replica) is
tracked on its own: a value lower than the last is a reset (all of it is new work), a series seen
for the first time is a baseline (no increase), and a series that disappears stops adding.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

# A series not seen for this long is forgotten (a pod gone for good); it starts over as a baseline.
FORGET_AFTER_S = 600.0


class MonotonicCounters:
    def __init__(self) -> None:
        self._last: dict[tuple[str, Hashable], tuple[float, float]] = {}  # (model, series) -> (value, seen)
        self._totals: dict[str, float] = {}

    def update(self, model: str, series: Mapping[Hashable, float], now: float) -> float:
        """Fold this round's raw values of `model`'s series in; return the model's running total."""
        total = self._totals.get(model, 0.0)
        for key, value in series.items():
            previous = self._last.get((model, key))
            if previous is not None:
                total += value - previous[0] if value >= previous[0] else value
            self._last[(model, key)] = (value, now)
        self._totals[model] = total
        return total

    def prune(self, now: float) -> None:
        """Forget series not seen for FORGET_AFTER_S (once per round, not per model)."""
        for key in [k for k, (_, seen) in self._last.items() if now - seen > FORGET_AFTER_S]:
            del self._last[key]


def monotonic_buckets(counters: MonotonicCounters, model: Hashable,
                      by_replica: Mapping[Hashable, tuple[tuple[float, float], ...]],
                      now: float) -> tuple[tuple[float, float], ...]:
    """A histogram's cumulative buckets per replica made into one monotonic histogram per model:
    each bound is a counter of its own. Only the bounds every reporting replica has are kept (a
    replica with other bounds would make a bucket hold more than the next); () when none reports."""
    reported = {replica: dict(b) for replica, b in by_replica.items() if b}
    if not reported:
        return ()
    bounds = sorted(set.intersection(*(set(b) for b in reported.values())))
    return tuple((le, counters.update((model, le), {replica: b[le] for replica, b in reported.items()}, now))
                 for le in bounds)
