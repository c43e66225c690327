"""render's burst floor held by the policy: whole while the traffic reaches it, fading when it does not."""

from __future__ import annotations

import pytest

from scaler.policy import PolicyConfig, burst_floor
from scaler.policy.burst_floor import BurstFloor, observe
from scaler.policy.headroom import HISTORY_HALF_LIFE_S, ONCE_HALF_LIFE_S, faded_returns
from scaler.policy.config import ConfigError

from policy_helpers import Scenario

ONCE, CAME_BACK = ONCE_HALF_LIFE_S, HISTORY_HALF_LIFE_S


LATENCY = 60.0  # the scale-up latency a return must stay away for


def _step(state, now, rate, replicas=6.0, carry=2.0, recurrence=1.0, reached=None):
    """One tick at `rate`; the rate surely reached is the rate itself unless given."""
    return observe(state, burst_replicas=replicas, now=now, rate_rps=rate, reached_rps=rate if reached is None else reached,
                   carry_rps=carry, recurrence=recurrence, gap_s=LATENCY)


def test_the_floor_starts_as_a_burst_that_came_back_and_fades_faster_as_the_traffic_stays_away():
    held, state = _step(BurstFloor(), 100.0, None)  # first tick, no history yet: whole
    assert held == 6.0 and state.reached == 100.0 and state.returns == 1.0
    assert state.half_life() == CAME_BACK
    held, state = _step(state, 100.0 + ONCE, 9.9)  # 9.9 req/s < (6 - 1) x 2: below its last replica
    assert state.reached == 100.0 and 4.5 < held < 5.0  # five minutes on, nearly the 20-minute fade
    held, state = _step(state, 100.0 + CAME_BACK, 9.9)
    # Twenty minutes on, the prior's return counts for half: a half-life of 300 + 900 x 0.5 = 750 s.
    assert state.half_life() == pytest.approx(750.0) and held == pytest.approx(6.0 * 0.5 ** (CAME_BACK / 750.0))
    held, state = _step(state, 100.0 + 2 * CAME_BACK, None)  # no reading: fades on, towards 5 minutes
    assert state.half_life() == pytest.approx(525.0) and 0.0 < held < 0.5
    # Its return is 40 minutes old (0.25 left): kept until faded whole while it counts for that much,
    # rounded a minute later.
    assert state.returns == pytest.approx(0.25) and burst_floor.replicas(held, returns=0.25) == 1
    assert burst_floor.replicas(held, returns=faded_returns(state.returns, 60.0)) == 0


def test_a_level_profiles_floor_fades_as_a_burst_seen_once_and_a_return_makes_it_a_burst_again():
    """burstRecurrence 0 (the profile's peak minute at its mean: a level the traffic was at) starts
    the floor with no return: five minutes after the traffic stops reaching it, it holds half."""
    held, state = _step(BurstFloor(), 0.0, 12.0, recurrence=0.0)
    assert held == 6.0 and state.returns == 0.0 and state.half_life() == ONCE
    held, state = _step(state, ONCE, 4.0, recurrence=0.0)  # below half its last replica's 10 req/s
    assert held == pytest.approx(3.0) and state.armed
    whole, _ = _step(_step(BurstFloor(), 0.0, 12.0)[1], ONCE, 4.0)  # the same run, a burst's profile
    assert whole > 4.4  # nearly the 20-minute fade
    held, state = _step(state, ONCE + 60.0, 10.0, recurrence=0.0)  # the traffic came back to it: a return
    assert held == 6.0 and state.returns == pytest.approx(1.0, rel=0.01) and state.half_life() > 0.99 * CAME_BACK
    between, _ = _step(_step(BurstFloor(), 0.0, 12.0, recurrence=0.5)[1], ONCE, 4.0, recurrence=0.5)
    assert 3.0 < between < whole  # in between, in between


def test_traffic_that_comes_back_to_the_floors_last_replica_holds_it_whole_and_for_twenty_minutes_after():
    held, state = _step(BurstFloor(), 0.0, 10.0)  # (6 - 1) x 2 req/s: its last replica is needed
    assert held == 6.0 and state.returns == 1.0
    _, state = _step(state, 60.0, 9.0)  # just below: not yet a fall
    assert not state.armed
    _, state = _step(state, 2 * CAME_BACK, 4.9)  # below half of it, long after: armed, the prior faded
    assert state.armed and state.half_life() < 600.0
    held, state = _step(state, 2 * CAME_BACK + 60.0, 10.0)  # back: a return
    assert held == 6.0 and state.returns > 1.0 and state.half_life() == CAME_BACK
    held, state = _step(state, 2 * CAME_BACK + 60.0 + ONCE, 1.0)
    assert held > 4.9  # five minutes on: it fades with (nearly) the 20-minute half-life


def test_waves_closer_than_a_scale_up_latency_do_not_come_back_to_the_floor():
    """A wave that falls below half the floor's last replica and is back within a scale-up latency is
    the same burst, as in the burst history (scaler.policy.headroom.Peak): counted as a return, each
    wave of a level profile's job kept its floor for twenty minutes."""
    held, state = _step(BurstFloor(), 0.0, 12.0, recurrence=0.0)
    for start in range(0, 600, 40):  # 20 s below half, 20 s back at it: waves 40 s apart
        _, state = _step(state, start + 20.0, 4.0, recurrence=0.0)
        _, state = _step(state, start + 40.0, 12.0, recurrence=0.0)
        assert state.returns == 0.0 and not state.armed
    _, state = _step(state, 620.0, 4.0, recurrence=0.0)
    _, state = _step(state, 620.0 + LATENCY, 4.0, recurrence=0.0)  # below for a scale-up latency: armed
    assert state.armed
    _, state = _step(state, 700.0 + LATENCY, 6.0, recurrence=0.0)  # between half and the last replica
    assert state.armed and state.below_s == 0.0  # armed stays, the dip is over
    _, state = _step(state, 720.0 + LATENCY, 12.0, recurrence=0.0)
    assert state.returns == 1.0 and state.half_life() == CAME_BACK


def test_the_floor_is_reached_by_the_rate_less_its_noise_and_left_by_the_rate_as_counted():
    """117 arrivals over 15 s are 7.8 req/s, but one standard deviation of their Poisson noise (10.8)
    lower it is 7.1: a level that reaches the last replica's rate only by noise does not hold the
    floor, and the same windows still count as the traffic near it, not away from it."""
    assert burst_floor.reached_rate(117.0, 15.0) == pytest.approx((117.0 - 117.0 ** 0.5) / 15.0)
    assert burst_floor.reached_rate(0.0, 15.0) == 0.0
    held, state = _step(BurstFloor(), 0.0, 12.0, recurrence=0.0)
    held, state = _step(state, ONCE, 10.2, reached=9.4, recurrence=0.0)  # (6 - 1) x 2 = 10 only by noise
    assert state.reached == 0.0 and held == pytest.approx(3.0)  # not reached: it faded five minutes
    assert state.below_s == 0.0 and not state.armed  # and the traffic is near it, not away
    held, state = _step(state, ONCE + 1.0, 11.5, reached=10.6, recurrence=0.0)  # a burst clears its noise
    assert state.reached == ONCE + 1.0 and held == 6.0


def test_no_floor_and_an_unknown_capacity():
    assert _step(BurstFloor(), 50.0, 100.0, replicas=0.0) == (0.0, BurstFloor())
    _, state = _step(BurstFloor(), 0.0, None, replicas=4.0, carry=0.0)
    assert _step(state, 10 * CAME_BACK, 0.5, replicas=4.0, carry=0.0)[0] == 4.0  # carry unknown: held whole
    assert burst_floor.replicas(0.0, returns=1.0) == 0 and burst_floor.replicas(2.0000000001, returns=1.0) == 2


def test_a_floor_the_traffic_comes_back_to_keeps_a_replica_until_faded_whole_and_one_it_left_rounds():
    for held, came_back, left in ((2.2, 3, 2), (2.5, 3, 3), (2.49, 3, 2), (0.6, 1, 1), (0.4, 1, 0), (3.0, 3, 3)):
        assert burst_floor.replicas(held, returns=1.0) == came_back
        assert burst_floor.replicas(held, returns=0.24) == left
    assert burst_floor.replicas(2.2, returns=burst_floor.ROUNDED_BELOW_RETURNS) == 3  # the bound keeps it


def test_burst_recurrence_is_a_metadata_key_with_its_bounds_and_unset_is_a_burst_that_returns():
    assert PolicyConfig().burst_recurrence == 1.0
    assert PolicyConfig.from_metadata({"burstRecurrence": "0.25"}).burst_recurrence == 0.25
    assert PolicyConfig.from_metadata({"burstRecurrence": "0"}).burst_recurrence == 0.0
    for bad in ("-0.1", "1.5", "often", "nan"):
        with pytest.raises(ConfigError, match="burstRecurrence"):
            PolicyConfig.from_metadata({"burstRecurrence": bad})


def test_burst_replicas_is_a_metadata_key_with_its_bounds():
    assert PolicyConfig.from_metadata({"burstReplicas": "7"}).burst_replicas == 7.0
    assert PolicyConfig(burst_replicas=7.0).to_metadata()["burstReplicas"] == "7.0"
    for bad in ("-1", "1001", "many", "nan"):
        with pytest.raises(ConfigError, match="burstReplicas"):
            PolicyConfig.from_metadata({"burstReplicas": bad})


def _quiet_then_busy(config: PolicyConfig):
    """One replica serving 1 req/s for 40 minutes, then 20 req/s for a minute."""
    s = Scenario(config)
    arrived = 0.0
    quiet = []
    for _ in range(int(2 * CAME_BACK)):
        arrived += 1.0
        quiet.append(s.tick(waiting=0, running=2, ready=1, completions_per_s=1.0, arrivals_total=arrived))
    busy = []
    for _ in range(60):
        arrived += 20.0
        busy.append(s.tick(waiting=0, running=20, ready=5, completions_per_s=20.0, arrivals_total=arrived))
    return quiet, busy


def test_decide_holds_the_floor_as_demand_lets_it_fade_in_quiet_traffic_and_holds_it_again_when_traffic_returns():
    config = PolicyConfig(ttft_slo_s=2.0, scale_up_latency_s=60.0, per_replica_capacity_rps=5.0, max_concurrency=32,
                          target_utilization=0.8, burst_replicas=5.0)
    quiet, busy = _quiet_then_busy(config)
    assert quiet[0].demand == 5 and quiet[0].burst_floor == 5.0
    assert any("burst floor holds 5" in n for n in quiet[0].notes)
    # 1 req/s is below (5 - 1) x 5 x 0.8 = 16 req/s: it fades, ever faster as its prior return fades.
    floors = [d.burst_floor for d in quiet]
    assert all(a >= b for a, b in zip(floors, floors[1:]))
    at_twenty = quiet[int(CAME_BACK) - 1]  # 1,199 s after the first tick: a half-life of about 750 s
    assert at_twenty.burst_floor == pytest.approx(5.0 * 0.5 ** (1199 / 750.0), rel=0.01) and at_twenty.demand == 2
    assert any("fades with a 13-minute half-life" in n for n in at_twenty.notes)
    assert quiet[-1].demand < 2 and quiet[-1].burst_floor < 0.5
    # 20 req/s over 15 s reaches the rate of its fifth replica: whole again.
    assert busy[-1].burst_floor == 5.0 and busy[-1].demand >= 5


def test_decide_lets_the_floor_fade_under_clumps_that_reach_its_last_replica_only_by_noise(monkeypatch):
    """13 req/s with a 15 s clump at 17 req/s every two minutes: over 15 s the clump reads above the
    fifth replica's 16 req/s, but by less than one standard deviation of its 255 arrivals' noise
    (15.9 req/s surely reached), so the floor fades as under 13 req/s; a burst at 20 req/s holds it."""
    config = PolicyConfig(ttft_slo_s=2.0, scale_up_latency_s=60.0, per_replica_capacity_rps=5.0, max_concurrency=32,
                          target_utilization=0.8, burst_replicas=5.0, burst_recurrence=0.0)

    def run(clump_rps):
        s, arrived, out = Scenario(config), 0.0, []
        for second in range(int(2 * ONCE)):
            arrived += clump_rps if second % 120 >= 105 else 13.0
            out.append(s.tick(waiting=0, running=20, ready=5, completions_per_s=13.0, arrivals_total=arrived))
        return out

    noise, burst = run(17.0), run(20.0)
    assert noise[-1].burst_floor < 1.5 and noise[-1].demand < 5
    assert min(d.burst_floor for d in burst[120:]) > 3.5  # whole again every two minutes
    monkeypatch.setattr(burst_floor, "REACH_NOISE_Z", 0.0)  # the rate as counted: each clump holds it whole
    assert min(d.burst_floor for d in run(17.0)[120:]) > 3.5


def test_without_burst_replicas_decide_keeps_no_floor():
    config = PolicyConfig(ttft_slo_s=2.0, scale_up_latency_s=60.0, per_replica_capacity_rps=5.0, max_concurrency=32)
    quiet, _ = _quiet_then_busy(config)
    assert all(d.burst_floor == 0.0 for d in quiet) and quiet[-1].demand < 2


def test_decide_rounds_a_faded_floor_the_traffic_left_and_keeps_one_it_comes_back_to(monkeypatch):
    """1 req/s under a floor of 3: once the floor has faded to between 1 and 1.5 replicas, a level
    profile's (burstRecurrence 0, no returns) asks for 1, a burst profile's (its prior return still
    counts for more than a quarter) keeps 2 until it has faded to 1 whole."""
    def faded(recurrence):
        config = PolicyConfig(ttft_slo_s=2.0, scale_up_latency_s=60.0, per_replica_capacity_rps=5.0, max_concurrency=32,
                              target_utilization=0.8, burst_replicas=3.0, burst_recurrence=recurrence)
        s, arrived = Scenario(config), 0.0
        for _ in range(int(CAME_BACK / 5)):
            arrived += 5.0
            d = s.tick(dt=5.0, waiting=0, running=1, ready=3, completions_per_s=1.0, arrivals_total=arrived)
            if 1.0 < d.burst_floor < 1.5:
                return d
        raise AssertionError("the floor never faded to between 1 and 1.5")

    level = faded(0.0)
    assert level.demand == 1 and any("burst floor holds 1" in n for n in level.notes)
    came_back = faded(1.0)  # 15 minutes on: its prior return still counts 0.6
    assert came_back.demand == 2 and any("burst floor holds 2" in n for n in came_back.notes)
    monkeypatch.setattr(burst_floor, "ROUNDED_BELOW_RETURNS", 0.0)  # kept until faded whole (to stop 55)
    assert faded(0.0).demand == 2
