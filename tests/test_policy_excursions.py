"""Excursions of the need above the ready replicas, and the scale-ups that would land after them."""

import pytest

from scaler.policy import PolicyConfig
from scaler.policy import excursions as ex
from scaler.policy.headroom import HISTORY_HALF_LIFE_S

from policy_helpers import Scenario

L = 60.0


def _history(*excursions, ready=4):
    """Excursions as (start, seconds, excess) run through `observe` one second at a time."""
    h = ex.Excursions()
    for start, seconds, excess in excursions:
        for t in range(int(start), int(start + seconds)):
            h = ex.observe(h, float(t), need=ready + excess, ready=ready)
        h = ex.observe(h, start + seconds, need=ready - 1, ready=ready)
    return h


def test_an_excursion_runs_while_the_need_asks_for_a_replica_beyond_the_ready_ones():
    h = _history((10, 30, 3.0), (200, 20, 5.5))
    assert h.start is None and h.ended == ((40.0, 30.0, 3.0), (220.0, 20.0, 5.5))
    # A need of 4.0 on 4 ready asks for nothing more: no excursion starts.
    assert ex.observe(h, 300.0, need=4.0, ready=4).start is None
    assert ex.observe(h, 300.0, need=4.2, ready=4).start == 300.0


def test_a_scale_up_waits_when_similar_excursions_ended_before_a_replica_could_land():
    h = _history((100, 30, 5.0), (340, 30, 5.0), (460, 30, 5.0))  # weights 0.74, 0.85, 0.93 at 585 s
    now = ex.observe(h, 580.0, need=8.0, ready=4)  # 4 beyond the ready, smaller than the 5 seen
    why = ex.lands_too_late(now, 585.0, L)
    assert why is not None and "0% outlasted a 60s scale-up" in why


def test_too_few_similar_excursions_are_not_evidence():
    h = _history((340, 30, 5.0), (460, 30, 5.0))  # weights 0.85 + 0.93 < EVIDENCE
    assert ex.lands_too_late(ex.observe(h, 580.0, need=8.0, ready=4), 585.0, L) is None


def test_an_excursion_larger_than_any_seen_starts_capacity_at_once():
    h = _history((100, 30, 5.0), (340, 30, 5.0), (460, 30, 5.0))
    assert ex.lands_too_late(ex.observe(h, 580.0, need=10.0, ready=4), 585.0, L) is None  # 6 beyond


def test_an_excursion_older_than_the_ones_seen_starts_capacity():
    h = _history((100, 30, 5.0), (340, 30, 5.0), (460, 30, 5.0))
    h = ex.observe(h, 580.0, need=8.0, ready=4)
    assert ex.lands_too_late(h, 600.0, L) is not None  # 20 s in: the 30 s ones were still running
    assert ex.lands_too_late(h, 611.0, L) is None  # 31 s in: longer than any seen


def test_excursions_that_outlasted_a_scale_up_start_capacity_at_once():
    h = _history((100, 90, 5.0), (240, 30, 5.0), (300, 30, 5.0), (400, 120, 5.0), (550, 100, 5.0))  # 3 of 5 beyond L
    assert ex.lands_too_late(ex.observe(h, 700.0, need=8.0, ready=4), 701.0, L) is None


def test_old_excursions_fade_and_stop_counting():
    h = _history((100, 30, 5.0), (340, 30, 5.0), (460, 30, 5.0))
    assert ex.lands_too_late(ex.observe(h, 580.0, need=8.0, ready=4), 585.0, L) is not None
    later = 490.0 + HISTORY_HALF_LIFE_S  # each weighs a half or less: 1.3 together, under EVIDENCE
    assert ex.lands_too_late(ex.observe(h, later, need=8.0, ready=4), later + 1, L) is None
    gone = 491.0 + ex.FORGET_AFTER_S  # six half-lives after the last one ended
    forgotten = ex.observe(ex.observe(h, gone, need=8.0, ready=4), gone + 1, need=3.0, ready=4)
    assert forgotten.ended == ((gone + 1, 1.0, 4.0),)


def test_recurring_short_bursts_start_replicas_only_until_enough_have_ended_within_a_scale_up():
    # 4 ready replicas of 5 req/s at 0.8 carry 16 req/s; every 120 s a 15 s burst at 40 req/s asks
    # for more (its excursion lasts 22 s with the rate window). The first three bursts start
    # replicas (two ended ones weigh 1.8 < EVIDENCE); from the fourth, the demand stays at what is up.
    config = PolicyConfig(ttft_slo_s=2.0, per_replica_capacity_rps=5.0, scale_up_latency_s=L,
                          target_utilization=0.8, state_hold_s=10.0, rate_window_s=10.0, max_concurrency=10_000.0)
    scenario, total, peaks = Scenario(config), 0.0, []
    for burst in range(5):
        highest, deferred = 0.0, 0.0
        for t in range(120):
            rate = 40.0 if 60 <= t < 75 else 8.0
            total += rate
            d = scenario.tick(waiting=0, running=8, ready=4, completions_per_s=rate, arrivals_total=total,
                              starting_ages=())
            highest, deferred = max(highest, d.demand), max(deferred, d.deferred)
        peaks.append((highest, deferred))
    assert [p[0] > 4 for p in peaks] == [True, True, True, False, False], peaks
    assert all(p[1] == 0 for p in peaks[:3]) and all(p[1] > 4 for p in peaks[3:]), peaks
    assert any("scale-up waits" in note for d in scenario.decisions for note in d.notes)
    # A burst that stays: once it has lasted longer than the ones seen, replicas start.
    for t in range(60):
        total += 40.0
        d = scenario.tick(waiting=0, running=8, ready=4, completions_per_s=40.0, arrivals_total=total,
                          starting_ages=())
    assert d.demand > 9 and d.deferred == 0, d.notes
