"""Excursions: how long the need stayed above the ready replicas, learned online, and whether a
replica asked for now would land before the excursion that asks for it is over.

A replica asked for now is ready one scale-up latency L later. When traffic rises past what the
ready replicas carry, the policy asks for more; if recent excursions like this one all ended
within L, the new replicas land with nothing to do (they are cancelled or released) and the
replicas already up carried the excursion alone. So a scale-up waits while the recent past says
it would land too late:

    share = weight(similar excursions that lasted beyond age + L) / weight(those that lasted beyond age)

where `age` is how long the current excursion has lasted and "similar" means its largest excess
was at least the current one's. The scale-up waits while share < LAND_SHARE and the similar
excursions weigh at least EVIDENCE; an excursion larger or longer than any seen recently starts
capacity at once. Weights halve every HISTORY_HALF_LIFE_S, as the burst history's do. Pure
functions of numbers and a small frozen state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scaler.policy.headroom import HISTORY_HALF_LIFE_S

# Start capacity once an excursion like the current one more likely than not outlasts a scale-up.
LAND_SHARE = 0.5
# One similar excursion is an anecdote: on the steps trace a 20 s rise that the ready replicas
# carried held back the next, real step for 5 s and cost 2.6 points of attainment (seeds 0-2 at
# 0.9, development harness; scripts/policy_ablation.py prints it as ours-wait-on-one). With 2,
# steps and diurnal-chat kept theirs (docs/policy.md, Short excursions). A weight: two recent
# excursions weigh 1.6-1.9, so in practice it asks for three (counting two instead was tried in
# stop 43 and reverted: it deferred scale-ups that were needed).
EVIDENCE = 2.0
# Ended excursions kept: older ones weigh under 1/64 after six half-lives, and more would only
# cost memory.
KEEP = 64
FORGET_AFTER_S = 6 * HISTORY_HALF_LIFE_S


@dataclass(frozen=True)
class Excursions:
    start: float | None = None  # when the current excursion began (None: the need fits the ready replicas)
    excess: float = 0.0  # the current excursion's excess now: replicas needed beyond the ready ones
    peak: float = 0.0  # its largest excess so far
    ended: tuple[tuple[float, float, float], ...] = ()  # (end time, seconds it lasted, largest excess), oldest first


def observe(history: Excursions, now: float, *, need: float, ready: int) -> Excursions:
    """One tick: an excursion runs while the need asks for a replica beyond the ready ones."""
    excess = need - ready
    if math.ceil(need - 1e-9) > ready:
        if history.start is None:
            return Excursions(now, excess, excess, history.ended)
        return Excursions(history.start, excess, max(history.peak, excess), history.ended)
    if history.start is None:
        return history
    ended = tuple(e for e in history.ended if now - e[0] <= FORGET_AFTER_S)
    ended = (*ended, (now, now - history.start, history.peak))[-KEEP:]
    return Excursions(None, 0.0, 0.0, ended)


def similar(history: Excursions, now: float, scale_up_s: float) -> tuple[int, float, float]:
    """The ended excursions like the current one (at least as large, and longer than its age): how
    many, their weight, and the weight of those that outlasted a replica asked for at this age."""
    age = now - history.start
    count, alive, beyond = 0, 0.0, 0.0
    for end, lasted, peak in history.ended:
        if peak < history.excess or lasted <= age:
            continue
        weight = 0.5 ** ((now - end) / HISTORY_HALF_LIFE_S)
        count += 1
        alive += weight
        if lasted > age + scale_up_s:
            beyond += weight
    return count, alive, beyond


def lands_too_late(history: Excursions, now: float, scale_up_s: float) -> str | None:
    """Why a scale-up asked for now should wait (None: start it): recent excursions at least as
    large as the current one mostly ended before a replica asked at this age could land."""
    if history.start is None:
        return None
    _, alive, beyond = similar(history, now, scale_up_s)
    if alive < EVIDENCE or beyond >= LAND_SHARE * alive:
        return None
    return (f"scale-up waits: of recent excursions of {history.excess:.1f}+ replicas that lasted "
            f"past {now - history.start:.0f}s (weight {alive:.1f}), {beyond / alive:.0%} outlasted a {scale_up_s:.0f}s scale-up")
