"""A configured perReplicaCapacity that overstates what the fleet completes gives way to the
measured one (docs/policy.md, Known limits), and only on clean evidence: a queue held for half a
window on a fleet whose ready count has not changed for a whole one."""

import pytest
from hypothesis import given, settings, strategies as st

from scaler.policy import ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.policy.estimate import CAPACITY_TRUST_SHARE

from policy_helpers import Scenario

CONFIGURED = 5.0
CONFIG = PolicyConfig(ttft_slo_s=2.0, per_replica_capacity_rps=CONFIGURED, scale_up_latency_s=60.0,
                      max_concurrency=8.0, state_hold_s=10.0, rate_window_s=10.0)
SATURATED = dict(waiting=20, running=16, ready=2)  # two full batches and a queue


def test_a_sustained_queue_completing_well_below_the_configured_capacity_lowers_it_and_the_drain():
    scenario = Scenario(CONFIG)
    decision = scenario.hold(30, completions_per_s=6, **SATURATED)  # 3/s a replica, configured 5
    assert decision.capacity_source == "learned-below-configured"
    assert decision.capacity_rps == pytest.approx(3.0, abs=0.05)
    assert decision.drain_rps == pytest.approx(6.0, abs=0.1)  # was max(mu, N x c) = 10
    note = next(n for n in decision.notes if "measured while saturated" in n)
    assert "3.0" in note and "configured 5/s" in note
    # The same queue read against the configured drain waits less than it does now.
    configured = Scenario(CONFIG).hold(3, completions_per_s=6, **SATURATED)
    assert configured.capacity_source == "configured" and decision.wait_s > configured.wait_s


def test_within_the_margin_the_configured_capacity_stands():
    decision = Scenario(CONFIG).hold(40, completions_per_s=2 * CONFIGURED * (CAPACITY_TRUST_SHARE + 0.02), **SATURATED)
    assert decision.capacity_source == "configured" and decision.capacity_rps == CONFIGURED


def test_a_fleet_that_just_grew_is_not_read_as_slow():
    scenario = Scenario(CONFIG)
    scenario.hold(20, completions_per_s=10, **SATURATED)  # 5/s a replica: as configured
    # Two replicas join; for a while the fleet still completes at the old pace (the new ones have
    # finished nothing yet), so mu / N reads half the capacity.
    joined = [scenario.tick(waiting=20, running=32, ready=4, completions_per_s=10) for _ in range(9)]
    assert all(d.capacity_source == "configured" and d.capacity_rps == CONFIGURED for d in joined)
    assert scenario.state.learned.capacity_rps == pytest.approx(CONFIGURED)


def test_a_queue_that_comes_and_goes_teaches_nothing():
    scenario = Scenario(CONFIG)
    for i in range(40):
        decision = scenario.tick(waiting=10 if i % 4 else 0, running=16, ready=2, completions_per_s=4)
        assert decision.capacity_source == "configured"


def test_a_queue_beside_free_batch_slots_teaches_nothing():
    # One replica queues while the other has room (a router's imbalance): not the fleet's limit.
    decision = Scenario(CONFIG).hold(30, waiting=4, running=11, ready=2, completions_per_s=6)
    assert decision.capacity_source == "configured" and decision.capacity_rps == CONFIGURED


def test_a_window_only_partly_saturated_teaches_nothing():
    scenario = Scenario(CONFIG)
    scenario.hold(10, waiting=0, running=6, ready=2, completions_per_s=3)  # not saturated: 1.5/s a replica
    # The burst saturates the batches at the configured pace: the window's mean rate is low, the
    # saturated stretch's is not.
    decision = scenario.hold(14, completions_per_s=10, **SATURATED)
    assert decision.capacity_source == "configured" and decision.capacity_rps == CONFIGURED


def test_a_short_sample_teaches_nothing():
    scenario = Scenario(CONFIG)
    scenario.hold(10, waiting=0, running=6, ready=2, completions_per_s=3)
    for _ in range(5):  # under half a window of a slow saturated fleet
        assert scenario.tick(completions_per_s=6, **SATURATED).capacity_source == "configured"
    assert scenario.hold(8, completions_per_s=6, **SATURATED).capacity_source == "learned-below-configured"


def test_a_batch_that_just_filled_is_not_read_as_slow():
    # The queue forms as the batches fill: their requests started together and finish together,
    # a turnover later; what completed in between says nothing about capacity.
    scenario = Scenario(CONFIG)
    scenario.hold(10, waiting=0, running=6, ready=2, completions_per_s=6)
    scenario.hold(3, completions_per_s=0.5, **SATURATED)
    decision = scenario.hold(20, completions_per_s=10, **SATURATED)
    assert all(d.capacity_source == "configured" for d in scenario.decisions)
    assert decision.capacity_rps == CONFIGURED


def test_never_learned_above_the_configured_capacity_and_recovers_up_to_it():
    scenario = Scenario(CONFIG)
    scenario.hold(30, completions_per_s=20, **SATURATED)  # 10/s a replica: more than configured
    assert scenario.decisions[-1].capacity_rps == CONFIGURED
    assert scenario.state.learned.capacity_rps == CONFIGURED
    scenario.hold(30, completions_per_s=6, **SATURATED)
    assert scenario.decisions[-1].capacity_source == "learned-below-configured"
    # The evidence goes away: an idle fleet keeps the measurement (nothing says it was wrong) ...
    assert scenario.hold(30, waiting=0, running=2, ready=2, completions_per_s=1).capacity_source == "learned-below-configured"
    # ... and a saturated window that completes more moves it back, to the configured value at most.
    decision = scenario.hold(40, completions_per_s=20, **SATURATED)
    assert decision.capacity_source == "configured" and decision.capacity_rps == CONFIGURED
    assert scenario.state.learned.capacity_rps == CONFIGURED


def _run(config, snapshots):
    window, state, decision = SignalWindow(config.rate_window_s), ModelState(), None
    for snap in snapshots:
        window.push(snap)
        decision, state = decide("m", config, window, state, snap.time)
    return decision


def test_missing_or_stalled_completions_never_lower_the_capacity():
    # No completion counter at all (a source without it), or a counter that stopped (stalled):
    # nothing is measured, so nothing is lowered and RED admits what the configured drain allows.
    without = _run(CONFIG, [Snapshot(time=t, waiting=20, running=16, ready_replicas=2) for t in range(1, 40)])
    stalled = _run(CONFIG, [Snapshot(time=t, waiting=20, running=16, ready_replicas=2, completed_total=100.0)
                            for t in range(1, 40)])
    for decision in (without, stalled):
        assert decision.capacity_source == "configured" and decision.capacity_rps == CONFIGURED
        assert decision.drain_rps == 2 * CONFIGURED


def test_auto_mode_still_learns_the_capacity():
    auto = PolicyConfig(**{**CONFIG.__dict__, "per_replica_capacity_rps": None})
    decision = Scenario(auto).hold(20, completions_per_s=6, **SATURATED)
    assert decision.capacity_source == "learned" and decision.capacity_rps == pytest.approx(3.0, abs=0.05)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 3, 20]), st.integers(0, 4), st.floats(0, 40)), min_size=1, max_size=40))
def test_the_capacity_in_use_is_never_above_the_configured_one_nor_zero(ticks):
    scenario = Scenario(CONFIG)
    for waiting, ready, mu in ticks:
        decision = scenario.tick(waiting=waiting, running=8 * ready, ready=ready, completions_per_s=mu)
        assert 0 < decision.capacity_rps <= CONFIGURED
        assert decision.capacity_source in ("configured", "learned-below-configured")
        assert decision.drain_rps >= decision.completion_rps
