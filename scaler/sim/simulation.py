"""The discrete-event core: a virtual clock, the shared replica model, a gateway and clients.

Events: arrivals (first attempts and retries), the end of each replica's engine step, replicas
becoming ready after their cold start, and the control tick (every `control_interval_s`) at
which policies look at the fleet and may change the replica count. Each replica steps on its own
timeline; a request routed to an idle replica starts a step at once, otherwise it joins at the
replica's next step, as in vLLM. Clients retry refused requests after Retry-After (or a backoff)
a bounded number of times. Everything is deterministic for a seed.
"""

from __future__ import annotations

import heapq
import math
import random
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field

from scaler.engine import Fleet, Member, MemberState, Request, StepOutcome
from scaler.sim.observe import FleetView, MemberView
from scaler.sim.policies.base import Policy, Refusal
from scaler.sim.setup import Setup
from scaler.sim.workload import Workload
from scaler.sources.vllm import TOKEN_LATENCY_BUCKETS
from scaler.workloads import Arrival

_ARRIVAL, _READY, _TICK = 0, 1, 2


class ClientRequest:
    """One request as its client sees it, across attempts."""

    __slots__ = ("index", "arrival", "attempts", "refusals", "admitted_at", "first_token", "finished", "refused",
                 "last_attempt", "tpot")

    def __init__(self, index: int, arrival: Arrival):
        self.index = index
        self.arrival = arrival
        self.attempts = 0
        self.refusals = 0
        self.admitted_at: float | None = None
        self.first_token: float | None = None
        self.finished: float | None = None
        self.refused = False  # refused on its last allowed attempt
        self.last_attempt = arrival.time
        self.tpot: float | None = None  # mean time per output token after the first (None: one token or unfinished)

    @property
    def ttft(self) -> float | None:
        """From the client's first attempt to the first token, retries and their waits included."""
        return None if self.first_token is None else self.first_token - self.arrival.time

    @property
    def outcome(self) -> str:
        if self.finished is not None:
            return "completed"
        return "refused" if self.refused else "in-flight"


class _MemberStats:
    __slots__ = ("busy", "busy_s", "prefill_tokens", "completed", "pending", "retired", "run", "generation")

    def __init__(self):
        self.busy = False
        self.retired = False
        self.busy_s = 0.0
        self.prefill_tokens = 0
        self.completed = 0
        self.pending: StepOutcome | None = None  # a step already applied to the engine, ending at its event
        self.run: tuple[float, int] | None = None  # (start, steps): plain decode steps not applied yet
        self.generation = 0  # events of an older generation are stale


@dataclass
class RunRecord:
    workload: str
    policy: str
    requests: list[ClientRequest]
    end_time: float
    # One sample per control tick: time, queued (engines + gateway), running, ready, starting, desired.
    samples: list[tuple[float, int, int, int, int, int]] = field(default_factory=list)
    refused_attempts: list[float] = field(default_factory=list)  # time of every refused attempt
    scale_events: list[tuple[float, int, int]] = field(default_factory=list)  # (time, from, to)
    gpu_replica_seconds: float = 0.0  # replicas held from t=0 to the horizon
    horizon: float = 0.0  # workload end + tail: where the run stops and GPU-seconds are counted to
    lifetimes: list[tuple[float, float]] = field(default_factory=list)  # (asked for, gone or horizon) per replica
    policy_summary: dict = field(default_factory=dict)
    engine_steps: int = 0


class Simulation:
    def __init__(self, workload: Workload, policy: Policy, setup: Setup):
        self.workload = workload
        self.policy = policy
        self.setup = setup
        self.fleet = Fleet(setup.params)
        self.requests = [ClientRequest(i, a) for i, a in enumerate(workload.arrivals)]
        self._stats: dict[Member, _MemberStats] = {}
        self._owner: dict[Request, ClientRequest] = {}
        self._held: deque[ClientRequest] = deque()
        self._ext: list = []
        self._steps: list = []
        self._seq = 0
        self._cold = setup.cold_start.draws(setup.seed)
        self._rng = random.Random(f"clients-{setup.seed}")
        self._outstanding = len(self.requests)
        self._completed_total = 0
        self._admitted_total = 0
        self._offered_total = 0
        self._lifetimes = 0.0
        self._retired_generation = 0
        self._retired_prompt = 0
        # vllm:request_time_per_output_token_seconds over the fleet's life: finished requests per
        # bucket (not cumulative; FleetView sums them as Prometheus's le buckets).
        self._tpot_buckets = [0] * (len(TOKEN_LATENCY_BUCKETS) + 1)
        self.record = RunRecord(workload.name, policy.name, self.requests, 0.0)

    # --- event plumbing ------------------------------------------------------------------

    def _push(self, heap, time: float, *payload) -> None:
        self._seq += 1
        heapq.heappush(heap, (time, self._seq, *payload))

    def _cold_start(self, _index: int) -> float:
        return next(self._cold)

    # --- run -----------------------------------------------------------------------------

    def run(self) -> RunRecord:
        setup = self.setup
        # First attempts are read in time order from this list rather than pushed on the heap
        # (which then holds a few events, not every request). At equal times, step ends come
        # first, then first attempts in arrival order, then the other events in push order.
        firsts = sorted(self.requests, key=lambda r: r.arrival.time)
        count, index = len(firsts), 0
        next_first = firsts[0].arrival.time if firsts else math.inf
        self._apply(self.fleet.start(self.policy.initial_replicas(), 0.0), 0.0)
        self._push(self._ext, 0.0, _TICK, None)
        last_arrival = self.workload.arrivals[-1].time if self.workload.arrivals else 0.0
        horizon = max(last_arrival, self.workload.duration_s) + setup.tail_s
        ext, steps, pop = self._ext, self._steps, heapq.heappop
        now = 0.0
        while True:
            if steps and steps[0][0] <= next_first and (not ext or steps[0][0] <= ext[0][0]):
                now, _, member, generation = pop(steps)
                stats = self._stats.get(member)
                if stats is not None and stats.generation == generation:
                    self._on_step_end(member, stats, now)
                continue
            if index < count and (not ext or next_first <= ext[0][0]):
                request = firsts[index]
                index += 1
                next_first = firsts[index].arrival.time if index < count else math.inf
                now = request.arrival.time
                self._on_attempt(request, now)
                continue
            if not ext:
                break
            now, _, kind, payload = pop(ext)
            if kind == _ARRIVAL:
                self._on_attempt(payload, now)
            elif kind == _READY:
                self._apply(self.fleet.tick(now), now)
                self._dispatch_held(now)
            else:
                if self._on_tick(now, horizon):
                    break
        self.record.end_time = now
        self.record.horizon = horizon
        for member in self.fleet.members:
            self._retire(member, horizon)
        self.record.gpu_replica_seconds = self._lifetimes
        self.record.policy_summary = self.policy.summary()
        return self.record

    def _retire(self, member: Member, now: float) -> None:
        self._lifetimes += now - member.created_at
        self._retired_generation += member.replica.counters.generation_tokens
        self._retired_prompt += member.replica.counters.prompt_tokens
        self.record.lifetimes.append((member.created_at, now))

    def _on_tick(self, now: float, horizon: float) -> bool:
        self._apply(self.fleet.tick(now), now)
        self._dispatch_held(now)
        view = self._view(now)
        desired = self.policy.control(now, view)
        if desired is not None and desired != self.fleet.desired:
            desired = int(desired)
            self.record.scale_events.append((now, self.fleet.desired, desired))
            self._apply(self.fleet.set_replicas(desired, now, self._cold_start), now)
        self.record.samples.append((now, view.waiting + view.held, view.running, view.ready, view.starting,
                                    self.fleet.desired))
        if now >= horizon:
            return True
        self._push(self._ext, min(horizon, now + self.setup.control_interval_s), _TICK, None)
        return False

    def _apply(self, changes, now: float) -> None:
        for member in changes.added:
            self._stats[member] = _MemberStats()
            self._push(self._ext, member.ready_at, _READY, None)
        for member in changes.retired:
            self._retire(member, now)
            stats = self._stats[member]
            if stats.busy:
                # The engine already applied its last step; its outcome lands at the step's end.
                stats.retired = True
            else:
                del self._stats[member]

    # --- requests --------------------------------------------------------------------------

    def _on_attempt(self, request: ClientRequest, now: float) -> None:
        request.attempts += 1
        request.last_attempt = now
        self._offered_total += 1
        refusal = self.policy.admit(now, request)
        if refusal is None:
            limit = self.policy.max_queued
            if self._held or not self._send(request, now):
                if limit is not None and len(self._held) >= limit:
                    refusal = Refusal(503, "gateway-queue-full")
                else:
                    self._held.append(request)
        if refusal is not None:
            self._refuse(request, refusal, now)
            return
        request.admitted_at = now
        self._admitted_total += 1

    def _refuse(self, request: ClientRequest, refusal: Refusal, now: float) -> None:
        request.refusals += 1
        self.record.refused_attempts.append(now)
        if request.attempts <= self.setup.clients.max_retries:
            wait = self.setup.clients.wait(request.attempts, refusal.retry_after_s, self._rng)
            self._push(self._ext, now + wait, _ARRIVAL, request)
        else:
            request.refused = True
            self._outstanding -= 1

    def _target(self) -> Member | None:
        """The least-loaded ready replica, if it may take one more request."""
        member = self.fleet.route()
        cap = self.policy.max_ongoing_per_replica
        if member is None or (cap is not None and member.replica.load >= cap):
            return None
        return member

    def _send(self, request: ClientRequest, now: float) -> bool:
        member = self._target()
        if member is None:
            return False
        stats = self._stats[member]
        self._materialize(member, stats, now)
        arrival = request.arrival
        engine = Request(id=f"{request.index}.{request.attempts}", prompt_tokens=arrival.prompt_tokens,
                         max_tokens=arrival.max_tokens, arrival_time=now)
        member.replica.add(engine, now)
        self._owner[engine] = request
        stats.prefill_tokens += arrival.prompt_tokens
        if not stats.busy:
            self._start_step(member, stats, now)
        return True

    def _dispatch_held(self, now: float) -> None:
        while self._held and self._send(self._held[0], now):
            self._held.popleft()

    # --- engine steps ------------------------------------------------------------------------
    # A replica in plain decode (nothing waiting, no request about to finish) is not stepped one
    # iteration at a time: its next decode steps are planned as a run and applied only when
    # something looks at it or adds to it (`_materialize`), or when the run ends. Routing reads
    # only the load, which a plain decode run does not change. The state seen at any event is
    # the one stepping would give: every step that started by then is applied.

    def _schedule(self, member: Member, stats: _MemberStats, time: float) -> None:
        stats.generation += 1
        self._seq += 1  # _push inlined: the most frequent event
        heapq.heappush(self._steps, (time, self._seq, member, stats.generation))

    def _start_step(self, member: Member, stats: _MemberStats, now: float) -> None:
        replica = member.replica
        stats.pending = None
        if not replica.has_work:
            stats.busy = False
            return
        stats.busy = True
        plain = replica.decode_steps() if self.setup.fast_forward else 0
        if plain >= 2:
            stats.run = (now, plain)
            self._schedule(member, stats, now + replica.decode_duration(plain))
            return
        outcome = replica.step(now)
        if outcome.end <= now:
            raise RuntimeError(f"replica {member.index}: work but nothing schedulable at t={now}")
        self.record.engine_steps += 1
        stats.pending = outcome
        stats.busy_s += outcome.end - now
        self._schedule(member, stats, outcome.end)

    def _apply_run(self, member: Member, stats: _MemberStats, steps: int) -> float:
        start, _ = stats.run
        stats.run = None
        end = member.replica.advance(start, steps)
        self.record.engine_steps += steps
        stats.busy_s += end - start
        return end

    def _materialize(self, member: Member, stats: _MemberStats, now: float) -> None:
        """Apply the planned decode steps that started by `now` (the one in progress included)."""
        if stats.run is None:
            return
        start, planned = stats.run
        first, growth = member.replica.decode_timing()  # D(m) = m x first + growth x m(m-1)/2
        lo, hi = 1, planned  # the largest m whose step m-1 started by now: start + D(m-1) <= now
        while lo < hi:
            mid = (lo + hi + 1) // 2
            m = mid - 1
            if start + (m * first + growth * m * (m - 1) / 2) <= now:
                lo = mid
            else:
                hi = mid - 1
        end = self._apply_run(member, stats, lo)
        self._schedule(member, stats, end)  # the next step starts when this one ends

    def _on_step_end(self, member: Member, stats: _MemberStats, now: float) -> None:
        if stats.run is not None:
            self._apply_run(member, stats, stats.run[1])
        outcome = stats.pending
        if outcome is not None:
            for engine in outcome.first_tokens:
                self._owner[engine].first_token = engine.first_token_time
                stats.prefill_tokens -= engine.prompt_tokens
            for engine in outcome.finished:
                request = self._owner.pop(engine)
                request.finished = engine.finish_time
                if engine.output_tokens > 1:
                    request.tpot = (engine.finish_time - engine.first_token_time) / (engine.output_tokens - 1)
                # vLLM observes every finished request, 0 for a single token.
                self._tpot_buckets[bisect_left(TOKEN_LATENCY_BUCKETS, request.tpot or 0.0)] += 1
                stats.completed += 1
                self._completed_total += 1
                self._outstanding -= 1
        if stats.retired:
            del self._stats[member]
            return
        self._start_step(member, stats, now)
        if outcome is not None and outcome.finished and self._held:
            self._dispatch_held(now)
        if not stats.busy and member.state is MemberState.DRAINING:
            self._apply(self.fleet.tick(now), now)

    # --- observation -------------------------------------------------------------------------

    def _view(self, now: float) -> FleetView:
        members = []
        generation, prompt = self._retired_generation, self._retired_prompt
        for member in self.fleet.members:
            stats = self._stats[member]
            self._materialize(member, stats, now)
            replica = member.replica
            members.append(MemberView(member.index, member.state, member.created_at, member.ready_at,
                                      replica.num_running, replica.num_waiting, replica.kv_usage, stats.busy_s,
                                      stats.prefill_tokens, stats.completed))
            generation += replica.counters.generation_tokens
            prompt += replica.counters.prompt_tokens
        return FleetView(now, tuple(members), self.fleet.desired, self._completed_total, self._admitted_total,
                         self._offered_total, len(self._held), generation, tuple(self._tpot_buckets), prompt)


def simulate(workload: Workload, policy: Policy, setup: Setup) -> RunRecord:
    return Simulation(workload, policy, setup).run()


def conservation(record: RunRecord) -> dict[str, int]:
    """Every arrival ends completed, refused or still in flight."""
    counts = {"completed": 0, "refused": 0, "in-flight": 0}
    for request in record.requests:
        counts[request.outcome] += 1
    return counts

