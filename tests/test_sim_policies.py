"""Each baseline reproduces its documented mechanism, driven by scripted fleet views on a manual clock."""

from __future__ import annotations

import math

import pytest

from scaler.engine import MemberState
from scaler.sim.policies import POLICIES, make
from scaler.sim.setup import ColdStart, Setup
from scaler.workloads import Arrival

from sim_helpers import context, member, ready, view, workload


def policy_for(name, *, peak=10, initial=2, arrivals=None, setup=None, knob=None):
    arrivals = arrivals or [Arrival(float(t), 512, 128) for t in range(100)]
    w = workload(arrivals, initial=initial, peak=peak, setup=setup)
    return make(name, context(w, setup), knob)


def drive(policy, script, until, start_desired):
    """Call control every second; `script(t, desired)` gives the view. Returns [(t, replicas)]."""
    desired, changes = start_desired, []
    for t in range(until + 1):
        result = policy.control(float(t), script(float(t), desired))
        if result is not None and result != desired:
            changes.append((t, result))
            desired = result
    return changes


def test_every_policy_is_registered_with_its_bench_name_and_a_documented_knob():
    assert list(POLICIES) == ["slo-scaler", "kserve-keda-running", "keda-waiting", "hpa-gpu-util", "ray-serve",
                              "knative-kpa", "llm-d-token", "static", "static-peak", "clairvoyant"]
    ctx = context(workload([Arrival(float(t), 512, 128) for t in range(100)], initial=1, peak=6))
    for name, cls in POLICIES.items():
        assert cls.knob != "-", name
        values = cls.grid(ctx)
        assert values and all(v > 0 for v in values), name
        assert make(name, ctx, values[0]).knob_value == values[0] or name == "static-peak"
    assert POLICIES["static"].grid(ctx) == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)  # every count up to the peak size
    # The protocol is the same for every policy: each swept knob gets as many values as ours. The
    # clairvoyant (a reference, never an "other") plans up to the saturated throughput, where its
    # grid ends one value short.
    swept = {name: len(cls.grid(ctx)) for name, cls in POLICIES.items()
             if name not in ("static", "static-peak", "clairvoyant")}
    assert set(swept.values()) == {6}, swept
    assert max(POLICIES["clairvoyant"].grid(ctx)) == 1.0
    # Each grid's GPU-saving end is one step past the previous five values (stop 43).
    assert max(POLICIES["slo-scaler"].grid(ctx)) == 1.0
    formula = POLICIES["llm-d-token"].formula_threshold_s(ctx)
    assert max(POLICIES["llm-d-token"].grid(ctx)) == round(2 * formula, 3)
    with pytest.raises(ValueError, match="target_ongoing_requests: expected a number > 0"):
        make("ray-serve", ctx, -1.0)


def test_kserve_running_scales_on_sum_running_over_2_with_scrape_and_sync_lag():
    policy = policy_for("kserve-keda-running")

    def script(t, desired):
        running = 1 if t < 20 else 7  # per ready pod: 2 then 14 requests running in all
        return view(t, ready(2, running=running), desired=desired)

    # The load appears at t=20; the scrape at t=30 sees it and the HPA syncs at t=30:
    # ceil(14 / 2) = 7 wanted, +4 pods per 15 s allowed -> 6, then 7 at t=45.
    assert drive(policy, script, 60, 2) == [(30, 6), (45, 7)]


def test_kserve_running_respects_the_10_percent_tolerance():
    policy = policy_for("kserve-keda-running", peak=20)
    # 17 running on 8 pods: 17 / (2 x 8) = 1.06, inside the tolerance: no change.
    assert drive(policy, lambda t, d: view(t, [member(1, running=17)] + ready(7), desired=d), 40, 8) == []


def test_keda_waiting_scales_on_sum_waiting_over_5():
    policy = policy_for("keda-waiting")

    def script(t, desired):
        return view(t, ready(2, running=30, waiting=0 if t < 5 else 6), desired=desired)

    # Scrapes at 0, 15, 30; the HPA at t=15 reads 12 waiting: ceil(12 / 5) = 3.
    assert drive(policy, script, 40, 2) == [(15, 3)]


def test_hpa_gpu_utilisation_saturates_at_100_percent():
    policy = policy_for("hpa-gpu-util", peak=20)

    def script(t, desired):
        # Every pod busy all the time (vLLM with any batch): utilisation 100% whatever the queue.
        return view(t, [member(i + 1, running=50, waiting=400, busy_s=t) for i in range(desired)], desired=desired)

    changes = drive(policy, script, 160, 2)
    # 100 / 80 = 1.25 per sync at most, whatever the 400 waiting per pod. DCGM collects every 30 s
    # (the first utilisation exists after two collections, at t=30) and a new pod needs two
    # collections too, so the syncs in between see it as missing and hold.
    assert changes == [(30, 3), (90, 4), (150, 5)]


def test_hpa_gpu_utilisation_counts_starting_pods_as_idle_on_scale_up():
    policy = policy_for("hpa-gpu-util", peak=20)

    def script(t, desired):
        pods = [member(i + 1, busy_s=t) for i in range(2)]
        pods += [member(3 + i, state=MemberState.STARTING) for i in range(desired - 2)]
        return view(t, pods, desired=desired)

    # First utilisation (t=30): 2 pods at 100% -> 3. Then the starting pod reports nothing:
    # (100+100+0)/3 = 67% < 80%, the direction flips, so the count holds at 3 while it starts.
    assert drive(policy, script, 90, 2) == [(30, 3)]


def test_ray_serve_waits_for_the_upscale_delay_and_the_long_downscale_delay():
    policy = policy_for("ray-serve", peak=10, initial=1, knob=2.0)

    def script(t, desired):
        ongoing = 10 if t < 100 else 0
        return view(t, ready(desired, running=ongoing // desired), desired=desired)

    changes = drive(policy, script, 800, 1)
    up = changes[0]
    assert up[1] == 5  # ceil(10 / 2)
    assert 30 < up[0] <= 45  # > upscale_delay_s of consistent decisions, on metrics pushed every 10 s
    down = [c for c in changes if c[1] < 5]
    assert down and down[0][1] == 1 and down[0][0] > 100 + 600  # downscale_delay_s 600


def test_ray_serve_at_ray_serve_llm_defaults_neither_caps_nor_scales():
    policy = policy_for("ray-serve", initial=1)
    assert policy.max_ongoing_per_replica is None and policy.max_queued is None  # max_ongoing_requests 1e9
    # target_ongoing_requests 1e9: 500 ongoing requests ask for one replica.
    assert drive(policy, lambda t, d: view(t, ready(d, running=500), desired=d), 200, 1) == []


def test_knative_panics_at_twice_the_ready_capacity_and_holds_for_the_stable_window():
    policy = policy_for("knative-kpa", peak=20, initial=1)

    def script(t, desired):
        concurrency = 200 if 100 <= t < 110 else 10  # target 70 per pod
        pods = [member(1, running=concurrency)] + [member(i + 2) for i in range(desired - 1)]
        return view(t, pods, desired=desired)

    changes = drive(policy, script, 260, 1)
    assert changes[0][0] < 100 or changes[0][1] >= 2  # no spurious early change
    panic = [c for c in changes if 100 <= c[0] <= 110]
    # The 6 s average passes 2 x 70 within a few ticks: panic follows ceil(avg / 70) up to 3 pods.
    assert panic and max(n for _, n in panic) == 3
    after = [c for c in changes if c[0] > 110]
    # No scale-down in panic; it ends 60 s after the last over-threshold tick, then the stable window decides.
    assert after and after[0][0] > 160 and after[-1][1] == 1
    assert policy.summary()["panics"] == 1


def test_llmd_token_aware_scales_on_prefill_seconds_one_pod_per_180s():
    setup = Setup()
    policy = policy_for("llm-d-token", peak=10, initial=1, setup=setup)
    threshold = setup.ttft_slo_s - 512 / 28000.0  # TTFT SLO minus the median prompt's prefill floor
    assert policy.prefill_threshold_s == pytest.approx(threshold)

    def script(t, desired):
        return view(t, ready(desired, prefill_tokens=int(10 * 28000 / desired)), desired=desired)  # 10 s of prefill

    changes = drive(policy, script, 400, 1)
    assert math.ceil(10 / threshold) == 6  # what the trigger asks for
    assert changes == [(0, 2), (180, 3), (360, 4)]


def test_llmd_token_aware_decode_trigger_counts_pods_worth_of_kv():
    policy = policy_for("llm-d-token", peak=10, initial=2)
    changes = drive(policy, lambda t, d: view(t, ready(d, kv=0.9), desired=d), 10, 2)
    assert changes == [(0, 3)]  # sum 1.8 / 0.8 = 2.25 -> 3 (one pod per 180 s)


def test_static_peak_never_moves():
    policy = policy_for("static-peak", peak=7)
    assert policy.initial_replicas() == 7
    assert drive(policy, lambda t, d: view(t, ready(d, waiting=500), desired=d), 100, 7) == []


def test_clairvoyant_asks_one_cold_start_ahead_of_a_known_jump():
    arrivals = [Arrival(float(t), 512, 128) for t in range(300)]
    arrivals += [Arrival(300 + i / 30, 512, 128) for i in range(30 * 60)]  # 30 req/s from t=300
    setup = Setup(cold_start=ColdStart(median_s=60.0))
    policy = policy_for("clairvoyant", peak=12, initial=1, arrivals=arrivals, setup=setup)
    changes = drive(policy, lambda t, d: view(t, ready(d), desired=d), 400, 1)
    lookahead = setup.cold_start.quantile(0.95) + 10.0
    first = changes[0]
    assert first[1] == math.ceil(30 / (4.0 * 0.8))  # the need of the 30 req/s window at planning level 0.8
    assert first[0] == math.ceil(300 - lookahead)  # asked when t + lookahead reaches the jump


def test_slo_scaler_sends_demand_to_keda_and_sheds_in_red():
    policy = policy_for("slo-scaler", peak=10, initial=3)
    completed, offered, demands = 0, 0, {}

    def script(t, desired):
        nonlocal completed, offered
        completed += 12  # 3 replicas draining 12 req/s (capacity 4 each)
        offered += 8 if t < 30 else 40  # from t=30, 40 req/s arrive
        waiting = 0 if t < 30 else int((t - 30) * 28)
        return view(t, ready(3, running=16, waiting=waiting // 3) + [
            member(4 + i, state=MemberState.STARTING, created_at=t) for i in range(desired - 3)],
            desired=desired, completed=completed, offered=offered, admitted=offered)

    original = policy.control

    def control(now, v):
        result = original(now, v)
        demands[now] = policy.decision.demand
        return result

    policy.control = control
    changes = drive(policy, script, 50, 3)
    assert policy.decision.state.value == "RED"
    # Demand in replica-equivalents goes to the HPA as an AverageValue metric with target 1: each
    # change is at a 15 s sync and is ceil(demand), at most +max(4 pods, 100%) per 15 s.
    assert changes, "the burst must scale the fleet"
    previous = 3
    for t, replicas in changes:
        assert t % 15 == 0
        assert replicas == min(10, max(previous + 4, 2 * previous), math.ceil(demands[t]))
        previous = replicas
    refusals = [policy.admit(50.0 + i / 100, _Attempt()) for i in range(100)]
    refused = [r for r in refusals if r is not None]
    assert refused and all(r.code == 503 and 1 <= r.retry_after_s <= 60 for r in refused)
    assert policy.summary()["verdicts"]["red-over-drain-rate"] == len(refused)


def test_slo_scaler_admits_everything_in_green():
    policy = policy_for("slo-scaler", peak=10, initial=2)
    for t in range(20):
        policy.control(float(t), view(float(t), ready(2, running=4), completed=4 * t, offered=4 * t, admitted=4 * t))
    assert policy.decision.state.value == "GREEN"
    assert all(policy.admit(20.0 + i / 10, _Attempt()) is None for i in range(50))


class _Attempt:
    arrival = Arrival(0.0, 512, 128)
