"""The models the server knows, with each one's window, policy state and latest decision.

Shared by the KEDA servicer, the poller, the metrics collector and the rate-limit service (all on
one asyncio loop; call everything from it). A model becomes known when KEDA sends its trigger
metadata (any RPC) or from `serve --models FILE`. One model name has one configuration: the
latest valid metadata wins (a change is logged).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from typing import Callable, Mapping

from scaler.policy import Decision, ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.server import metadata as meta
from scaler.sources.base import Observation

log = logging.getLogger("scaler.server")

PARSE_CACHE_SIZE = 4096  # distinct metadata maps remembered (KEDA resends the same map every call)
QUEUE_SIZE = 256


class ModelEntry:
    """One vLLM model_name known to the server."""

    def __init__(self, parsed: meta.ScalerMetadata, clock: Callable[[], float], notify: Callable[["ModelEntry"], None],
                 pinned: bool = False) -> None:
        self.name = parsed.model
        self.metadata = parsed
        self.pinned = pinned  # from --models: never forgotten
        self.window = SignalWindow(parsed.policy.rate_window_s)
        self.state = ModelState()
        self.decision: Decision | None = None
        self.observation: Observation | None = None  # the latest good one
        self.error: str | None = None  # why the latest round gave no observation
        self.query_seconds: float | None = None  # the source round that served the latest observation
        self.decisions_total: Counter[tuple[str, str]] = Counter()  # (state, reason) -> count
        self.arrivals_total: float | None = None  # None until the RLS counts this model
        self.last_arrival: float | None = None
        self.last_seen = clock()
        self.active = False  # what StreamIsActive last had reason to say
        self.first_decision = asyncio.Event()
        self._clock = clock
        self._notify = notify

    @property
    def config(self) -> PolicyConfig:
        return self.metadata.policy

    @property
    def metric_name(self) -> str:
        return self.metadata.metric_name

    def record_arrivals(self, n: int = 1) -> None:
        """Offered requests seen by the rate-limit service; the next snapshot's arrivals_total.
        A model with no ready replica wakes StreamIsActive at once (scale from zero)."""
        now = self._clock()
        self.arrivals_total = (self.arrivals_total or 0.0) + n
        self.last_arrival = now
        if not self.active and self.is_active(now):
            self.active = True
            self._notify(self)

    def is_active(self, now: float) -> bool:
        """Work to do: the latest decision says so, or requests arrived within the rate window
        while no replica was ready (the decision needs a poll or two to show them as a rate)."""
        if self.decision is not None and self.decision.active:
            return True
        no_replica = self.decision is None or self.decision.ready_replicas == 0
        return no_replica and self.last_arrival is not None and now - self.last_arrival < self.config.rate_window_s

    def input_age(self, now: float) -> float | None:
        return None if self.observation is None else max(0.0, now - self.observation.time)

    def is_stale(self, now: float) -> bool:
        age = self.input_age(now)
        return age is None or age > self.config.max_staleness_s

    def apply(self, observation: Observation, starting_ages: tuple[float, ...] | None, now: float,
              query_seconds: float) -> Decision:
        """Feed one observation to the policy and keep the decision (the poller calls this)."""
        self.window.push(Snapshot(time=observation.time, waiting=observation.waiting, running=observation.running,
                                  ready_replicas=observation.ready_replicas,
                                  completed_total=observation.completed_total,
                                  arrivals_total=self.arrivals_total, starting_ages=starting_ages))
        decision, self.state = decide(self.name, self.config, self.window, self.state, now)
        self.decision, self.observation, self.error, self.query_seconds = decision, observation, None, query_seconds
        self.decisions_total[(decision.state.value, decision.reason)] += 1
        self.first_decision.set()
        if decision.state_changed:
            log.info("state change", extra={"fields": {"event": "state_change", **decision.log_fields()}})
        active = self.is_active(now)
        if decision.state_changed or active != self.active:
            self.active = active
            self._notify(self)
        return decision

    def fail(self, error: str) -> None:
        """The latest round said nothing about this model: keep the last good decision."""
        if error != self.error:
            log.warning("source error", extra={"fields": {"event": "source_error", "model": self.name, "error": error}})
        self.error = error

    def _reconfigure(self, parsed: meta.ScalerMetadata) -> None:
        if parsed == self.metadata:
            return
        log.info("model reconfigured", extra={"fields": {"event": "reconfigured", "model": self.name}})
        self.metadata = parsed
        self.window.span_s = parsed.policy.rate_window_s


class ModelRegistry:
    def __init__(self, defaults: Mapping[str, str] | None = None, clock: Callable[[], float] = time.time) -> None:
        meta.check_defaults(defaults or {})
        self.defaults = dict(defaults or {})
        self.clock = clock
        # serve --config (scaler.modelconfig.watch.apply): per model, metadata that wins over the
        # trigger's, and the shedding settings the rate-limit service enforces.
        self.configured: dict[str, dict[str, str]] = {}
        self.shedding: dict[str, object] = {}
        self._entries: dict[str, ModelEntry] = {}
        self._parsed: OrderedDict[tuple, meta.ScalerMetadata | meta.ConfigError] = OrderedDict()
        self._subscribers: set[asyncio.Queue] = set()
        self.added = asyncio.Event()  # a new model: the poller observes it without waiting a cycle

    def get(self, model: str) -> ModelEntry | None:
        return self._entries.get(model)

    def models(self) -> list[ModelEntry]:
        return list(self._entries.values())

    def ensure(self, metadata: Mapping[str, str], namespace: str | None = None, pinned: bool = False) -> ModelEntry:
        """The entry for a trigger's metadata, created or updated; ConfigError when invalid."""
        parsed = self._parse({**metadata, **self.configured.get(metadata.get("model"), {})}, namespace)
        entry = self._entries.get(parsed.model)
        if entry is None:
            entry = self._entries[parsed.model] = ModelEntry(parsed, self.clock, self._publish, pinned)
            log.info("model added", extra={"fields": {"event": "model_added", "model": parsed.model,
                                                      "source": parsed.source.kind}})
            self.added.set()
        else:
            entry._reconfigure(parsed)
            entry.pinned = entry.pinned or pinned
        entry.last_seen = self.clock()
        return entry

    def forget_idle(self, idle_s: float, now: float) -> list[str]:
        """Drop models no ScaledObject asked about for `idle_s` (deleted ones); --models entries stay."""
        gone = [name for name, e in self._entries.items() if not e.pinned and now - e.last_seen > idle_s]
        for name in gone:
            del self._entries[name]
            log.info("model forgotten", extra={"fields": {"event": "model_forgotten", "model": name}})
        return gone

    def subscribe(self) -> asyncio.Queue:
        """A queue receiving each ModelEntry whose state or activity changed (read entry.active)."""
        queue: asyncio.Queue = asyncio.Queue(QUEUE_SIZE)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        self._subscribers.discard(queue)

    def _publish(self, entry: ModelEntry) -> None:
        for queue in self._subscribers:
            if not queue.full():  # a reader that fell behind reads the entry's current state anyway
                queue.put_nowait(entry)

    def _parse(self, metadata: Mapping[str, str], namespace: str | None) -> meta.ScalerMetadata:
        key = (namespace, tuple(sorted(metadata.items())))
        result = self._parsed.get(key)
        if result is None:
            try:
                result = meta.parse(metadata, self.defaults, namespace)
            except meta.ConfigError as error:
                result = error
            self._parsed[key] = result
            if len(self._parsed) > PARSE_CACHE_SIZE:
                self._parsed.popitem(last=False)
        if isinstance(result, meta.ConfigError):
            raise result.with_traceback(None)  # a fresh traceback: the cached error is raised again and again
        return result

