"""The burst floor `render` derives from the spec's traffic profile, held by the policy as a prior
that fades while the traffic stops reaching it.

`render` sizes burstReplicas from the operator's profile (base, peak minute, steepest rise:
scaler.render.derive.burst_replicas): the replicas that must already be up when a burst like the
profile's starts, as new ones land one scale-up latency later. Deployed as minReplicaCount it was
paid all run, also where the traffic never came near it again (a busy morning sized the evening;
a tuning window's one spike sized the rest of the run). Held here, it stays whole while the
traffic reaches the rate its last replica carries, (burstReplicas - 1) x c x u, by more than the
noise of its count, and fades after the last time it did, the way a burst in the burst history
does (scaler.policy.headroom). It starts as a burst that has come back as often as the profile
vouches for (`render`'s burstRecurrence): once for a peak minute at twice the mean rate or more,
so it fades with the 20-minute half-life of a burst that returns; not at all for a peak at the
mean, a level the traffic was at (a busy morning, a job at full width), so it fades within 5
minutes as a burst seen once; in between, in between. The half-life shortens towards 5 minutes as
that return fades without the traffic coming back to it (staying below half that rate for a
scale-up latency, then reaching it again: waves closer than that are one burst, as in the burst
history). Bursts that come back keep their floor between them; a profile the traffic no longer
shows lets it go. Pure functions of numbers and a small frozen state.

A profile with a burst must keep its prior: started as one seen once, recurring-bursts' floor
faded before the run's first burst, 200 s in, which met 5 of its 7 replicas (scripts/
decision_timeline.py --variant ours-floor-seen-once), and the tuning windows missed where the
floor had held them (recurring-bursts, flash-crowd, consumer-scaleout, drifting-jobs). A level
profile kept it too until stop 50, and held a busy first third's fleet for the next 20 minutes
(day-end, shard-stragglers: docs/policy.md, "A level profile's floor fades as a burst seen once").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.policy.headroom import RETURN_SHARE, faded_returns, memory_half_life

# The traffic is read over the burst history's windows this long and longer: a burst's rate, not a
# clump's (the 1 s and 5 s windows are clumps the batch slots absorb). Over 60 s alone the rate of a
# 20-30 s burst read below the floor's last replica and a floor its bursts needed faded between
# them (drifting-jobs at 0.8: 97.4% against 99.4%; scripts/policy_ablation.py prints it as
# ours-floor-rate-over-a-minute).
RATE_WINDOW_MIN_S = 15.0
# The traffic reaches the floor's last replica when a window's arrivals stand above that replica's
# rate by this many standard deviations of their Poisson noise: a level below it reaches it by
# noise alone over some 15 s window every few minutes, and each time the floor was whole again
# (webui-followups at 1.0, seed 0: 7.0 req/s on average against the last replica's 7.82 from 570 s
# on, a second replica held all run where one carried the traffic). A burst's window clears it at
# once.
# scripts/policy_ablation.py prints the rate alone as ours-floor-reached-by-noise.
REACH_NOISE_Z = 1.0
# A floor whose returns are under this rounds to whole replicas: a level profile's from the start
# (burstRecurrence under 0.25, a peak minute less than 1.25x the base), a burst profile's once its
# prior return has faded that far without the traffic coming back (40 minutes from 0.5). Kept
# until it had faded whole, each replica of a level the traffic had left ran on for another half
# replica's fade (shard-stragglers, day-end, graphrag-index). A floor the traffic comes back to keeps
# the replica its next burst starts on: rounded too, recurring-bursts, consumer-scaleout and
# drifting-jobs missed, and rounded below 0.5, eval-suite (0.42: 97.2% against 99.7%)
# (docs/policy.md, "A faded floor rounded where the traffic left it").
# scripts/policy_ablation.py prints a floor kept until faded whole as ours-floor-kept-until-whole.
ROUNDED_BELOW_RETURNS = 0.25


@dataclass(frozen=True)
class BurstFloor:
    """When the traffic last reached the floor's last replica, and how often it came back to it."""
    reached: float | None = None  # None before the first tick: the floor starts whole
    returns: float = 0.0  # times the traffic came back to it, decayed with HISTORY_HALF_LIFE_S
    armed: bool = False  # since it last reached it, the traffic stayed below RETURN_SHARE of that rate for gap_s
    last: float | None = None  # time of the last update
    below_s: float = 0.0  # how long the traffic has now stayed below RETURN_SHARE of that rate

    def half_life(self) -> float:
        return memory_half_life(self.returns)


def reached_rate(count: float, window_s: float) -> float:
    """The rate the traffic surely reached over a window: its arrivals less REACH_NOISE_Z standard
    deviations of their Poisson noise, per second."""
    return (count - REACH_NOISE_Z * math.sqrt(max(count, 0.0))) / window_s


def observe(floor: BurstFloor, *, burst_replicas: float, now: float, rate_rps: float | None,
            reached_rps: float | None, carry_rps: float, recurrence: float,
            gap_s: float) -> tuple[float, BurstFloor]:
    """The replicas the floor holds now, and its next state.

    `rate_rps` is the arrival rate over the burst's windows and `reached_rps` the rate they surely
    reached (`reached_rate`; both None while the history does not reach back that far): the traffic
    reaches the last replica by the second and falls away from it by the first, so noise neither
    holds the floor nor counts as a return. `carry_rps` is what one replica carries at the target
    utilisation (0 while not known: the floor is then held whole). `recurrence` (render's
    burstRecurrence) is the returns the floor starts with: the profile's word that bursts like it
    come back (1), or that its peak was a level the traffic was at (0: it fades as a burst seen
    once). `gap_s` (the scale-up latency) is how long the traffic must stay below RETURN_SHARE of
    the last replica's rate for its next rise to that rate to count as a return: shard-stragglers'
    job tails dipped below half of it and came back within seconds, each dip a return, and held its
    floor of 4 with the 20-minute half-life (at 0.5: 3 ready at 900-1,140 s for a need of 1,
    against 2 with this rule)."""
    if burst_replicas <= 0:
        return 0.0, floor
    dt = 0.0 if floor.last is None else max(0.0, now - floor.last)
    returns = faded_returns(floor.returns, dt)
    reached, armed, below_s = floor.reached, floor.armed, floor.below_s
    if reached is None:  # the floor starts whole, with the returns the profile vouches for
        reached, returns = now, recurrence
    last_replica = (burst_replicas - 1) * carry_rps
    if reached_rps is not None and reached_rps >= last_replica:
        if armed:
            returns += 1.0
        reached, armed, below_s = now, False, 0.0
    elif rate_rps is not None and rate_rps < RETURN_SHARE * last_replica:
        below_s += dt
        armed = armed or below_s >= gap_s
    else:
        below_s = 0.0
    state = BurstFloor(reached, returns, armed, now, below_s)
    return burst_replicas * 0.5 ** ((now - reached) / state.half_life()), state


def replicas(held: float, *, returns: float) -> int:
    """Whole replicas the floor asks for. One the traffic comes back to keeps a replica until it has
    faded whole, for the next burst starts on it; one it has not come back to (`returns`, the
    profile's prior included, under ROUNDED_BELOW_RETURNS) keeps it while more than half is held."""
    if held <= 0:
        return 0
    if returns < ROUNDED_BELOW_RETURNS:
        return math.floor(held + 0.5)
    return math.ceil(held - 1e-9)
