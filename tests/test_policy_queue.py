import math

import pytest

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
