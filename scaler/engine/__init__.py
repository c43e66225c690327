"""The replica model shared by the emulator (wall clock) and the simulator (virtual clock)."""

from scaler.engine.fleet import Fleet, FleetChanges, Member, MemberState
from scaler.engine.params import EngineParams
from scaler.engine.replica import Replica, ReplicaCounters, Request, StepOutcome

__all__ = [
    "EngineParams",
    "Fleet",
    "FleetChanges",
    "Member",
    "MemberState",
    "Replica",
    "ReplicaCounters",
    "Request",
    "StepOutcome",
]
