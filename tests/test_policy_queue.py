import math

import pytest
from hypothesis import given, settings, strategies as st

from scaler.policy.queue import drain_time, peak_wait


@pytest.mark.parametrize(
    "label, backlog, rate, step, arrivals, want",
    [
        ("empty queue", 0, 0, 0, [], 0.0),
        ("constant rate", 20, 10, 5, [], 2.0),
        ("no capacity, none coming", 5, 0, 5, [], math.inf),
        ("no capacity until a replica is ready", 10, 0, 5, [3.0], 5.0),
        ("drained before the new replica matters", 10, 10, 10, [5.0], 1.0),
        ("new replicas speed the tail", 80, 10, 5, [5.0, 5.0], 6.5),
    ],
)
def test_drain_time(label, backlog, rate, step, arrivals, want):
    assert drain_time(backlog, rate, step, arrivals) == pytest.approx(want), label


def test_peak_wait_grows_when_arrivals_outpace_drain():
    steady = peak_wait(10, 10, 0, 10, 5, [], 60)
    overloaded = peak_wait(10, 11, 0, 10, 5, [], 60)
    assert steady == pytest.approx(1.0)
    # 1 req/s of excess for 60 s adds 60 requests at a drain of 10/s: 6 s more.
    assert overloaded == pytest.approx(7.0)


def test_peak_wait_counts_capacity_that_arrives_inside_the_horizon():
    without = peak_wait(0, 12, 0, 10, 5, [], 60)
    with_pending = peak_wait(0, 12, 0, 10, 5, [10.0], 60)
    assert with_pending < without
    # The queue grows by 2/s; the worst arrival is at 25/3 s, just early enough to be drained
    # at 10/s before the pending replica helps: 50/3 requests ahead, 5/3 s of wait (grid of 1 s).
    assert with_pending == pytest.approx(5 / 3, rel=0.05)


def test_a_rising_trend_is_capped_not_extrapolated_into_a_wall():
    # 1 req/s^2 over a 300 s horizon would mean 300 req/s at the end; the cap keeps it at 4.8.
    capped = peak_wait(0, 1.6, 1.0, 7.0, 7.0, [], 300, max_arrival_rps=4.8)
    assert capped == 0.0
    assert peak_wait(0, 1.6, 1.0, 7.0, 7.0, [], 300) > 1000


def test_peak_wait_matches_a_fine_grid_projection_within_one_grid_step():
    # The 60-point grid (plus landing times) may read low by what the wait grows in one step;
    # the fast path (no queue can form) is exact. A 6,000-point grid is the reference.
    import random
    rng = random.Random(7)
    for _ in range(300):
        landings = sorted(rng.uniform(0, 70) for _ in range(rng.randint(0, 3)))
        args = (rng.uniform(-300, 60), rng.uniform(0, 30), rng.choice([0.0, rng.uniform(-0.5, 0.5)]),
                rng.uniform(1, 25), rng.uniform(0, 5), landings, 60.0)
        kw = dict(absorb=rng.choice([0.0, 50.0]), max_arrival_rps=3 * args[1])
        coarse, fine = peak_wait(*args, **kw), peak_wait(*args, **kw, points=6000)
        if fine == 0.0:
            assert coarse == 0.0
            continue
        # One grid step (1 s) of growth: at most the arrival rate over the drain rate, per second;
        # above by at most 1% (the midpoint rule integrates a capped trend a little high).
        assert coarse <= fine * 1.01 + 1e-9
        assert coarse >= fine - (3 * args[1] / args[3]) * 1.0 - 1e-9, (args, kw, coarse, fine)


def _walk_whole_grid(excess, arrival_rps, trend_rps2, rate, step, arrivals, horizon_s, absorb, max_arrival_rps,
                     points=60):
    """peak_wait's projection evaluated at every grid point (no early stop): the reference."""
    arrivals = sorted(arrivals)
    lam_end = arrival_rps + trend_rps2 * horizon_s
    if excess <= 0 and min(max(arrival_rps, lam_end, 0.0), max_arrival_rps) <= rate:
        return 0.0
    grid = sorted({0.0, horizon_s, *(a for a in arrivals if a < horizon_s),
                   *(horizon_s * i / points for i in range(1, points))})
    worst = drain_time(max(0.0, excess), rate, step, arrivals, absorb)
    floor = min(excess, 0.0)
    t, current_rate, landed = 0.0, rate, 0
    for nxt in grid[1:]:
        dt = nxt - t
        lam = min(max(0.0, arrival_rps + trend_rps2 * (t + dt / 2)), max_arrival_rps)
        excess = max(floor, excess + (lam - current_rate) * dt)
        t = nxt
        now_landed = sum(1 for a in arrivals if a <= t)
        current_rate = rate + step * now_landed
        landing = absorb * (now_landed - landed)
        landed = now_landed
        excess, floor = excess - landing, floor - landing
        if excess > 0:
            worst = max(worst, drain_time(excess, current_rate, step, [a - t for a in arrivals[landed:]], absorb))
    return worst


@settings(max_examples=400, deadline=None)
@given(st.floats(-300, 60), st.floats(0, 30), st.one_of(st.just(0.0), st.floats(-1, 1)), st.floats(0.5, 25),
       st.floats(0, 5), st.lists(st.floats(-5, 90), max_size=4), st.floats(1, 200), st.sampled_from([0.0, 8.0, 50.0]),
       st.sampled_from([3.0, math.inf]))
def test_peak_wait_stops_early_only_when_no_later_point_could_matter(excess, lam, trend, rate, step, landings, horizon,
                                                                     absorb, cap):
    # It stops walking the grid once no queue stands and arrivals cannot outpace the drain for the
    # rest of the horizon: the answer must be exactly the whole walk's.
    cap = cap * lam
    assert peak_wait(excess, lam, trend, rate, step, landings, horizon, absorb=absorb, max_arrival_rps=cap) == \
        _walk_whole_grid(excess, lam, trend, rate, step, landings, horizon, absorb, cap)
