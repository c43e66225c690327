"""The models the server knows, with each one's window, policy state and latest decision.

Shared by the KEDA servicer, the poller and the metrics collector (all on one asyncio loop; call
everything from it); serve's rate-limit service process gets each model's decision published to
it (scaler/rls/process.py) and reads it with the same `find` and `decision_at`. A model becomes known when KEDA sends its trigger
metadata (any RPC), from `serve --models FILE` or from `serve --config`. A model is its
(namespace, served name): the same name in two namespaces is two models. One model has one
configuration, owned by whoever set it first: the ScaledObject that named it (its own later
changes are reconfigurations, logged), or a --models/--config entry. Another ScaledObject that
disagrees gets a ConfigError naming the first conflicting key, never a flip-flop.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import math
import threading
import time
from array import array
from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Callable, Mapping

from scaler.policy import Decision, ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.policy.decide import RETRY_AFTER_BOUNDS_S, State
from scaler.server import metadata as meta
from scaler.server.metadata import ModelKey, key_of
from scaler.sources.base import Observation
from scaler.sources.vllm import tpot_over

log = logging.getLogger("scaler.server")

PARSE_CACHE_SIZE = 4096  # distinct metadata maps remembered (KEDA resends the same map every call)
PARSE_CACHE_BYTES = 4 << 20  # and at most this much of their text
QUEUE_SIZE = 256
MAX_MODELS = 2000  # models one server polls: distinct model names from hostile calls cannot grow it further
# Bounds on what one model can make the server do, whatever its inputs (docs/scaler.md, "Bounds").
MAX_QUEUE = 1e6  # waiting or running requests summed over replicas
MAX_REPLICAS = 10_000
ARRIVAL_MARK_S = 0.25  # resolution of the arrival count's time marks
# RLS-admitted requests vLLM's counters must account for over a rate window (in flight, aborted
# and failed-upstream requests are the slack) before the RLS's arrival count is believed.
ARRIVALS_TOLERANCE = 1.5
ARRIVALS_SLACK = 10.0
MAX_ARRIVAL_MARKS = 4 * 3600  # marks kept for maxStalenessSeconds (<= 3600) at most, whatever the rounds do

# Why a model is UNKNOWN: stable codes, metric labels and the RLS's admit reasons.
SOURCE_ERROR = "source-error"  # the latest round failed for this model
SOURCE_STALE = "source-stale"  # no round has brought data for maxStalenessSeconds
INPUTS_STALE = "inputs-stale"  # the source answers, with data older than maxStalenessSeconds
NO_SERIES = "no-series"  # the source answers without this model's series
SERIES_VANISHED = "series-vanished"  # the series existed and are gone
POLICY_ERROR = "policy-error"  # the policy raised on this model's inputs


OWNER_IDLE_S = 600.0  # a ScaledObject silent this long (deleted) no longer owns its model's configuration
CONFIG_OWNER = ("", "--models/--config")  # entries from the server's own configuration


class ModelEntry:
    """One vLLM model_name in one namespace known to the server.

    `decision` is the latest answer: GREEN, YELLOW or RED from the policy, or UNKNOWN when the
    latest round gave no usable evidence (source error, no series, inputs older than
    maxStalenessSeconds, a policy error). UNKNOWN keeps the last known numbers (demand included)
    so dashboards keep context; it never sheds (docs/shedding.md, "Failure answers").
    """

    def __init__(self, parsed: meta.ScalerMetadata, clock: Callable[[], float], notify: Callable[["ModelEntry"], None],
                 pinned: bool = False) -> None:
        self.name = parsed.model
        self.key = key_of(parsed)
        self.namespace = self.key.namespace
        self.metadata = parsed
        self.pinned = pinned  # from --models: never forgotten
        self.owner: tuple[str, str] | None = CONFIG_OWNER if pinned else None  # who set the configuration
        self.owner_seen = clock()
        self.window = SignalWindow(parsed.policy.rate_window_s)
        self.state = ModelState()
        self.decision: Decision | None = None
        self.known: Decision | None = None  # the latest GREEN/YELLOW/RED decision
        # The source has answered with this model's series since it last knew of no pod: their
        # absence now is "series-vanished", not "no-series" (a round may see the gauges with no
        # ready replica, as a target goes down between two of its queries).
        self.series_seen = False
        self.observation: Observation | None = None  # the latest good one
        self.error: str | None = None  # why the latest round gave no observation
        self.query_seconds: float | None = None  # the source round that served the latest observation
        self.decisions_total: Counter[tuple[str, str]] = Counter()  # (state, reason) -> count
        self.arrivals = ArrivalCounter()
        self.arrivals_trusted = True  # vLLM's counters account for what the RLS admitted
        # Per round over the rate window: its time, what the RLS admitted, what vLLM's counters saw.
        self._checks = ArrivalChecks()
        self._last_check: tuple[Observation, tuple[float, float] | None] | None = None
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

    def record_arrivals(self, n: float = 1, admitted: bool = True, at: float | None = None) -> None:
        """Offered requests seen by the rate-limit service (counted against the clock, so a
        snapshot pairs with the count as of its own data time; `at`: when the RLS process saw
        them). A model with no ready replica wakes StreamIsActive at once (scale from zero)."""
        now = self._clock() if at is None else at
        self.arrivals.add(n, now, admitted)
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

    @property
    def observed_at(self) -> float | None:
        """The data time of the latest good observation."""
        return None if self.observation is None else self.observation.time

    def input_age(self, now: float) -> float | None:
        return input_age(self.observed_at, now)

    def is_stale(self, now: float) -> bool:
        return is_stale(self.observed_at, self.config.max_staleness_s, now)

    def decision_at(self, now: float) -> Decision | None:
        """What admission acts on now: the latest decision, or UNKNOWN once its inputs are older
        than maxStalenessSeconds (the poller may be slow or stopped: checked per call)."""
        view, self._stale_view = decision_at(self.decision, self.observed_at, self.config.max_staleness_s, now,
                                             self._stale_view)
        return view

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
        arrivals, refused = self._checked_arrivals(observation)
        if latest is not None and (observation.time - latest.time > self.config.max_staleness_s
                                   or (arrivals is None) != (latest.arrivals_total is None)):
            # Rates across a gap in the data, or across a change of where arrivals come from,
            # say nothing about now: start the window over.
            self.window = SignalWindow(self.config.rate_window_s)
        if observation.note != (self.observation.note if self.observation is not None else ""):
            # A partial failure (one pod of several did not answer) only lowers the ready count:
            # say which pod, once per change, as source errors are.
            log.warning("source note", extra={"fields": {"event": "source_note", **self.log_fields(),
                                                         "note": observation.note}})
        slow, finished = tpot_over(observation.tpot_buckets, self.config.tpot_slo_s)
        self.window.push(Snapshot(time=observation.time, waiting=min(observation.waiting, MAX_QUEUE),
                                  running=min(observation.running, MAX_QUEUE),
                                  ready_replicas=min(observation.ready_replicas, MAX_REPLICAS),
                                  completed_total=observation.completed_total,
                                  generation_tokens_total=observation.generation_tokens_total,
                                  prompt_tokens_total=observation.prompt_tokens_total,
                                  tpot_slow_total=slow, tpot_finished_total=finished,
                                  arrivals_total=arrivals, refused_total=refused, starting_ages=starting_ages))
        self.observation = observation
        try:
            decision, state = decide(self.name, self.config, self.window, self.state, now)
        except Exception as error:  # one model's bad numbers must not stop the others' rounds
            log.exception("policy error", extra={"fields": {"event": "policy_error", **self.log_fields()}})
            return self._unknown(POLICY_ERROR, f"the policy failed on this model's inputs: {type(error).__name__}: "
                                               f"{str(error)[:200]}", now)
        self.state = state
        previous = self.decision.state if self.decision is not None else None
        if previous is State.UNKNOWN and decision.state is not State.UNKNOWN:
            decision = replace(decision, state_changed=True, previous_state=previous)
        return self._keep(decision, now)

    def _checked_arrivals(self, observation: Observation) -> tuple[float | None, float | None]:
        """The RLS's counts for this snapshot, (offered, refused), unless vLLM's own counters
        contradict them ((None, None)).

        Requests the RLS admitted must reach the pods: over the rate window, vLLM's arrivals
        (completions plus queue growth) must account for them within ARRIVALS_TOLERANCE x +
        ARRIVALS_SLACK. If not (forged or misrouted ShouldRateLimit calls), the RLS count is not
        used and the policy infers arrivals from what the pods see. With no ready replica nothing
        can confirm them: they are used (scale from zero needs them)."""
        counted = self.arrivals.at(observation.time)
        # Inputs older than maxStalenessSeconds are never decided on: their marks can go.
        self.arrivals.forget_before(observation.time - self.config.max_staleness_s - 1.0)
        previous, self._last_check = self._last_check, (observation, counted)
        if counted is None:
            return None, None
        if previous is not None and previous[1] is not None and observation.completed_total is not None \
                and previous[0].completed_total is not None and observation.time > previous[0].time:
            before = previous[0]
            seen = max(0.0, observation.completed_total - before.completed_total
                       + observation.waiting + observation.running - before.waiting - before.running)
            self._checks.add(observation.time, counted[1] - previous[1][1], seen)
        self._checks.expire(observation.time, self.config.rate_window_s)
        offered_refused = counted[0], counted[0] - counted[1]
        if observation.ready_replicas == 0 or not self._checks.times:
            return offered_refused
        admitted, seen = sum(self._checks.admitted), sum(self._checks.seen)
        trusted = admitted <= ARRIVALS_TOLERANCE * seen + ARRIVALS_SLACK
        if trusted != self.arrivals_trusted:
            log.warning("rls arrivals " + ("confirmed" if trusted else "not confirmed by vLLM"), extra={"fields": {
                "event": "arrivals_checked", **self.log_fields(), "trusted": trusted,
                "rls_admitted": round(admitted, 1), "vllm_arrivals": round(seen, 1),
                "window_s": self.config.rate_window_s}})
            self.arrivals_trusted = trusted
        return offered_refused if trusted else (None, None)

    def fail(self, error: str, now: float | None = None, reason: str = SOURCE_ERROR) -> Decision:
        """The latest round said nothing usable about this model: UNKNOWN (the last known demand
        still answers GetMetrics until maxStalenessSeconds for a plain source error)."""
        now = self._clock() if now is None else now
        if error != self.error:
            log.warning("source error", extra={"fields": {"event": "source_error", **self.log_fields(), "error": error}})
        self.error = error
        return self._unknown(reason, error, now)

    def _stale_detail(self, now: float) -> str:
        return stale_detail(self.observed_at, self.config.max_staleness_s, now)

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
            log.info("state change", extra={"fields": {"event": "state_change", **decision.log_fields(),
                                                       "namespace": self.namespace}})
        active = self.is_active(now)
        if decision.state_changed or active != self.active:
            self.active = active
            self._notify(self)
        return decision

    def log_fields(self) -> dict[str, str]:
        return {"namespace": self.namespace, "model": self.name}

    def _reconfigure(self, parsed: meta.ScalerMetadata, owner: tuple[str, str] | None) -> None:
        """The owner's own change applies, and --models/--config always do; another ScaledObject
        that disagrees gets a ConfigError naming the first conflicting key (the owner stays). An
        owner silent for OWNER_IDLE_S (deleted) hands the model over."""
        now = self._clock()
        takes_over = self.owner is None or owner == self.owner or owner == CONFIG_OWNER or (
            self.owner != CONFIG_OWNER and now - self.owner_seen > OWNER_IDLE_S)
        if not takes_over:
            if parsed != self.metadata:
                key = meta.first_difference(self.metadata, parsed) or "metadata"
                log.warning("conflicting configuration", extra={"fields": {
                    "event": "config_conflict", **self.log_fields(), "key": key, "owner": "/".join(self.owner),
                    "refused": "/".join(owner) if owner else ""}})
                raise meta.ConfigError(key, f"the value {_owner_text(self.owner)} gives model {self.key} "
                                       "(one model, one configuration)", meta.metadata_of(parsed).get(key))
            return  # agrees with the owner
        self.owner, self.owner_seen = owner if owner is not None else self.owner, now
        if parsed == self.metadata:
            return
        log.info("model reconfigured", extra={"fields": {"event": "reconfigured", **self.log_fields()}})
        self.metadata = parsed
        self.window.span_s = parsed.policy.rate_window_s


def _owner_text(owner: tuple[str, str]) -> str:
    return "the server's --models/--config" if owner == CONFIG_OWNER else f"ScaledObject {owner[0]}/{owner[1]}"


def input_age(observed_at: float | None, now: float) -> float | None:
    return None if observed_at is None else max(0.0, now - observed_at)


def is_stale(observed_at: float | None, max_staleness_s: float, now: float) -> bool:
    age = input_age(observed_at, now)
    return age is None or age > max_staleness_s


def stale_detail(observed_at: float | None, max_staleness_s: float, now: float) -> str:
    age = input_age(observed_at, now)
    seen = "no observation yet" if age is None else f"the newest data is {age:.1f}s old"
    return f"{seen} (maxStalenessSeconds {max_staleness_s:g})"


def decision_at(decision: Decision | None, observed_at: float | None, max_staleness_s: float, now: float,
                cached: tuple[Decision, Decision] | None = None
                ) -> tuple[Decision | None, tuple[Decision, Decision] | None]:
    """What admission acts on at `now` (ModelEntry.decision_at, and the RLS process's copy of a
    model): `decision`, or its UNKNOWN view once the inputs are older than `max_staleness_s`.
    `cached` is the previous (decision, view) pair, returned updated: one view per decision."""
    if decision is None or decision.state is State.UNKNOWN or not is_stale(observed_at, max_staleness_s, now):
        return decision, cached
    if cached is None or cached[0] is not decision:
        cached = (decision, unknown_decision(decision, now, SOURCE_STALE,
                                             stale_detail(observed_at, max_staleness_s, now)))
    return cached[1], cached


def find(entries: Mapping, by_name: Mapping, model: str, namespace: str | None):
    """ModelRegistry.get over (key -> entry, served name -> keys): shared with the RLS process's copy."""
    if namespace:
        return entries.get(ModelKey(namespace, model)) or entries.get(ModelKey("", model))
    keys = by_name.get(model)
    return entries[next(iter(keys))] if keys and len(keys) == 1 else None


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


class ArrivalChecks:
    """The rounds of the rate window, as three columns of numbers (no object per round)."""

    __slots__ = ("times", "admitted", "seen")

    def __init__(self) -> None:
        self.times = array("d")
        self.admitted = array("d")  # requests the RLS admitted since the previous round
        self.seen = array("d")  # arrivals vLLM's counters show since the previous round

    def add(self, time: float, admitted: float, seen: float) -> None:
        self.times.append(time)
        self.admitted.append(admitted)
        self.seen.append(seen)

    def expire(self, now: float, window_s: float) -> None:
        old = 0
        while old < len(self.times) and now - self.times[old] > window_s:
            old += 1
        if old:
            del self.times[:old], self.admitted[:old], self.seen[:old]


class ArrivalCounter:
    """Requests counted by the rate-limit service, with marks so a snapshot can pair with the count
    as of its own data time: a source that returns old data (a Prometheus back from an outage)
    then sees the arrivals of that time, not everything counted since.

    The marks are flat arrays of numbers (24 bytes a mark, no object each), one mark per
    ARRIVAL_MARK_S at most, kept back to the oldest data time still decided on (the poller drops
    older ones every round: maxStalenessSeconds + 1 s, 124 marks at the default 30 s) and never
    more than MAX_ARRIVAL_MARKS."""

    def __init__(self) -> None:
        self.total: float | None = None
        self.admitted = 0.0  # the part of `total` the RLS admitted: what vLLM should see
        self.last: float | None = None
        # Each mark: its time, and the total and admitted counts just before it; oldest first.
        self._times = array("d")
        self._totals = array("d")
        self._admitted = array("d")
        self._lock = threading.Lock()  # the RLS's threads add, the poller reads

    def add(self, n: float, now: float, admitted: bool = True) -> None:
        with self._lock:
            if not self._times or now - self._times[-1] >= ARRIVAL_MARK_S:
                self._times.append(now)
                self._totals.append(self.total or 0.0)
                self._admitted.append(self.admitted)
                if len(self._times) > MAX_ARRIVAL_MARKS:
                    self._drop(len(self._times) - MAX_ARRIVAL_MARKS)
            self.total = (self.total or 0.0) + n
            self.admitted += n if admitted else 0.0
            self.last = now

    def _drop(self, n: int) -> None:
        del self._times[:n], self._totals[:n], self._admitted[:n]

    def forget_before(self, when: float) -> None:
        """Drop marks older than `when` (no snapshot that old will be asked for again); the newest
        mark before `when` stays (it holds the counts up to it)."""
        with self._lock:
            older = bisect.bisect_left(self._times, when)
            if older > 1:
                self._drop(older - 1)

    def at(self, when: float) -> tuple[float, float] | None:
        """(offered, admitted) as of `when` (to ARRIVAL_MARK_S); None before the RLS ever counted
        this model."""
        with self._lock:
            if self.total is None:
                return None
            if self.last is not None and when >= self.last:
                return self.total, self.admitted
            index = bisect.bisect_right(self._times, when)
            # The first mark after `when` holds the totals just before it: everything up to `when`.
            if index < len(self._times):
                return self._totals[index], self._admitted[index]
            return self.total, self.admitted


class ModelRegistry:
    def __init__(self, defaults: Mapping[str, str] | None = None, clock: Callable[[], float] = time.time) -> None:
        meta.check_defaults(defaults or {})
        self.defaults = dict(defaults or {})
        self.clock = clock
        # serve --config (scaler.modelconfig.watch.apply): per ModelKey, metadata that wins over the
        # trigger's, and the shedding settings the rate-limit service enforces.
        self.configured: dict[ModelKey, dict[str, str]] = {}
        self.shedding: dict[ModelKey, object] = {}
        self._entries: dict[ModelKey, ModelEntry] = {}
        self._by_name: dict[str, set[ModelKey]] = {}  # served name -> its keys (namespace-less lookups)
        self._parsed: OrderedDict[tuple, meta.ScalerMetadata | meta.ConfigError] = OrderedDict()
        self._parsed_bytes = 0
        self._subscribers: set[asyncio.Queue] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.added = asyncio.Event()  # a new model: the poller observes it without waiting a cycle

    def get(self, model: str, namespace: str | None = None) -> ModelEntry | None:
        """The model `namespace`/`model`, or the one configured without a namespace; without a
        namespace, the model of that served name only when it is unique (two namespaces serving it
        make the name ambiguous: None, which admission reads as unknown, so it admits)."""
        return find(self._entries, self._by_name, model, namespace)

    def entry(self, key: ModelKey) -> ModelEntry | None:
        """Exactly the model `key`."""
        return self._entries.get(key)

    def models(self) -> list[ModelEntry]:
        return list(self._entries.values())

    def ensure(self, metadata: Mapping[str, str], namespace: str | None = None, pinned: bool = False,
               owner: tuple[str, str] | None = None) -> ModelEntry:
        """The entry for a trigger's metadata, created or updated; ConfigError when invalid or when
        it disagrees with the model's owner. `namespace` and `owner` (namespace, name) are the
        ScaledObject's; `pinned` entries come from --models/--config, which own their model."""
        model = metadata.get("model")
        if not metadata.get("namespace") and not metadata.get("podSelector") and namespace \
                and ModelKey(namespace, model) not in self._entries and ModelKey("", model) in self._entries:
            namespace = None  # a model configured without a namespace answers for every namespace
        ns = metadata.get("namespace") or namespace or ""
        configured = self.configured.get(ModelKey(ns, model)) or self.configured.get(ModelKey("", model)) or {}
        parsed = self._parse({**metadata, **configured}, namespace)
        key = key_of(parsed)
        entry = self._entries.get(key)
        if entry is None:
            if len(self._entries) >= MAX_MODELS:
                raise meta.ConfigError("model", f"one of the {MAX_MODELS} models this server already polls "
                                       "(a server holds at most that many; run another for more)", parsed.model)
            entry = self._entries[key] = ModelEntry(parsed, self.clock, self._publish, pinned)
            entry.owner = CONFIG_OWNER if pinned else owner
            self._by_name.setdefault(key.model, set()).add(key)
            log.info("model added", extra={"fields": {"event": "model_added", **entry.log_fields(),
                                                      "source": parsed.source.kind}})
            self.added.set()
        else:
            entry._reconfigure(parsed, CONFIG_OWNER if pinned else owner)
            entry.pinned = entry.pinned or pinned
        entry.last_seen = self.clock()
        return entry

    def forget_idle(self, idle_s: float, now: float) -> list[str]:
        """Drop models no ScaledObject asked about for `idle_s` (deleted ones); --models entries stay."""
        gone = [key for key, e in self._entries.items() if not e.pinned and now - e.last_seen > idle_s]
        for key in gone:
            entry = self._entries.pop(key)
            names = self._by_name[key.model]
            names.discard(key)
            if not names:
                del self._by_name[key.model]
            log.info("model forgotten", extra={"fields": {"event": "model_forgotten", **entry.log_fields()}})
        return [key.model for key in gone]

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
