"""The HPA and KEDA actuator models against Kubernetes' documented algorithm, on a manual clock."""

from __future__ import annotations

import pytest

from scaler.autoscaling import (
    HpaSpec, HpaState, KedaSpec, KedaState, Reading, ScalingPolicy, ScalingRules, Trigger, replicas_for, step,
)
from scaler.autoscaling import hpa


def avg(value, target=1.0):
    return Reading("AverageValue", target, value=value)


@pytest.mark.parametrize(
    "label, reading, current, want",
    [
        ("average value: ceil(total / target)", avg(7.0, 2.0), 2, 4),
        ("inside the 10% tolerance keeps the count", avg(4.3, 2.0), 2, 2),
        ("just outside the tolerance scales", avg(4.5, 2.0), 2, 3),
        ("scale down to ceil", avg(2.1, 2.0), 4, 2),
        ("zero metric asks for zero (bounds come later)", avg(0.0, 2.0), 3, 0),
        ("value: ratio times current", Reading("Value", 2.0, value=5.0), 2, 5),
        ("pods metric: average against target", Reading("Pods", 80.0, per_pod=(100.0, 100.0)), 2, 3),
        ("pods metric in tolerance", Reading("Pods", 80.0, per_pod=(84.0, 80.0)), 2, 2),
        # 2 pods at 100% of an 80% target, 2 starting pods missing: counted as 0 when scaling up.
        ("missing pods count 0 on scale up", Reading("Pods", 80.0, per_pod=(100.0, 100.0), missing_pods=2), 4, 4),
        ("missing pods count as target on scale down", Reading("Pods", 80.0, per_pod=(10.0, 10.0), missing_pods=2), 4, 3),
        ("NaN is read as 0", avg(float("nan"), 1.0), 2, 0),
    ],
)
def test_replica_calculation(label, reading, current, want):
    assert replicas_for(reading, current) == want, label


def run(spec, metrics, current, start=0.0):
    """Sync every period with metric values from `metrics` (a list), return the counts."""
    state, counts, now = HpaState(), [], start
    for value in metrics:
        decision, state = hpa.sync(spec, state, now, current, [avg(value)])
        current = decision.desired
        counts.append(current)
        now += spec.sync_period_s
    return counts


def test_default_scale_up_is_max_of_4_pods_or_double_per_15s():
    spec = HpaSpec(min_replicas=1, max_replicas=100)
    assert run(spec, [50, 50, 50, 50], current=1) == [5, 10, 20, 40]  # +4, then doubling wins
    assert run(spec, [50, 50], current=10) == [20, 40]


def test_scale_down_waits_for_the_300s_stabilisation_window():
    spec = HpaSpec(min_replicas=1, max_replicas=20)
    counts = run(spec, [10] + [2] * 25, current=10)
    # The 10 recommended at t=0 holds the count while it is inside the window: until t=285 s.
    assert counts[:20] == [10] * 20
    assert counts[20] == 2  # at t=300 the t=0 recommendation is no longer after the cutoff


def test_scale_up_stabilisation_takes_the_lowest_recent_recommendation():
    up = ScalingRules(60.0, (ScalingPolicy("Percent", 100, 15.0),), "Max")
    spec = HpaSpec(min_replicas=1, max_replicas=50, scale_up=up)
    counts = run(spec, [1, 8, 8, 8, 8, 8], current=1)
    assert counts == [1, 1, 1, 1, 2, 4]  # the 1 recommended at t=0 holds the count until t=60, then doubling


def test_pods_policy_counts_events_in_the_period():
    slow = ScalingRules(0.0, (ScalingPolicy("Pods", 1, 180.0),), "Max")
    spec = HpaSpec(min_replicas=1, max_replicas=10, scale_up=slow)
    counts = run(spec, [9] * 14, current=1)
    assert counts[0] == 2 and counts[11] == 2 and counts[12] == 3  # one pod per 180 s


def test_min_select_policy_takes_the_smallest_change():
    down = ScalingRules(0.0, (ScalingPolicy("Pods", 1, 60.0), ScalingPolicy("Percent", 50, 60.0)), "Min")
    spec = HpaSpec(min_replicas=1, max_replicas=10, scale_down=down)
    assert run(spec, [1, 1, 1, 1, 1], current=8) == [7, 7, 7, 7, 6]


def test_bounds_are_applied():
    spec = HpaSpec(min_replicas=2, max_replicas=5)
    assert run(spec, [100], current=2) == [5]
    assert run(HpaSpec(min_replicas=2, max_replicas=5, scale_down=ScalingRules(0.0, hpa.DEFAULT_SCALE_DOWN.policies)),
               [0], current=4) == [2]


def test_sync_period_gates_due():
    spec = HpaSpec()
    state = HpaState(last_sync=100.0)
    assert not hpa.due(spec, state, 114.0) and hpa.due(spec, state, 115.0)


def test_zero_target_replicas_disables_scaling():
    decision, _ = hpa.sync(HpaSpec(min_replicas=1), HpaState(), 0.0, 0, [avg(10)])
    assert decision.desired == 0 and decision.reason == "ScalingDisabled"


@pytest.mark.parametrize("bad, field", [
    (lambda: ScalingPolicy("Replicas", 1, 15), "type"),
    (lambda: ScalingPolicy("Pods", 0, 15), "value"),
    (lambda: ScalingRules(0, (), "Max"), "policies"),
    (lambda: ScalingRules(0, (ScalingPolicy("Pods", 1, 15),), "Fastest"), "selectPolicy"),
    (lambda: HpaSpec(min_replicas=3, max_replicas=2), "minReplicas"),
    (lambda: Reading("Average", 1.0), "metricType"),
    (lambda: Reading("Value", 0.0), "target"),
    (lambda: KedaSpec(polling_interval_s=0), "pollingInterval"),
])
def test_bad_specs_name_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        bad()


# --- KEDA on top of the HPA -------------------------------------------------------------


def drive_keda(spec, values, current, dt=1.0):
    """Call step every `dt` seconds; values[i] is the metric at second i."""
    state, history, calls = KedaState(), [], []
    for i, value in enumerate(values):
        now = i * dt

        def read(value=value, now=now):
            calls.append(now)
            return [Trigger(avg(value, 2.0))]

        result, state = step(spec, state, now, current, read)
        if result.replicas is not None:
            current = result.replicas
            history.append((now, current, result.reason))
    return history, calls


def test_keda_hpa_reads_fresh_metrics_every_sync_not_every_poll():
    spec = KedaSpec(hpa=HpaSpec(min_replicas=1, max_replicas=10), polling_interval_s=30.0)
    values = [0.0] * 20 + [12.0] * 40
    history, calls = drive_keda(spec, values, current=1)
    # The load appears at t=20; the next HPA sync is t=30 (syncs at 0, 15, 30): fresh value read.
    assert history[0] == (30.0, 5, "ScaleUpLimit")  # 6 wanted, +4 per 15 s
    assert history[1] == (45.0, 6, "DesiredWithinRange")
    assert calls == [0.0, 15.0, 30.0, 45.0]


def test_keda_cached_metrics_serve_the_last_poll():
    spec = KedaSpec(hpa=HpaSpec(min_replicas=1, max_replicas=10), polling_interval_s=30.0, use_cached_metrics=True)
    values = [0.0] * 35 + [12.0] * 40
    history, _ = drive_keda(spec, values, current=1)
    assert history[0][0] == 60.0  # t=45 sync still serves the t=30 poll (0); the t=60 poll sees the load


def test_keda_activates_from_zero_and_cools_down():
    spec = KedaSpec(hpa=HpaSpec(min_replicas=0, max_replicas=4), polling_interval_s=10.0, cooldown_period_s=60.0)
    values = [0.0] * 5 + [3.0] * 20 + [0.0] * 120
    history, _ = drive_keda(spec, values, current=0)
    assert history[0] == (10.0, 1, "activated")
    zero = [h for h in history if h[1] == 0]
    assert zero and zero[0][2] == "deactivated after cooldownPeriod"
    assert zero[0][0] >= 20.0 + 60.0  # last active poll at t=20, then a full cooldown


def test_a_new_hpa_does_not_scale_down_before_one_window():
    spec = HpaSpec(min_replicas=1, max_replicas=10)
    counts = run(spec, [0.0] * 22, current=4)
    assert counts[:20] == [4] * 20 and counts[21] == 1
