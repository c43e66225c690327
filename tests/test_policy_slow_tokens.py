"""The slow-token term: the share of finished requests over the TPOT SLO, per half-minute, and the
replicas that bring it under the target at today's load."""

from __future__ import annotations

import pytest

from scaler.policy import slow_tokens
from scaler.policy.slow_tokens import (INTERVAL_S, INTERVALS, MIN_FINISHED, RELEASE_SHARE, TARGET_SHARE, SlowTokens,
                                       observe, replicas)


def run(state: SlowTokens, *, seconds: float, start: float, rps: float, slow_share: float, ready: int,
        overloaded: bool = False, stay_s: float = 30.0) -> tuple[SlowTokens, float]:
    """One tick a second: `rps` requests finish, `slow_share` of them over the SLO."""
    slow, finished = state.totals or (0.0, 0.0)
    now = start
    for _ in range(int(seconds)):
        now += 1.0
        slow, finished = slow + rps * slow_share, finished + rps
        state = observe(state, now, slow, finished, ready, overloaded=overloaded, stay_s=stay_s)
    return state, now


def test_a_steady_tail_asks_for_the_cube_root_of_its_excess_at_todays_load():
    # 10 requests/s on 4 replicas, 2% of them slow: 4 x the share's cube root over 0.5%.
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=0.02, ready=4)
    assert state.share == pytest.approx(0.02)
    assert replicas(state, arrival_rps=10.0) == pytest.approx(4 * 4 ** (1 / 3), rel=0.01)
    # The need follows the load: twice the arrivals, twice the replicas; none once traffic stops.
    assert replicas(state, arrival_rps=20.0) == pytest.approx(2 * replicas(state, arrival_rps=10.0))
    assert replicas(state, arrival_rps=0.0) == 0.0
    # The half-minute still counting is not read: its requests over a part of it are not a rate.
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S + 12, start=0.0, rps=40.0, slow_share=0.02, ready=4)
    assert state.replicas_per_rps() == pytest.approx(4 / 40.0)


def test_a_fleet_that_grew_since_the_misses_is_not_asked_to_grow_again():
    state, now = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=0.02, ready=4)
    assert replicas(state, arrival_rps=10.0) > 6
    # Now 7 ready and the share at the target: the ask is the 7 that hold it, no more (the fixed
    # point); under the target but above RELEASE_SHARE it still asks, for fewer, so the fleet
    # comes down gently; under RELEASE_SHARE it lets go.
    state, now = run(state, seconds=INTERVALS * INTERVAL_S, start=now, rps=10.0, slow_share=TARGET_SHARE, ready=7)
    assert replicas(state, arrival_rps=10.0) == pytest.approx(7.0)
    state, now = run(state, seconds=INTERVALS * INTERVAL_S, start=now, rps=10.0, slow_share=RELEASE_SHARE * 1.1,
                     ready=7)
    assert replicas(state, arrival_rps=10.0) == pytest.approx(7.0 * (1.1 * RELEASE_SHARE / TARGET_SHARE) ** (1 / 3))
    state, _ = run(state, seconds=INTERVALS * INTERVAL_S, start=now, rps=10.0, slow_share=RELEASE_SHARE * 0.9, ready=6)
    assert replicas(state, arrival_rps=10.0) == 0.0


def test_a_share_that_never_passed_the_target_asks_for_nothing():
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=TARGET_SHARE * 0.9,
                   ready=3)
    assert state.share == pytest.approx(TARGET_SHARE * 0.9)
    assert not state.asking and replicas(state, arrival_rps=20.0) == 0.0


def test_no_misses_or_too_few_requests_ask_for_nothing():
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=0.0, ready=4)
    assert replicas(state, arrival_rps=10.0) == 0.0
    # 3 requests/s: a half-minute holds 90, under MIN_FINISHED, so no share is read at all.
    assert 3.0 * INTERVAL_S < MIN_FINISHED
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=3.0, slow_share=0.1, ready=1)
    assert state.share == 0.0 and replicas(state, arrival_rps=3.0) == 0.0


def test_one_bursts_misses_are_not_a_tail():
    # Quiet half-minutes, then one with 10% slow (a clump's prefill), then quiet again.
    state, now = run(SlowTokens(), seconds=6 * INTERVAL_S, start=0.0, rps=10.0, slow_share=0.0, ready=4)
    state, now = run(state, seconds=INTERVAL_S, start=now, rps=10.0, slow_share=0.10, ready=4)
    state, now = run(state, seconds=3 * INTERVAL_S, start=now, rps=10.0, slow_share=0.0, ready=4)
    assert state.share == 0.0 and replicas(state, arrival_rps=10.0) == 0.0
    # The same misses in most half-minutes are a tail.
    state, _ = run(state, seconds=INTERVALS * INTERVAL_S, start=now, rps=10.0, slow_share=0.02, ready=4)
    assert replicas(state, arrival_rps=10.0) > 4


def test_an_overloads_misses_and_those_of_its_batches_are_dropped():
    state, now = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=0.02, ready=4)
    state, now = run(state, seconds=10, start=now, rps=10.0, slow_share=0.5, ready=4, overloaded=True, stay_s=40.0)
    assert state.intervals == () and replicas(state, arrival_rps=10.0) == 0.0
    # For a stay in the batch after the overload nothing counts, then counting starts over.
    state, now = run(state, seconds=39, start=now, rps=10.0, slow_share=0.5, ready=4)
    assert state.intervals == ()
    state, now = run(state, seconds=INTERVALS * INTERVAL_S, start=now, rps=10.0, slow_share=0.0, ready=4)
    assert state.share == 0.0 and len(state.intervals) == INTERVALS


def test_no_histogram_learns_nothing_and_a_restarted_counter_is_no_negative_count():
    state, now = run(SlowTokens(), seconds=INTERVAL_S, start=0.0, rps=10.0, slow_share=0.02, ready=4)
    assert observe(state, now + 1, None, None, 4, overloaded=False, stay_s=1.0) is state
    restarted = observe(state, now + 1, 0.0, 5.0, 4, overloaded=False, stay_s=1.0)
    # Counted from the new reading on: nothing added, nothing taken away.
    assert sum(i.finished for i in restarted.intervals) == sum(i.finished for i in state.intervals) > 0
    assert restarted.totals == (0.0, 5.0)


def test_the_exponent_is_what_the_ask_scales_by():
    # The ask grows as the share's SHARE_EXPONENT-th root: 8x the target share asks for 2x at 3.
    state, _ = run(SlowTokens(), seconds=INTERVALS * INTERVAL_S, start=0.0, rps=10.0, slow_share=8 * TARGET_SHARE,
                   ready=5)
    assert replicas(state, arrival_rps=10.0) == pytest.approx(5 * 8 ** (1 / slow_tokens.SHARE_EXPONENT), rel=0.01)
