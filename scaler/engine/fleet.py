"""A set of replicas behind one service: cold starts, draining and least-loaded routing.

Pure like the replica model: the caller passes `now` and each new replica's cold start, so
the emulator (wall clock, fixed cold start) and the simulator (virtual clock, cold starts
drawn from a distribution) share it. Scaling follows what a Deployment does to pods: new
replicas start and become ready after their cold start; on scale-down, replicas that are
still starting go first (newest first), then the least-loaded ready ones, which drain: they
take no new requests and are retired once everything they hold has finished.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from scaler.engine.params import EngineParams
from scaler.engine.replica import Replica


class MemberState(str, Enum):
    STARTING = "starting"
    READY = "ready"
    DRAINING = "draining"


@dataclass(eq=False)
class Member:
    """One replica of the fleet, like a pod: `index` is stable while it lives (1-based)."""

    index: int
    replica: Replica
    state: MemberState
    created_at: float
    ready_at: float
    drain_started_at: float | None = None

    def time_until_ready(self, now: float) -> float:
        return max(0.0, self.ready_at - now) if self.state is MemberState.STARTING else 0.0


@dataclass(frozen=True)
class FleetChanges:
    """What a set_replicas or tick call did, so adapters can start and stop servers."""

    added: list[Member] = field(default_factory=list)
    promoted: list[Member] = field(default_factory=list)
    draining: list[Member] = field(default_factory=list)
    retired: list[Member] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.promoted or self.draining or self.retired)


ColdStart = float | Callable[[int], float]  # seconds, or a function of the new member's index


class Fleet:
    def __init__(
        self,
        params: EngineParams | None = None,
        *,
        replica_factory: Callable[[], Replica] | None = None,
        max_replicas: int | None = None,
    ) -> None:
        if max_replicas is not None and (isinstance(max_replicas, bool) or max_replicas < 1):
            raise ValueError(f"max_replicas: expected an integer >= 1 or None, got {max_replicas!r}")
        params = (params or EngineParams()).validate()
        self._new_replica = replica_factory or (lambda: Replica(params))
        self.max_replicas = max_replicas
        self.desired = 0
        self._cold_start: ColdStart = 0.0
        self._members: dict[int, Member] = {}

    # --- views -------------------------------------------------------------------------

    @property
    def members(self) -> list[Member]:
        return list(self._members.values())  # kept in index order (see _top_up)

    def in_state(self, state: MemberState) -> list[Member]:
        return [m for m in self._members.values() if m.state is state]

    @property
    def ready(self) -> int:
        return len(self.in_state(MemberState.READY))

    @property
    def starting(self) -> int:
        return len(self.in_state(MemberState.STARTING))

    @property
    def draining(self) -> int:
        return len(self.in_state(MemberState.DRAINING))

    def pending_ready_in(self, now: float) -> list[float]:
        """Seconds until each starting replica is ready, soonest first."""
        return sorted(m.time_until_ready(now) for m in self.in_state(MemberState.STARTING))

    def oldest_pending_start(self) -> float | None:
        """When the longest-waiting starting replica was created (None if none is starting)."""
        starting = self.in_state(MemberState.STARTING)
        return min(m.created_at for m in starting) if starting else None

    def member(self, index: int) -> Member | None:
        return self._members.get(index)

    # --- control -----------------------------------------------------------------------

    def set_replicas(self, n: int, now: float, cold_start_s: ColdStart) -> FleetChanges:
        """Aim for n serving replicas (ready plus starting), like setting Deployment replicas.

        Draining replicas keep their slot until retired; with max_replicas set, additions
        that find no free slot are made by later ticks, once a slot is free.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"replicas: expected an integer >= 0, got {n!r}")
        if self.max_replicas is not None and n > self.max_replicas:
            raise ValueError(f"replicas: {n} is above max_replicas={self.max_replicas}")
        if not callable(cold_start_s) and not cold_start_s >= 0:
            raise ValueError(f"cold_start_s: expected seconds >= 0, got {cold_start_s!r}")
        self.desired = n
        self._cold_start = cold_start_s
        changes = FleetChanges()
        serving = self.in_state(MemberState.STARTING) + self.in_state(MemberState.READY)
        excess = len(serving) - n
        if excess > 0:
            # Pods not yet ready go first, newest first; then the least-loaded ready ones.
            victims = sorted(
                serving,
                key=lambda m: (m.state is MemberState.READY, m.replica.load, -m.created_at, -m.index),
            )[:excess]
            for member in victims:
                if member.state is MemberState.STARTING and not member.replica.has_work:
                    del self._members[member.index]
                    changes.retired.append(member)
                else:
                    member.state = MemberState.DRAINING
                    member.drain_started_at = now
                    changes.draining.append(member)
            changes.retired.extend(self._retire_drained())
        self._top_up(now, changes)
        return changes

    def start(self, n: int, now: float) -> FleetChanges:
        """Begin with n replicas that are already ready (the service exists before we look)."""
        if self._members:
            raise ValueError("replicas: start() is only for an empty fleet")
        changes = self.set_replicas(n, now, 0.0)
        changes.promoted.extend(self._promote(now))
        return changes

    def tick(self, now: float) -> FleetChanges:
        """Promote replicas whose cold start is over, retire drained ones, fill freed slots."""
        changes = FleetChanges(promoted=self._promote(now), retired=self._retire_drained())
        self._top_up(now, changes)
        return changes

    def route(self) -> Member | None:
        """The least-loaded ready replica (waiting + running; lowest index on ties), or None.

        Reads state only: call tick(now) first so replicas whose cold start ended count.
        """
        # Called for every request the simulator routes: one pass, no sorting, no key tuples
        # ((load, index) is unique, so the order the members are visited in does not matter).
        best, best_load = None, 0
        for member in self._members.values():
            if member.state is MemberState.READY:
                load = member.replica.load
                if best is None or load < best_load or (load == best_load and member.index < best.index):
                    best, best_load = member, load
        return best

    # --- internals ---------------------------------------------------------------------

    def _promote(self, now: float) -> list[Member]:
        promoted = []
        for member in self.in_state(MemberState.STARTING):
            if member.ready_at <= now:
                member.state = MemberState.READY
                promoted.append(member)
        return promoted

    def _retire_drained(self) -> list[Member]:
        retired = []
        for member in self.in_state(MemberState.DRAINING):
            if not member.replica.has_work:
                del self._members[member.index]
                retired.append(member)
        return retired

    def _top_up(self, now: float, changes: FleetChanges) -> None:
        missing = self.desired - self.starting - self.ready
        while missing > 0:
            index = self._free_index()
            if index is None:
                return
            cold = self._cold_start(index) if callable(self._cold_start) else self._cold_start
            if not cold >= 0:
                raise ValueError(f"cold_start_s: expected seconds >= 0 for replica {index}, got {cold!r}")
            member = Member(index, self._new_replica(), MemberState.STARTING, now, now + cold)
            self._members[index] = member
            if index < max(self._members):  # a reused index: restore index order (rare, read often)
                self._members = dict(sorted(self._members.items()))
            changes.added.append(member)
            missing -= 1

    def _free_index(self) -> int | None:
        index = 1
        while index in self._members:
            index += 1
        if self.max_replicas is not None and index > self.max_replicas:
            return None
        return index
