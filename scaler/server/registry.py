"""The models the server knows, with each one's window, policy state and latest decision.

Shared by the KEDA servicer, the poller, the metrics collector and the rate-limit service (all on
one asyncio loop; call everything from it). A model becomes known when KEDA sends its trigger
metadata (any RPC) or from `serve --models FILE`. One model name has one configuration: the
latest valid metadata wins (a change is logged).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import math
import threading
import time
from collections import Counter, OrderedDict, deque
from dataclasses import replace
from typing import Callable, Mapping

from scaler.policy import Decision, ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.policy.decide import RETRY_AFTER_BOUNDS_S, State
from scaler.server import metadata as meta
from scaler.sources.base import Observation

log = logging.getLogger("scaler.server")

PARSE_CACHE_SIZE = 4096  # distinct metadata maps remembered (KEDA resends the same map every call)
PARSE_CACHE_BYTES = 4 << 20  # and at most this much of their text
QUEUE_SIZE = 256
MAX_MODELS = 2000  # models one server polls: distinct model names from hostile calls cannot grow it further
# Bounds on what one model can make the server do, whatever its inputs (docs/scaler.md, "Bounds").
DEMAND_CAP = 1000  # replicas: demand sent to KEDA and pending replicas tracked
MAX_QUEUE = 1e6  # waiting or running requests summed over replicas
MAX_REPLICAS = 10_000
ARRIVAL_MARK_S = 0.25  # resolution of the arrival count's time marks
MAX_ARRIVAL_MARKS = 4 * 7200  # two hours of marks at most (rateWindowSeconds + maxStalenessSeconds <= 7200)

# Why a model is UNKNOWN: stable codes, metric labels and the RLS's admit reasons.
SOURCE_ERROR = "source-error"  # the latest round failed for this model
SOURCE_STALE = "source-stale"  # no round has brought data for maxStalenessSeconds
INPUTS_STALE = "inputs-stale"  # the source answers, with data older than maxStalenessSeconds
NO_SERIES = "no-series"  # the source answers without this model's series
SERIES_VANISHED = "series-vanished"  # the series existed and are gone
POLICY_ERROR = "policy-error"  # the policy raised on this model's inputs


class ModelEntry:
    """One vLLM model_name known to the server.

    `decision` is the latest answer: GREEN, YELLOW or RED from the policy, or UNKNOWN when the
    latest round gave no usable evidence (source error, no series, inputs older than
    maxStalenessSeconds, a policy error). UNKNOWN keeps the last known numbers (demand included)
    so dashboards keep context; it never sheds (docs/shedding.md, "Failure answers").
    """

    def __init__(self, parsed: meta.ScalerMetadata, clock: Callable[[], float], notify: Callable[["ModelEntry"], None],
                 pinned: bool = False) -> None:
        self.name = parsed.model
        self.metadata = parsed
        self.pinned = pinned  # from --models: never forgotten
        self.window = SignalWindow(parsed.policy.rate_window_s)
        self.state = ModelState()
        self.decision: Decision | None = None
        self.known: Decision | None = None  # the latest GREEN/YELLOW/RED decision
        self.observation: Observation | None = None  # the latest good one
        self.error: str | None = None  # why the latest round gave no observation
        self.query_seconds: float | None = None  # the source round that served the latest observation
        self.decisions_total: Counter[tuple[str, str]] = Counter()  # (state, reason) -> count
        self.arrivals = ArrivalCounter()
        self.last_seen = clock()
        self.active = False  # what StreamIsActive last had reason to say
        self.first_decision = asyncio.Event()
        self._stale_view: tuple[Decision, Decision] | None = None  # (decision, its UNKNOWN view once stale)
        self._clock = clock
        self._notify = notify

    @property
    def config(self) -> PolicyConfig:
        return self.metadata.policy

    @property
    def metric_name(self) -> str:
        return self.metadata.metric_name

    @property
    def arrivals_total(self) -> float | None:
        return self.arrivals.total

    @property
    def last_arrival(self) -> float | None:
        return self.arrivals.last

    def record_arrivals(self, n: int = 1) -> None:
        """Offered requests seen by the rate-limit service (counted against the clock, so a
        snapshot pairs with the count as of its own data time). A model with no ready replica
        wakes StreamIsActive at once (scale from zero)."""
        now = self._clock()
        self.arrivals.add(n, now)
        if not self.active and self.is_active(now):
            self.active = True
            self._notify(self)

    def is_active(self, now: float) -> bool:
        """Work to do: the latest decision says so, or requests arrived within the rate window
        while no replica was ready or nothing is known (a poll or two later they show as a rate)."""
        decision = self.decision
        if decision is not None and decision.active:
            return True
        blind = decision is None or decision.state is State.UNKNOWN or decision.ready_replicas == 0
        last = self.arrivals.last
        return blind and last is not None and now - last < self.config.rate_window_s

    def input_age(self, now: float) -> float | None:
        return None if self.observation is None else max(0.0, now - self.observation.time)

    def is_stale(self, now: float) -> bool:
        age = self.input_age(now)
        return age is None or age > self.config.max_staleness_s

    def decision_at(self, now: float) -> Decision | None:
        """What admission acts on now: the latest decision, or UNKNOWN once its inputs are older
        than maxStalenessSeconds (the poller may be slow or stopped: checked per call)."""
        decision = self.decision
        if decision is None or decision.state is State.UNKNOWN or not self.is_stale(now):
            return decision
        if self._stale_view is None or self._stale_view[0] is not decision:
            view = unknown_decision(decision, now, SOURCE_STALE, self._stale_detail(now))
            self._stale_view = (decision, view)
        return self._stale_view[1]

    def apply(self, observation: Observation, starting_ages: tuple[float, ...] | None, now: float,
              query_seconds: float) -> Decision:
        """Feed one observation to the policy and keep the decision (the poller calls this).
        Inputs older than maxStalenessSeconds are not decided on (UNKNOWN); an exception in the
        policy stays with this model (UNKNOWN, logged)."""
        self.query_seconds, self.error = query_seconds, None
        if now - observation.time > self.config.max_staleness_s:
            self.observation = observation if self.observation is None or observation.time >= self.observation.time \
                else self.observation
            return self._unknown(INPUTS_STALE, self._stale_detail(now), now)
        latest = self.window.latest
        if latest is not None and observation.time - latest.time > self.config.max_staleness_s:
            # Rates across a gap in the data say nothing about now: start the window over.
            self.window = SignalWindow(self.config.rate_window_s)
        self.window.push(Snapshot(time=observation.time, waiting=min(observation.waiting, MAX_QUEUE),
                                  running=min(observation.running, MAX_QUEUE),
                                  ready_replicas=min(observation.ready_replicas, MAX_REPLICAS),
                                  completed_total=observation.completed_total,
                                  arrivals_total=self.arrivals.at(observation.time), starting_ages=starting_ages))
        self.observation = observation
        try:
            decision, state = decide(self.name, self.config, self.window, self.state, now)
            decision, state = _capped(decision, state)
        except Exception as error:  # one model's bad numbers must not stop the others' rounds
            log.exception("policy error", extra={"fields": {"event": "policy_error", "model": self.name}})
            return self._unknown(POLICY_ERROR, f"the policy failed on this model's inputs: {type(error).__name__}: "
                                               f"{str(error)[:200]}", now)
        self.state = state
        previous = self.decision.state if self.decision is not None else None
        if previous is State.UNKNOWN and decision.state is not State.UNKNOWN:
            decision = replace(decision, state_changed=True, previous_state=previous)
        return self._keep(decision, now)

    def fail(self, error: str, now: float | None = None, reason: str = SOURCE_ERROR) -> Decision:
        """The latest round said nothing usable about this model: UNKNOWN (the last known demand
        still answers GetMetrics until maxStalenessSeconds for a plain source error)."""
        now = self._clock() if now is None else now
        if error != self.error:
            log.warning("source error", extra={"fields": {"event": "source_error", "model": self.name, "error": error}})
        self.error = error
        return self._unknown(reason, error, now)

    def _stale_detail(self, now: float) -> str:
        age = self.input_age(now)
        seen = "no observation yet" if age is None else f"the newest data is {age:.1f}s old"
        return f"{seen} (maxStalenessSeconds {self.config.max_staleness_s:g})"

    def _unknown(self, reason: str, detail: str, now: float) -> Decision:
        return self._keep(unknown_decision(self.known or self.decision, now, reason, detail, model=self.name,
                                           config=self.config), now)

    def _keep(self, decision: Decision, now: float) -> Decision:
        previous = self.decision
        changed = previous is None or previous.state is not decision.state
        if decision.state is State.UNKNOWN:
            decision = replace(decision, state_changed=changed,
                               previous_state=previous.state if changed and previous is not None else None)
        else:
            self.known = decision
        self.decision = decision
        self.decisions_total[(decision.state.value, decision.reason)] += 1
        self.first_decision.set()
        if decision.state_changed:
            log.info("state change", extra={"fields": {"event": "state_change", **decision.log_fields()}})
        active = self.is_active(now)
        if decision.state_changed or active != self.active:
            self.active = active
            self._notify(self)
        return decision

    def _reconfigure(self, parsed: meta.ScalerMetadata) -> None:
        if parsed == self.metadata:
            return
        log.info("model reconfigured", extra={"fields": {"event": "reconfigured", "model": self.name}})
        self.metadata = parsed
        self.window.span_s = parsed.policy.rate_window_s


def unknown_decision(last: Decision | None, now: float, reason: str, detail: str, *, model: str = "",
                     config: PolicyConfig | None = None) -> Decision:
    """An UNKNOWN decision: the last known numbers (or zeros) with the reason nothing is known now.
    No admission rate: UNKNOWN never sheds."""
    if last is not None:
        return replace(last, time=now, state=State.UNKNOWN, reason=reason, detail=detail, admission_rps=None,
                       state_changed=False, previous_state=None, notes=())
    config = config or PolicyConfig()
    return Decision(model=model, time=now, state=State.UNKNOWN, reason=reason, detail=detail, waiting=0.0,
                    running=0.0, ready_replicas=0, starting_replicas=0, completion_rps=0.0, arrival_rps=0.0,
                    capacity_rps=None, capacity_source="unknown", scale_up_latency_s=config.scale_up_prior_s,
                    budget_s=config.budget_s, wait_s=0.0, peak_wait_s=0.0, demand=0.0, pressure=0.0,
                    admission_rps=None, retry_after_s=RETRY_AFTER_BOUNDS_S[0])


def _capped(decision: Decision, state: ModelState) -> tuple[Decision, ModelState]:
    """Demand and the pending-replica bookkeeping bounded by DEMAND_CAP replicas, whatever the inputs."""
    if not math.isfinite(decision.demand) or decision.demand > DEMAND_CAP:
        decision = replace(decision, demand=float(DEMAND_CAP), notes=decision.notes + (
            f"demand {decision.demand:.3g} capped at {DEMAND_CAP} replicas",))
    if len(state.pending_since) > DEMAND_CAP:
        state = replace(state, pending_since=state.pending_since[:DEMAND_CAP])
    return decision, state


class ArrivalCounter:
    """Requests counted by the rate-limit service, with marks so a snapshot can pair with the count
    as of its own data time: a source that returns old data (a Prometheus back from an outage)
    then sees the arrivals of that time, not everything counted since."""

    def __init__(self) -> None:
        self.total: float | None = None
        self.last: float | None = None
        self._marks: deque[tuple[float, float]] = deque()  # (time, total just before it), oldest first
        self._lock = threading.Lock()  # the RLS's threads add, the poller reads

    def add(self, n: float, now: float) -> None:
        with self._lock:
            if not self._marks or now - self._marks[-1][0] >= ARRIVAL_MARK_S:
                self._marks.append((now, self.total or 0.0))
                while len(self._marks) > MAX_ARRIVAL_MARKS:
                    self._marks.popleft()
            self.total = (self.total or 0.0) + n
            self.last = now

    def at(self, when: float) -> float | None:
        """The count as of `when` (to ARRIVAL_MARK_S); None before the RLS ever counted this model."""
        with self._lock:
            if self.total is None:
                return None
            if self.last is not None and when >= self.last:
                return self.total
            index = bisect.bisect_right(self._marks, (when, math.inf))
            # The first mark after `when` holds the total just before it: everything up to `when`.
            return self._marks[index][1] if index < len(self._marks) else self.total


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
        self._parsed_bytes = 0
        self._subscribers: set[asyncio.Queue] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
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
            if len(self._entries) >= MAX_MODELS:
                raise meta.ConfigError("model", f"one of the {MAX_MODELS} models this server already polls "
                                       "(a server holds at most that many; run another for more)", parsed.model)
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

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Call from `loop`, the one the registry lives on: notifications from other threads (the
        RLS's) are then handed to it."""
        self._loop, self._loop_thread = loop, threading.get_ident()

    def _publish(self, entry: ModelEntry) -> None:
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self._publish_here, entry)
        else:
            self._publish_here(entry)

    def _publish_here(self, entry: ModelEntry) -> None:
        for queue in self._subscribers:
            if not queue.full():  # a reader that fell behind reads the entry's current state anyway
                queue.put_nowait(entry)

    def _parse(self, metadata: Mapping[str, str], namespace: str | None) -> meta.ScalerMetadata:
        """Parsed metadata, cached by what the parser reads (known keys and the namespace: KEDA's
        own keys such as scalerAddress do not make new entries); the cache is bounded in bytes
        and values are bounded in length before anything is kept."""
        meta.check_sizes(metadata, namespace)
        key = (namespace, tuple(sorted((k, v) for k, v in metadata.items() if k in meta.KEYS)))
        result = self._parsed.get(key)
        if result is None:
            try:
                result = meta.parse(dict(key[1]), self.defaults, namespace)
            except meta.ConfigError as error:
                result = error
            self._parsed[key] = result
            self._parsed_bytes += _size(key)
            while len(self._parsed) > PARSE_CACHE_SIZE or self._parsed_bytes > PARSE_CACHE_BYTES:
                self._parsed_bytes -= _size(self._parsed.popitem(last=False)[0])
        else:
            self._parsed.move_to_end(key)
        if isinstance(result, meta.ConfigError):
            raise result.with_traceback(None)  # a fresh traceback: the cached error is raised again and again
        return result


def _size(key: tuple) -> int:
    namespace, items = key
    return 64 + len(namespace or "") + sum(len(k) + len(v) + 16 for k, v in items)
