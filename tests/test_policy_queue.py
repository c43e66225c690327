"""scaler.policy.queue: drain_time's exact cases, peak_wait's worked examples, peak_wait against an
independent fluid simulation of the queue, and properties any projection of a queue must have."""

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


# -- an independent reference: the queue as a fluid, simulated in small steps --

def _capacity(t: float, rate: float, step: float, landings: list[float], absorb: float) -> float:
    """How many waiting requests can have started by `t`: `rate` req/s throughout, and from each
    landing on, `absorb` at once (its empty batch) and `step` req/s more."""
    return rate * t + sum(absorb + step * (t - at) for at in landings if at <= t)


def _reached(target: float, rate: float, step: float, landings: list[float], absorb: float) -> float:
    """The first time _capacity reaches `target` (it is nondecreasing: linear between landings,
    jumping by `absorb` at each)."""
    ends = sorted(landings) + [math.inf]
    begin = 0.0
    for before, end in enumerate(ends):
        have = _capacity(begin, rate, step, landings, absorb)
        if have >= target:
            return begin
        slope = rate + step * before
        if slope > 0 and (end == math.inf or have + slope * (end - begin) >= target):
            return begin + (target - have) / slope
        begin = end
    return math.inf


def _fluid_peak_wait(excess, arrival_rps, trend_rps2, rate, step, landings, horizon_s, absorb, cap, steps=2000):
    """The longest wait of a request arriving in [0, horizon]: the backlog beyond the batches
    (`excess`; negative = free slots, which never grow but by landed replicas' slots) followed in
    `steps` equal steps, and each arrival's wait read off the capacity curve (FIFO: it starts once
    capacity since its arrival covers everything ahead of it)."""
    def wait(at: float, ahead: float) -> float:
        return _reached(_capacity(at, rate, step, landings, absorb) + ahead, rate, step, landings, absorb) - at

    dt = horizon_s / steps
    queue, lowest = excess, min(excess, 0.0)
    worst = wait(0.0, queue) if queue > 0 else 0.0
    upcoming = sorted(landings)
    for i in range(steps):
        now = (i + 1) * dt
        offered = min(max(arrival_rps + trend_rps2 * (i + 0.5) * dt, 0.0), cap)
        served = rate + step * sum(1 for at in landings if at <= i * dt)
        queue = max(queue + (offered - served) * dt, lowest)
        while upcoming and upcoming[0] <= now:  # a ready replica's batch takes from the queue first
            upcoming.pop(0)
            queue, lowest = queue - absorb, lowest - absorb
        if queue > 0:
            worst = max(worst, wait(now, queue))
    return worst


queue_cases = dict(
    excess=st.floats(-300, 60), arrival_rps=st.floats(0, 30), trend_rps2=st.one_of(st.just(0.0), st.floats(-1, 1)),
    rate=st.floats(0.5, 25), step=st.floats(0, 5), landings=st.lists(st.floats(0.01, 90), max_size=4),
    horizon_s=st.floats(1, 200), absorb=st.sampled_from([0.0, 8.0, 50.0]),
    cap=st.one_of(st.just(math.inf), st.floats(0, 40)))


@settings(max_examples=150, deadline=None)
@given(**queue_cases)
def test_peak_wait_follows_a_fluid_simulation_of_the_queue(excess, arrival_rps, trend_rps2, rate, step, landings,
                                                           horizon_s, absorb, cap):
    steps, points = 2000, 60
    got = peak_wait(excess, arrival_rps, trend_rps2, rate, step, landings, horizon_s, absorb=absorb,
                    max_arrival_rps=cap, points=points)
    want = _fluid_peak_wait(excess, arrival_rps, trend_rps2, rate, step, landings, horizon_s, absorb, cap, steps)
    # Tolerance, from the step sizes. peak_wait reads the wait on a grid of horizon/points: a
    # request's wait grows by at most (highest arrival rate / rate) seconds per second, and a queue
    # that empties and refills within one step is missed by as much again (2x). Its midpoint rule
    # integrates a capped or clipped trend high by at most |trend| * step^2 / 4 at each kink (two).
    # The simulation is off by the same terms at its own, finer step, plus up to one step of each
    # landing's added drain.
    highest = min(max(arrival_rps, arrival_rps + trend_rps2 * horizon_s, 0.0), cap)
    coarse, fine = horizon_s / points, horizon_s / steps
    low = (2 * highest * (coarse + fine) + step * len(landings) * fine) / rate
    high = (abs(trend_rps2) * (coarse ** 2 + fine ** 2) / 2 + step * len(landings) * fine + highest * fine) / rate
    assert want - low - 1e-6 <= got <= want + high + 1e-6, (got, want, low, high)


@settings(max_examples=150, deadline=None)
@given(**queue_cases, more=st.floats(0, 10), landing_at=st.one_of(st.integers(1, 60), st.floats(1, 50)))
def test_more_demand_never_shortens_the_peak_wait_and_more_capacity_never_lengthens_it(
        excess, arrival_rps, trend_rps2, rate, step, landings, horizon_s, absorb, cap, more, landing_at):
    case = dict(excess=excess, arrival_rps=arrival_rps, trend_rps2=trend_rps2, rate=rate, step=step,
                arrivals=landings, horizon_s=horizon_s, absorb=absorb, max_arrival_rps=cap)
    base = peak_wait(**case)
    # On the same evaluation grid: an extra landing at one of its times (integer: the k-th of 60
    # grid points) or after the horizon (float: seconds past it).
    extra = horizon_s * landing_at / 60 if isinstance(landing_at, int) else horizon_s + landing_at
    # A relative 1e-9 for float rounding only.
    for change in ("excess", "arrival_rps", "trend_rps2"):
        assert peak_wait(**{**case, change: case[change] + more}) >= base * (1 - 1e-9) - 1e-9, change
    assert peak_wait(**{**case, "rate": rate + more}) <= base * (1 + 1e-9) + 1e-9, "rate"
    assert peak_wait(**{**case, "arrivals": [*landings, extra]}) <= base * (1 + 1e-9) + 1e-9, "extra landing"


@settings(max_examples=150, deadline=None)
@given(**queue_cases, spare=st.floats(0, 100))
def test_no_wait_while_free_slots_hold_every_arrival_of_the_horizon(excess, arrival_rps, trend_rps2, rate, step,
                                                                     landings, horizon_s, absorb, cap, spare):
    # However much faster than the drain they come: slots free now take them all. Nothing queued
    # and nothing arriving (arrival rate 0, trend <= 0) is the case with no free slot at all.
    highest = min(max(arrival_rps, arrival_rps + trend_rps2 * horizon_s, 0.0), cap)
    free = -(highest * horizon_s + spare)
    assert peak_wait(free, arrival_rps, trend_rps2, rate, step, landings, horizon_s, absorb=absorb,
                     max_arrival_rps=cap) == 0.0
    assert peak_wait(0.0, 0.0, min(trend_rps2, 0.0), rate, step, landings, horizon_s, absorb=absorb) == 0.0
