"""The admission-state store interface, and the in-process store.

An update is a pure function `fn(state, share) -> (result, new state)`: `share` is the fraction of
the model's budget this replica may spend (1.0 when the budget is one, shared or local; 1/N while
a shared store is out of reach). A store may call `fn` more than once (a shared store retries on
a concurrent write), so it must not have side effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol, TypeVar

from scaler.admission import AdmissionState

T = TypeVar("T")
Update = Callable[[AdmissionState, float], tuple[T, AdmissionState]]


@dataclass
class StoreStats:
    """Counters for /metrics: how each update was served, and the shared store's latency and errors."""

    updates: dict[str, int] = field(default_factory=lambda: {"local": 0, "shared": 0, "fallback": 0})
    conflicts: int = 0  # a concurrent write from another replica; the update was retried
    errors: dict[str, int] = field(default_factory=dict)  # by exception type
    latency_sum_s: float = 0.0  # shared updates only
    latency_count: int = 0
    replicas: int = 1  # the N of the 1/N fallback share in use


class AdmissionStore(Protocol):
    stats: StoreStats
    description: str

    def update(self, key: str, fn: Update) -> T: ...

    def close(self) -> None: ...


class LocalStore:
    """One replica's budget in a dict: what `serve` does without --state-store."""

    description = "local"

    def __init__(self) -> None:
        self.stats = StoreStats()
        self._states: dict[str, AdmissionState] = {}

    def update(self, key: str, fn: Update) -> T:
        result, self._states[key] = fn(self._states.get(key) or AdmissionState(), 1.0)
        self.stats.updates["local"] += 1
        return result

    def close(self) -> None:
        self._states.clear()
