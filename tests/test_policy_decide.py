"""Table-driven single-tick cases and multi-tick scenarios for the queue-SLO decision."""

import math
import random

import pytest

from scaler.autoscaling.hpa import Reading, replicas_for
from scaler.policy import ModelState, PolicyConfig, headroom
from scaler.policy.decide import RELEASE_HOLD_LATENCIES, State

from policy_helpers import Scenario

BASE = PolicyConfig(ttft_slo_s=2.0, per_replica_capacity_rps=5.0, scale_up_latency_s=60.0,
                    target_utilization=0.8, state_hold_s=10.0, rate_window_s=10.0)


def steady(config, *, waiting, running, ready, completions_per_s, ticks=10, state=None, **extra):
    scenario = Scenario(config)
    if state is not None:
        scenario.state = state
    return scenario.hold(ticks, waiting=waiting, running=running, ready=ready,
                         completions_per_s=completions_per_s, **extra)


@pytest.mark.parametrize(
    "label, config, signal, want",
    [
        ("idle model", BASE, dict(waiting=0, running=0, ready=1, completions_per_s=0),
         dict(state=State.GREEN, reason="within-budget", demand=0.0, active=False)),
        ("busy but no queue", BASE, dict(waiting=0, running=8, ready=2, completions_per_s=4),
         dict(state=State.GREEN, reason="within-budget", demand=pytest.approx(4 / (5 * 0.8)), active=True)),
        ("queue eats the whole budget", BASE, dict(waiting=40, running=16, ready=2, completions_per_s=10),
         dict(state=State.RED, reason="wait-exceeds-budget", wait_s=pytest.approx(4.0))),
        ("short queue growing, fast scale-up", PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": 5.0}),
         dict(waiting=8, running=16, ready=2, completions_per_s=10, arrivals_total=None),
         dict(state=State.GREEN)),  # arrivals equal drain: not growing, stays green
        ("zero replicas with demand", BASE, dict(waiting=5, running=0, ready=0, completions_per_s=0),
         dict(state=State.RED, wait_s=pytest.approx(60 - 9 + 1), starting_replicas=1, active=True)),  # its own replica asked at t=1
        ("stalled queue", BASE, dict(waiting=10, running=4, ready=2, completions_per_s=0),
         dict(state=State.RED, reason="queue-stalled")),
    ],
)
def test_single_model_cases(label, config, signal, want):
    decision = steady(config, **signal)
    for key, value in want.items():
        assert getattr(decision, key) == value, f"{label}: {key}={getattr(decision, key)!r}"
    assert decision.detail, label
    assert decision.demand >= 0 and not math.isnan(decision.demand)


def test_growing_queue_is_yellow_when_capacity_can_still_arrive_in_time():
    config = PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": 5.0})
    scenario = Scenario(config)
    # Queue grows by 1 per second while 2 replicas drain 10/s: wait 0.8 s then 0.9 s ...
    for i in range(6):
        decision = scenario.tick(waiting=8 + i, running=16, ready=2, completions_per_s=10)
    assert decision.state is State.YELLOW, decision.detail
    assert decision.reason == "queue-growing"
    assert decision.peak_wait_s < config.budget_s


def test_classic_rule_would_shed_a_quiet_queue_ours_does_not():
    # queue_time + scale_up_time >= B is always true with a 60 s cold start and a 2 s budget.
    decision = steady(BASE, waiting=2, running=8, ready=2, completions_per_s=10)
    assert 0 < decision.wait_s < BASE.budget_s
    assert decision.wait_s + BASE.scale_up_latency_s >= BASE.budget_s  # the classic rule: RED
    assert decision.state is State.GREEN  # ours: the queue is not growing, nothing to shed


def test_pending_replicas_shorten_the_wait_but_not_the_demand():
    without = steady(BASE, waiting=80, running=16, ready=2, completions_per_s=10, starting_ages=())
    with_pending = steady(BASE, waiting=80, running=16, ready=2, completions_per_s=10, starting_ages=(55.0, 55.0))
    assert without.wait_s == pytest.approx(8.0)
    # 50 drained in the 5 s before both replicas land, each takes 8 (the learned batch size,
    # 16 running / 2 ready) at once, the last 14 go at 20/s.
    assert with_pending.wait_s == pytest.approx(5 + 14 / 20)
    assert with_pending.need == pytest.approx(without.need)
    # The same replicas asked for: 2.83 against 2 is asked as 3 whole replicas (the HPA would keep
    # 2 up to 2.2); against the 4 KEDA has with 2 starting, 2.83 keeps them.
    assert without.demand == 3.0 and with_pending.demand == pytest.approx(without.need)
    assert with_pending.starting_replicas == 2


def test_a_demand_past_the_replicas_kedas_has_is_asked_as_whole_replicas_so_the_hpa_starts_them():
    # The HPA keeps its count while the metric is within its 10% tolerance of it: against 3
    # replicas a demand of 3.2 started nothing until it reached 3.3.
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 10_000.0})
    decision = steady(config, waiting=0, running=8, ready=3, completions_per_s=12.8, ticks=20, starting_ages=())
    assert decision.need == pytest.approx(3.2) and decision.demand == 4.0
    assert replicas_for(Reading("AverageValue", 1.0, value=decision.need), 3) == 3  # what the need alone got
    assert replicas_for(Reading("AverageValue", 1.0, value=decision.demand), 3) == 4
    assert any("4 whole replicas" in note for note in decision.notes)
    # Without a pod listing the replica decide expects may not be started yet: the demand stays
    # whole tick after tick, so the HPA, at whatever sync, still reads 4 against its 3.
    unlisted = Scenario(config)
    unlisted.hold(20, waiting=0, running=8, ready=3, completions_per_s=12.8)
    settled = [d for d in unlisted.decisions if d.need > 3.0]
    assert settled and all(d.demand == 4.0 for d in settled), [d.demand for d in settled]
    # A need under what KEDA has is not rounded up: 3.2 against 4 ready keeps its fraction.
    lower = steady(config, waiting=0, running=8, ready=4, completions_per_s=12.8, ticks=20, starting_ages=())
    assert lower.demand == pytest.approx(3.2)


def test_without_a_pod_listing_a_demand_within_the_hpas_tolerance_counts_no_replica_as_starting():
    # No pod listing (starting_ages None): decide counts what KEDA's HPA will start. From 11
    # replicas on, one more is within its tolerance: against 12 the HPA keeps 12 up to 13.2, so
    # 12.5, asked as 13, starts nothing (ceil(demand) - 12 booked one as on its way, with
    # capacity that never lands).
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 10_000.0})
    within = steady(config, waiting=0, running=8, ready=12, completions_per_s=50.0, ticks=20)
    assert within.demand == 13.0 and within.starting_replicas == 0, within.detail
    beyond = steady(config, waiting=0, running=8, ready=12, completions_per_s=56.0, ticks=20)
    assert beyond.demand > 13.2 and beyond.starting_replicas == math.ceil(beyond.demand) - 12


def test_red_admission_rate_drains_the_queue_within_budget():
    decision = steady(BASE, waiting=40, running=16, ready=2, completions_per_s=10)
    # Drain 10/s, the queue may hold 10 * 2 s * 0.8 = 16; 24 too many to remove within 2 s.
    assert decision.admission_rps == pytest.approx(0.0)
    lighter = steady(BASE, waiting=20, running=16, ready=2, completions_per_s=10, starting_ages=(58.0,))
    assert lighter.admission_rps == pytest.approx(10 - 4 / 2)
    assert 1.0 <= lighter.retry_after_s <= 60.0


def test_green_admits_without_a_cap():
    decision = steady(BASE, waiting=0, running=4, ready=2, completions_per_s=4)
    assert decision.admission_rps is None


# --- multi-tick scenarios on a manual clock -------------------------------------------------


def test_no_flapping_on_a_noisy_signal_around_the_threshold():
    config = PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": 3.0})
    scenario = Scenario(config)
    rng = random.Random(7)
    waiting = 8.0
    for _ in range(300):
        waiting = max(0.0, 8.0 + rng.uniform(-3, 3))  # wait 0.5..1.1 s around the 0.8 s yellow line
        scenario.tick(waiting=waiting, running=16, ready=2, completions_per_s=10)
    assert len(scenario.transitions) <= 4, scenario.transitions


def test_demand_does_not_climb_while_replicas_are_starting():
    scenario = Scenario(BASE)
    # Arrivals at 20/s against 2 replicas of 5/s: the queue grows, demand asks for more replicas.
    waiting, demands = 0.0, []
    for _ in range(40):
        waiting += 10.0
        demands.append(scenario.tick(waiting=waiting, running=16, ready=2, completions_per_s=10).demand)
    later = demands[15:]
    assert max(later) / min(later) < 1.6, later  # only the backlog term grows, never a cascade
    assert scenario.decisions[-1].starting_replicas == math.ceil(scenario.decisions[-1].demand) - 2


def test_scale_up_latency_is_learned_from_replicas_becoming_ready():
    config = PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": None, "scale_up_prior_s": 60.0})
    scenario = Scenario(config)
    scenario.hold(5, waiting=50, running=16, ready=2, completions_per_s=10)
    asked = next(d.time for d in scenario.decisions if d.starting_replicas > 0)
    assert scenario.decisions[-1].scale_up_latency_s == 60.0  # the prior, nothing learned yet
    scenario.hold(25, waiting=50, running=16, ready=2, completions_per_s=10)
    decision = scenario.tick(waiting=50, running=16, ready=3, completions_per_s=15)
    assert decision.scale_up_latency_s == pytest.approx(decision.time - asked)
    assert any("replica ready after" in note for note in decision.notes)


def test_capacity_is_learned_while_the_queue_is_non_empty():
    config = PolicyConfig(**{**BASE.__dict__, "per_replica_capacity_rps": None})
    decision = steady(config, waiting=0, running=3, ready=2, completions_per_s=3)
    assert decision.capacity_source == "unknown" and decision.demand == 2.0  # holds, never guesses
    decision = steady(config, waiting=20, running=16, ready=2, completions_per_s=8)
    assert decision.capacity_source == "learned"
    assert decision.capacity_rps == pytest.approx(4.0)


def test_burst_goes_green_yellow_red_and_back_after_hold():
    config = PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": 8.0})
    scenario = Scenario(config)
    scenario.hold(10, waiting=0, running=8, ready=2, completions_per_s=8)
    waiting = 0.0
    for _ in range(12):  # burst: 2 extra requests a second queue up
        waiting += 2.0
        scenario.tick(waiting=waiting, running=16, ready=2, completions_per_s=10)
    assert scenario.decisions[-1].state is State.RED
    for _ in range(60):  # burst over, the queue drains
        waiting = max(0.0, waiting - 4.0)
        scenario.tick(waiting=waiting, running=8 if waiting == 0 else 16, ready=2, completions_per_s=8)
    states = [to for _, to in scenario.transitions]
    assert states[0] == "YELLOW" and "RED" in states and states[-1] == "GREEN", scenario.transitions
    red_exit = next(d for d in scenario.decisions if d.state_changed and d.previous_state is State.RED)
    assert red_exit.reason == "recovered"


def test_state_survives_as_explicit_value():
    decision_state = steady(BASE, waiting=40, running=16, ready=2, completions_per_s=10, ticks=3)
    assert decision_state.state is State.RED
    fresh = ModelState()
    assert fresh.state is State.GREEN and fresh.pending_since == ()


def test_worked_example_in_docs_policy_md():
    config = PolicyConfig(ttft_slo_s=2.0, expected_prefill_s=0.2, per_replica_capacity_rps=5.0,
                          scale_up_latency_s=60.0, target_utilization=0.8, rate_window_s=10,
                          max_concurrency=64, prefill_tps=10_000)
    scenario = Scenario(config)
    scenario.now = -1.0
    for t in range(11):
        decision = scenario.tick(waiting=6, running=40, ready=2, completions_per_s=10, arrivals_total=14.0 * t,
                                 starting_ages=(30.0 + t,), prompt_tokens_in_flight=40_000)
    assert decision.budget_s == pytest.approx(1.8)
    assert decision.wait_s == 0.0  # 46 in flight, 128 slots: nobody waits for a slot
    assert decision.ttft_s == pytest.approx(0.0 + (40_000 / 2 + 2_000) / 10_000)  # 2.2 s
    assert decision.state is State.RED and decision.reason == "wait-exceeds-budget"
    assert decision.need == pytest.approx((14 + 6 / 60) / (5 * 0.8)) and decision.burst_window_s == 0.0  # 3.525
    assert decision.demand == 4.0  # past the 3 KEDA has (2 ready, 1 starting): asked as 4 whole replicas
    assert decision.pressure == pytest.approx(4.0 / 2)
    # Prefill keeps 28,800 tokens within 0.8 x budget; the 11,200 beyond go within one budget.
    assert decision.admission_rps == pytest.approx((20_000 - 11_200 / 1.8) / 2_000)  # 6.89/s
    assert decision.retry_after_s == 1.0  # 0.2 s over budget, clamped to 1 s

    # The same fleet seen by request counts only: nobody waits for a slot, so all looks well.
    counts = Scenario(PolicyConfig(**{**config.__dict__, "prefill_tps": None}))
    counts.now = -1.0
    for t in range(11):
        blind = counts.tick(waiting=6, running=40, ready=2, completions_per_s=10, arrivals_total=14.0 * t,
                            starting_ages=(30.0 + t,))
    assert blind.state is State.GREEN and blind.ttft_s == pytest.approx(0.2)


def test_arrival_trend_counts_only_when_it_stands_out_of_poisson_noise():
    from scaler.policy.signals import SignalWindow, Snapshot

    def window(counts):
        w, total = SignalWindow(60), 0.0
        for t, n in enumerate(counts):
            total += n
            w.push(Snapshot(time=float(t), waiting=0, running=0, ready_replicas=1, arrivals_total=total))
        return w.rates()

    noisy = window([10, 12, 9, 11, 10, 13, 9, 12, 10, 11, 12, 10])
    assert noisy.arrival_trend_rps2 == 0.0
    rising = window([10, 10, 10, 10, 10, 10, 30, 30, 30, 30, 30, 30])
    assert rising.arrival_trend_rps2 > 2.0


def test_a_slow_rise_from_a_low_rate_is_forecast_over_the_scale_up_horizon():
    # 2/s for two minutes, then rising by 0.1/s every second. Over the 10 s window the halves differ
    # by 0.5/s, under 3 sigma of their Poisson noise (5.2/s): no trend there. Over the 60 s scale-up
    # horizon they differ by 3/s against 1.7/s: the forecast counts the rise, 0.1/s per second.
    scenario, total = Scenario(BASE), 0.0
    for t in range(180):
        rate = 2.0 + 0.1 * max(0, t - 120)
        total += rate
        decision = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=rate, arrivals_total=total)
    assert scenario.window.rates().arrival_trend_rps2 == 0.0
    assert decision.arrival_forecast_rps == pytest.approx(decision.arrival_rps + 0.1 * 60, rel=0.02)
    assert decision.need == pytest.approx(decision.arrival_forecast_rps / (5.0 * 0.8))
    assert any("arrivals rising 0.100/s per s over the last 60s" in note for note in decision.notes), decision.notes
    before = scenario.decisions[119]  # flat until then: the forecast is the rate, and no note
    assert before.arrival_forecast_rps == before.arrival_rps
    assert not any("arrivals rising" in note for note in before.notes)


def test_near_the_saturated_throughput_the_need_keeps_room_for_the_rate_noise_over_a_scale_up():
    from scaler.policy import headroom
    from scaler.policy.decide import RATE_NOISE_Z

    # 9.8/s, smoothly, for three minutes on replicas of 5/s with L = 60 s. At targetUtilization 1
    # the mean rate needs 1.96 replicas, and two would run saturated whenever the count runs above
    # its mean; its Poisson noise over the horizon is sqrt(9.8 x 60) / 60 = 0.404/s, so the need is
    # (9.8 + 1 x 0.404) / 5 = 2.04: a third replica. At 0.8 the utilisation's own margin is larger
    # (9.8 / 4 = 2.45) and the noise changes nothing.
    assert RATE_NOISE_Z == 1.0
    noise = RATE_NOISE_Z * math.sqrt(9.8 * 60) / 60
    for utilization, want in ((1.0, (9.8 + noise) / 5.0), (0.8, 9.8 / 4.0)):
        scenario, total = Scenario(PolicyConfig(**{**BASE.__dict__, "target_utilization": utilization})), 0.0
        for _ in range(180):
            total += 9.8
            decision = scenario.tick(waiting=0, running=8, ready=2, completions_per_s=9.8, arrivals_total=total)
        assert decision.arrival_forecast_rps == pytest.approx(9.8)
        assert decision.need == pytest.approx(want, rel=1e-6), utilization
        # the log says which margin set the need
        noted = any("Poisson noise over 60s (0.40/s at 1 sd)" in note for note in decision.notes)
        assert noted == (utilization == 1.0), decision.notes
    assert math.ceil((9.8 + noise) / 5.0) == 3 and math.ceil(9.8 / 5.0) == 2
    # Until the history reaches back one scale-up latency, no noise is counted.
    short = headroom.BurstHistory()
    for t in range(30):
        short = headroom.observe(short, float(t), 9.6 * t, 0.0, 60.0)
    assert headroom.rate_noise(short, 29.0, 60.0) == 0.0
    assert headroom.rate_noise(short, 29.0, 20.0) == pytest.approx(math.sqrt(9.6 * 20) / 20)


def test_the_horizon_trend_ignores_noise_falls_and_a_history_shorter_than_the_horizon():
    from scaler.policy import headroom

    rng, history, total = random.Random(3), headroom.BurstHistory(), 0.0
    for t in range(600):
        total += _poisson(rng, 10.0)
        history = headroom.observe(history, float(t), total, 0.0, 60.0)
        assert headroom.trend(history, float(t), 60.0) == 0.0, t  # flat Poisson: never a rise
    falling = headroom.BurstHistory()
    for t, arrived in enumerate(range(0, 6000, 100)):  # 100/s, then nothing
        falling = headroom.observe(falling, float(t), float(min(arrived, 3000)), 0.0, 60.0)
    assert headroom.trend(falling, 59.0, 60.0) == 0.0
    short = headroom.BurstHistory()
    for t in range(30):
        short = headroom.observe(short, float(t), float(t * t), 0.0, 60.0)  # a steep rise, 30 s of it
    assert headroom.trend(short, 29.0, 60.0) == 0.0 and headroom.trend(short, 29.0, 20.0) > 1.0


def test_a_steady_stream_in_clumps_is_not_forecast_as_a_rise_over_the_rate_window():
    from scaler.policy.decide import MAX_FORECAST_GROWTH

    # 10/s as 40 requests every 4 s: as a clump lands at the end of the 10 s window, its late half
    # holds 3 clumps against the early half's 2 (12/s against 8/s), past Poisson's 3 sigma; the
    # counts' own spread (40 or nothing a second) says it is noise, and the forecast is the rate.
    scenario, total = Scenario(BASE), 0.0
    for t in range(1, 121):
        total += 40.0 if t % 4 == 0 else 0.0
        clumps = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=10, arrivals_total=total)
    assert scenario.window.rates().arrival_trend_rps2 > 1.0, "Poisson's test alone reads a rise"
    assert clumps.arrival_forecast_rps == clumps.arrival_rps == pytest.approx(12.0)
    # the same 10/s doubling over the window's last 5 s, smoothly: a rise, forecast (capped at 3x)
    scenario, total = Scenario(BASE), 0.0
    for t in range(120):
        total += 20.0 if t >= 115 else 10.0
        rising = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=10, arrivals_total=total)
    assert rising.arrival_forecast_rps == pytest.approx(MAX_FORECAST_GROWTH * rising.arrival_rps)


def test_a_rise_in_a_stream_that_comes_in_clumps_must_beat_the_clumps_spread():
    from scaler.policy import headroom

    def history(arrivals_at):
        h, total = headroom.BurstHistory(), 0.0
        for t in range(200):
            total += arrivals_at(t)
            h = headroom.observe(h, float(t), total, 0.0, 60.0)
        return headroom.trend(h, 199.0, 60.0)

    # 10/s, then 13/s over the last 30 s: Poisson noise on 30 s halves is 0.88/s, so a smooth
    # stream's rise of 3/s is a trend; the same rates in clumps every 5 s (50, then 65) spread
    # 40 times as wide as Poisson's, and the same rise is within their noise.
    assert history(lambda t: 13.0 if t >= 170 else 10.0) == pytest.approx(3.0 / 30, rel=0.05)
    assert history(lambda t: (65.0 if t >= 170 else 50.0) if t % 5 == 0 else 0.0) == 0.0


def _poisson(rng: random.Random, mean: float) -> int:
    threshold, k, p = math.exp(-mean), 0, rng.random()
    while p > threshold:
        k += 1
        p *= rng.random()
    return k


def test_a_burst_is_shed_only_once_requests_admitted_now_would_miss():
    # 103 running on 3 replicas, nothing waiting, arrivals 3/s above the completion rate: they
    # fill free batch slots. With 100 slots a replica, 60 s of it fits (the simulator's finding,
    # docs/simulator.md); with 36 slots the batch fills in a second and a queue is projected to
    # blow the budget before a new replica lands, but requests admitted now still start at once:
    # refusing them would not help them (the previous core went RED here). Once requests do wait
    # beyond the budget, RED.
    def run(slots, waiting=0.0):
        config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": slots, "per_replica_capacity_rps": 4.25})
        scenario = Scenario(config)
        running = 67.0
        for _ in range(12):
            running += 3.0
            decision = scenario.tick(waiting=waiting, running=min(running, 3 * slots), ready=3, completions_per_s=12.75)
        return decision

    roomy, tight = run(100.0), run(36.0)
    assert roomy.state is State.GREEN and roomy.peak_wait_s == 0.0, roomy.detail
    assert tight.state is not State.RED and tight.wait_s == 0.0, tight.detail
    assert tight.peak_wait_s > tight.budget_s  # the projection still sees it coming
    queued = run(36.0, waiting=40.0)
    assert queued.state is State.RED and queued.wait_s > queued.budget_s, queued.detail


def test_red_needs_half_a_window_of_history_unless_the_queue_is_already_over_budget():
    early = steady(BASE, waiting=5, running=16, ready=2, completions_per_s=10, ticks=2)
    assert early.state is State.GREEN and any("history" in n for n in early.notes)
    over = steady(BASE, waiting=40, running=16, ready=2, completions_per_s=10, ticks=2)
    assert over.state is State.RED


def test_a_batch_too_slow_for_the_tpot_slo_is_red_and_admits_only_what_completes():
    # 200 running on 2 replicas make 1,000 output tokens/s: 200 ms per token against a 100 ms SLO.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 256})
    scenario = Scenario(config)
    for t in range(1, 12):
        decision = scenario.tick(waiting=0, running=200, ready=2, completions_per_s=4,
                                 generation_tokens_total=1000.0 * t)
    assert decision.state is State.RED and decision.reason == "tpot-exceeds-slo", decision.detail
    assert decision.admission_rps == pytest.approx(4.0)  # the batch grows no further
    assert decision.need >= 2 * 0.2 / (0.7 * 0.1) - 1e-9  # spread until TPOT sits at 70% of the SLO
    fast = Scenario(config)
    for t in range(1, 12):
        quick = fast.tick(waiting=0, running=20, ready=2, completions_per_s=4, generation_tokens_total=1000.0 * t)
    assert quick.state is State.GREEN, quick.detail  # 20 ms per token


def test_a_slow_batch_past_its_safe_concurrency_admits_less_than_completes_until_it_is_back_within_it():
    # The same slow batch (200 running on 2 replicas at 200 ms per token, 4 completing a second),
    # with S = 80: 40 beyond the 160 slots. Admitting what completes keeps it at 200, past the size
    # where TPOT meets its SLO; it admits what completes less the 40 removed within one budget.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 80})

    def slow(running):
        scenario = Scenario(config)
        for t in range(1, 12):
            decision = scenario.tick(waiting=0, running=running, ready=2, completions_per_s=4,
                                     generation_tokens_total=running / 0.2 * t)
        return decision

    past = slow(200)
    assert past.state is State.RED and past.reason == "tpot-exceeds-slo", past.detail
    assert past.admission_rps == pytest.approx(max(0.0, 4.0 - 40 / config.budget_s))
    within = slow(150)  # as slow, within its slots: it grows no further
    assert within.state is State.RED and within.admission_rps == pytest.approx(4.0), within.detail


def test_a_batch_nearing_its_safe_concurrency_asks_for_replicas_before_its_tpot_reads_slow():
    # 4 ready, S = 60, arrivals at the completion rate (4/s: one replica's worth at 0.8) and 20 ms
    # per output token. The batches are kept at the target utilisation of S, 80%: 150 running (62%
    # of 240 slots) need no more replicas, 200 (83%) need 200 / 48 = 4.2, so a fifth starts while
    # TPOT still reads fast. Nothing is refused for it: the measured TPOT is within its SLO.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 60})
    decisions = {}
    for running in (150, 200):
        scenario = Scenario(config)
        for t in range(1, 12):
            decision = scenario.tick(waiting=0, running=running, ready=4, completions_per_s=4,
                                     generation_tokens_total=running / 0.02 * t)
        decisions[running] = decision
    assert decisions[150].demand <= 4 and decisions[150].state is State.GREEN, decisions[150].detail
    assert decisions[200].need == pytest.approx(200 / (0.8 * 60)) and decisions[200].demand == 5.0  # a fifth, whole
    assert decisions[200].state is State.GREEN and decisions[200].admission_rps is None, decisions[200].detail


@pytest.mark.parametrize("target, share", [(0.5, 0.7), (0.7, 0.7), (0.9, 0.9), (1.0, 1.0)])
def test_the_batches_are_planned_at_the_target_utilisation_of_their_safe_concurrency(target, share):
    # 2 ready, S = 100, 170 running with arrivals at the completion rate (no queue, TPOT fast), and
    # a capacity the rate term does not ask more of. The batch term plans them at the target's
    # share of S, never below the 70% the TPOT target keeps: 170 / (share x 100) replicas, a third
    # at every target below 0.9 and none at 0.9 or 1.0, where a fleet planned on its rate at that
    # share is too (until stop 47 it asked for 170 / 70 = 2.4 at every target).
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 100,
                             "per_replica_capacity_rps": 20.0, "target_utilization": target})
    scenario = Scenario(config)
    for t in range(1, 12):
        decision = scenario.tick(waiting=0, running=170, ready=2, completions_per_s=4, arrivals_total=4.0 * t,
                                 generation_tokens_total=170 / 0.02 * t)
    assert decision.need == pytest.approx(170 / (share * 100)), decision.detail
    assert (decision.demand > 2) is (target < 0.9), decision.detail


def test_a_batch_that_arrivals_still_grow_asks_for_the_batch_they_sustain():
    # The same 4 ready, S = 60 and 150 running (62% of the slots, no more replicas needed while
    # arrivals match completions), but 6 arrivals/s against 4 completions/s: the batch is still
    # growing, and by Little's law settles at 150 x 6 / 4 = 225, which needs 225 / 48 = 4.7.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 60})
    scenario = Scenario(config)
    for t in range(1, 12):
        decision = scenario.tick(waiting=0, running=150, ready=4, completions_per_s=4, arrivals_total=6.0 * t,
                                 generation_tokens_total=150 / 0.02 * t)
    assert decision.arrival_rps == pytest.approx(6.0) and decision.completion_rps == pytest.approx(4.0)
    assert decision.need == pytest.approx(150 * 6 / 4 / (0.8 * 60)) and decision.demand == 5.0, decision.detail
    assert decision.state is State.GREEN and decision.admission_rps is None, decision.detail
    # Completions outpacing arrivals do not shrink it below the batch running now.
    scenario = Scenario(config)
    for t in range(1, 12):
        decision = scenario.tick(waiting=0, running=200, ready=4, completions_per_s=4, arrivals_total=2.0 * t,
                                 generation_tokens_total=200 / 0.02 * t)
    assert decision.need == pytest.approx(200 / (0.8 * 60)) and decision.demand == 5.0, decision.detail


def test_a_tpot_reading_over_the_slo_on_a_fleet_with_an_idle_replica_sheds_nothing():
    # 9 ready, 2 running: the 2 just began, so the 5 s output-token rate barely counts them and
    # their TPOT reads 200 ms. A request admitted now decodes in a batch of one or two.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 12})
    idle = Scenario(config)
    for t in range(1, 12):
        decision = idle.tick(waiting=0, running=2, ready=9, completions_per_s=1, generation_tokens_total=10.0 * t)
    assert decision.state is State.GREEN and decision.admission_rps is None, decision.detail
    # The same reading with a request in flight for every replica is a slow batch: RED.
    busy = Scenario(config)
    for t in range(1, 12):
        decision = busy.tick(waiting=0, running=9, ready=9, completions_per_s=1, generation_tokens_total=45.0 * t)
    assert decision.state is State.RED and decision.reason == "tpot-exceeds-slo", decision.detail


def test_a_clump_that_just_began_decoding_is_not_read_as_a_slow_batch():
    # 4 ready, 40 running at 50 ms per token (800 tokens/s), then 40 more join in the last second.
    # Counted whole over a 5 s output-token rate that barely includes them, the 80 read as 100 ms
    # per token: a TPOT RED that refuses requests while the batch is at half its SLO (ramp-and-spikes
    # went RED on such a reading and read 0.58 x five seconds later). The batch that made those
    # tokens averaged 44 running.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 256})
    scenario, made = Scenario(config), 0.0
    for _ in range(11):
        made += 800.0
        scenario.tick(waiting=0, running=40, ready=4, completions_per_s=4, generation_tokens_total=made)
    made += 800.0
    clump = scenario.tick(waiting=0, running=80, ready=4, completions_per_s=4, generation_tokens_total=made)
    assert clump.state is State.GREEN, clump.detail
    # Held at 80 with the rate still at 800 tokens/s: a batch at 100 ms per token. RED.
    for _ in range(12):
        made += 800.0
        slow = scenario.tick(waiting=0, running=80, ready=4, completions_per_s=4, generation_tokens_total=made)
    assert slow.state is State.RED and slow.reason == "tpot-exceeds-slo", slow.detail


def test_a_fleet_that_wakes_after_a_silence_is_neither_stalled_nor_a_slow_batch():
    # A replica idle for a minute (no completion in the window), then a backlog lands at once:
    # 14 waiting, 24 running, the output tokens of their first second. rebalance-stall went RED
    # here, first as a stalled queue (the silence had completed nothing), then as a 333 ms
    # per-token batch (the prompts' first tokens over five seconds mostly idle).
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 74, "rate_window_s": 30.0})
    scenario = Scenario(config)
    scenario.hold(60, waiting=0, running=0, ready=1, completions_per_s=0, generation_tokens_total=0.0)
    woken = scenario.tick(waiting=14, running=24, ready=1, completions_per_s=0, generation_tokens_total=60.0)
    assert woken.state is not State.RED, woken.detail
    assert not any(d.reason in ("queue-stalled", "tpot-exceeds-slo") for d in scenario.decisions)
    # The same queue held for half a window with nothing completing is a stalled engine: RED.
    stuck = scenario.hold(int(config.rate_window_s / 2), waiting=14, running=24, ready=1, completions_per_s=0,
                          generation_tokens_total=60.0)
    assert stuck.state is State.RED and stuck.reason == "queue-stalled", stuck.detail
    assert scenario.decisions[-int(config.rate_window_s / 2) - 1].reason != "queue-stalled"  # not before


def test_a_few_slow_seconds_in_a_batch_within_its_tpot_slo_over_a_decode_shed_nothing():
    # 100 running on 4 replicas, 4 completing a second: a request decodes for 25 s. At 60 ms per
    # token for 30 s, then 5 s at 150 ms (a clump's prefill chunks sharing the steps): the 5 s
    # reading is 1.5 x the SLO, but over the last decode the batch made 68 ms per token, and the
    # TPOT SLO bounds a request's mean over its decode. No RED. The same slowness held for a
    # whole decode is a slow batch: RED.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 256, "rate_window_s": 30.0})
    scenario, made = Scenario(config), 0.0
    for _ in range(30):
        made += 100 / 0.06
        scenario.tick(waiting=0, running=100, ready=4, completions_per_s=4, generation_tokens_total=made)
    for _ in range(5):
        made += 100 / 0.15
        blip = scenario.tick(waiting=0, running=100, ready=4, completions_per_s=4, generation_tokens_total=made)
    assert blip.state is not State.RED, blip.detail
    for _ in range(25):
        made += 100 / 0.15
        slow = scenario.tick(waiting=0, running=100, ready=4, completions_per_s=4, generation_tokens_total=made)
    assert slow.state is State.RED and slow.reason == "tpot-exceeds-slo", slow.detail
    assert "150 ms per output token" in slow.detail


def test_running_requests_beyond_the_slots_project_no_wait_while_nobody_waits():
    # 300 running on 4 replicas of 60 slots, nobody waiting, arrivals level with completions:
    # vLLM started the 60 beyond the slots, so no request arriving now waits for one. The
    # projection counted them as a queue: 60 / 20 per s = 3 s of projected wait.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 60})
    scenario, made, arrived = Scenario(config), 0.0, 0.0
    for _ in range(12):
        made, arrived = made + 300 / 0.05, arrived + 20.0
        decision = scenario.tick(waiting=0, running=300, ready=4, completions_per_s=20, arrivals_total=arrived,
                                 generation_tokens_total=made)
    assert decision.peak_wait_s == 0.0 and decision.wait_s == 0.0, decision.detail
    # With 10 waiting, they are what stands beyond: 10 / 20 per s.
    queued = Scenario(config)
    for _ in range(12):
        made, arrived = made + 300 / 0.05, arrived + 20.0
        decision = queued.tick(waiting=10, running=300, ready=4, completions_per_s=20, arrivals_total=arrived,
                               generation_tokens_total=made)
    assert decision.peak_wait_s == pytest.approx(0.5), decision.detail


def test_ready_replicas_are_held_one_scale_up_latency_starting_ones_are_not():
    # Batches roomy enough that no burst headroom is kept: the sustained rate alone sets the need.
    # A 30 s scale-up, longer than the 10 s rate window, so the hold outlasts the rate's lag.
    config = PolicyConfig(**{**BASE.__dict__, "scale_up_latency_s": 30.0, "max_concurrency": 10_000.0})
    assert RELEASE_HOLD_LATENCIES == 1.0
    busy = Scenario(config)
    busy.hold(12, waiting=0, running=40, ready=4, completions_per_s=16)  # needs 16 / 4 = 4 replicas
    quiet = busy.hold(12, waiting=0, running=4, ready=4, completions_per_s=0.5)
    assert quiet.need < 1.0 and quiet.demand == 4.0  # the 4 ready are held
    busy.hold(60, waiting=0, running=4, ready=4, completions_per_s=0.5)
    # Held while anything in the last scale-up latency needed more than 3; released once the need
    # of the latency before (the rate window's 10 s lag included) is under 1.
    last_needed = max(d.time for d in busy.decisions if d.need > 3.0)
    after = [d for d in busy.decisions if d.time > last_needed]
    assert all(d.demand > 3.0 for d in after if d.time - last_needed < 30.0)
    released = min(d.time for d in after if d.demand < 1.0)
    assert 30.0 <= released - last_needed <= 30.0 + 10.0 + 1.0
    # The same drop with 2 of them still starting: the starting ones are not held.
    starting = Scenario(config)
    starting.hold(12, waiting=0, running=40, ready=2, completions_per_s=16, starting_ages=(1.0, 1.0))
    dropped = starting.hold(12, waiting=0, running=4, ready=2, completions_per_s=0.5, starting_ages=(2.0, 2.0))
    assert dropped.demand == 2.0 and dropped.starting_replicas == 2  # asks for the 2 ready only


def test_the_hold_keeps_what_the_traffic_needed_not_what_the_trend_forecast():
    # 8 ready, 10 req/s of 5/s replicas at 0.8 (2.5 replicas), then 20 s at 20/s: the trend over the
    # scale-up horizon forecasts up to 3x the rate (15 replicas) and asks for more; once the rise
    # has left the window, the 8 ready are held only to what the traffic seen needed (20/s: 5).
    config = PolicyConfig(**{**BASE.__dict__, "rate_window_s": 30.0, "max_concurrency": 10_000.0})
    scenario, total, needs = Scenario(config), 0.0, []
    for t in range(100):
        rate = 20.0 if 40 <= t < 60 else 10.0
        total += rate
        decision = scenario.tick(waiting=0, running=8, ready=8, completions_per_s=rate, arrivals_total=total)
        needs.append(decision.need)
    assert max(needs[40:60]) > 8  # the forecast asked for more than the 8 ready
    assert decision.need == pytest.approx(10 / 4)
    assert decision.demand <= 20 / 4 + 1e-9, decision.detail  # before: the 8 ready, held for 180 s


def test_a_burst_seen_keeps_headroom_after_it_and_the_headroom_decays():
    from scaler.policy import headroom

    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 20.0})
    scenario, total = Scenario(config), 0.0
    for t in range(40):
        total += 60.0 if 20 <= t < 25 else 1.0  # 300 requests in 5 s, then quiet
        decision = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=1, arrivals_total=total)
    # (300 + 4 running) / (5 req/s x 5 s + 20 slots) = 6.76 replica-equivalents: a burst may fill
    # all of S (7.79 at the 0.7 the batches are kept at, which a burst need not keep), the 300
    # decayed over the 15 s since at the half-life of a burst seen once
    kept = 300 * 0.5 ** (15 / headroom.ONCE_HALF_LIFE_S)
    assert decision.burst_window_s == 5.0 and decision.need == pytest.approx((kept + 4) / (25 + 20), rel=0.01)
    assert decision.burst_half_life_s == headroom.ONCE_HALF_LIFE_S
    assert any("burst of requests (over 5s)" in n and "seen once" in n for n in decision.notes), decision.notes
    bursts = headroom.observe(scenario.state.bursts, scenario.now + headroom.ONCE_HALF_LIFE_S, total, 0.0, 60.0)
    assert bursts.peak(5.0) == pytest.approx(kept / 2, rel=0.01)  # half as loud one half-life later


def test_a_burst_seen_once_fades_in_minutes_and_one_that_came_back_is_kept_for_twenty():
    def after(bursts_at, quiet_s):
        # 1 req/s, and 300 requests in 5 s at each of `bursts_at`; the 5 s peak `quiet_s` after the last
        history, total = headroom.BurstHistory(), 0.0
        end = bursts_at[-1] + 5
        for t in range(end):
            total += 60.0 if any(b <= t < b + 5 for b in bursts_at) else 1.0
            history = headroom.observe(history, float(t), total, 0.0, 60.0)
        later = headroom.observe(history, float(end - 1 + quiet_s), total + quiet_s, 0.0, 60.0)
        return history.peak(5.0), later.peak(5.0)

    # One burst: half as loud ONCE_HALF_LIFE_S (5 minutes) later, 1/16 by 20 minutes (until stop 47,
    # every burst was half as loud only 20 minutes later).
    at_end, later = after([20], headroom.ONCE_HALF_LIFE_S)
    assert at_end == pytest.approx(300) and later == pytest.approx(150, rel=0.01)
    # The same burst back 4 minutes later (the count fell to 1/s between): it has returned, and it is
    # kept with HISTORY_HALF_LIFE_S, half as loud 20 minutes on rather than 1/16.
    at_end, later = after([20, 260], headroom.HISTORY_HALF_LIFE_S)
    assert at_end == pytest.approx(300) and later == pytest.approx(150, rel=0.01)
    # A second burst of under half the first's decayed peak is not it returning: the first still fades.
    history, total = headroom.BurstHistory(), 0.0
    for t in range(400):
        total += 60.0 if 20 <= t < 25 else 14.0 if 260 <= t < 265 else 1.0  # 300, then 70 (of 86) in 5 s
        history = headroom.observe(history, float(t), total, 0.0, 60.0)
    assert history.peak(5.0) == pytest.approx(300 * 0.5 ** (375 / headroom.ONCE_HALF_LIFE_S), rel=0.01)


def test_a_burst_that_builds_over_several_ticks_past_the_one_that_came_back_is_seen_once():
    # 10 req/s with a 5 s peak of 60 that came back (70 s at 1 req/s between): the 20-minute memory.
    # Then a burst that grows by 40% a second to 5x that peak, never twice the peak of the tick
    # before (outage-retry's retries kept the returns of the noise before them this way).
    def history_after(counts):
        peak = headroom.Peak(5.0)
        for count in counts:
            peak = peak.observe(count, 1.0, 60.0)
        return peak

    came_back = [50.0] * 5 + [60.0] * 3 + [5.0] * 70 + [60.0] * 3 + [50.0] * 20
    assert history_after(came_back).half_life() > 0.98 * headroom.HISTORY_HALF_LIFE_S
    rising = [60.0 * 1.4 ** i for i in range(1, 6)]  # 84 ... 323, then back to 50
    built = history_after(came_back + rising + [50.0] * 20)
    assert built.count == pytest.approx(max(rising) * 0.5 ** (20 / headroom.ONCE_HALF_LIFE_S), rel=0.01)
    assert built.returns == 0.0
    assert built.half_life() == headroom.ONCE_HALF_LIFE_S
    # The same climb to under twice the peak that came back is that burst, still remembered.
    kept = history_after(came_back + [75.0, 85.0, 95.0] + [50.0] * 20)  # under twice 60, decayed to 50
    assert kept.returns > 0.9 and kept.half_life() > 0.9 * headroom.HISTORY_HALF_LIFE_S


def test_waves_closer_than_a_scale_up_latency_are_one_burst():
    # Three waves of 300 in 5 s, 30 s apart, at 1 req/s between, then the same burst 4 minutes on.
    def peak_at(bursts_at, until):
        peak, window = headroom.Peak(5.0), []
        for t in range(until):
            window = (window + [60.0 if any(b <= t < b + 5 for b in bursts_at) else 1.0])[-5:]
            peak = peak.observe(sum(window), 1.0, 60.0)
        return peak

    waves = peak_at([20, 55, 90], 130)
    assert waves.returns == 0.0 and waves.half_life() == headroom.ONCE_HALF_LIFE_S
    again = peak_at([20, 55, 90, 330], 370)  # below half for 235 s before it: it came back
    assert again.returns == pytest.approx(1.0, abs=0.05) and again.half_life() > 0.95 * headroom.HISTORY_HALF_LIFE_S


def test_a_remembered_burst_keeps_demand_but_not_activity_once_nothing_arrives():
    # 300 requests in 5 s on 2 replicas, then nothing for a rate window: the burst history still
    # asks for replicas (it decays over 20 minutes and never reaches zero), but there is no work,
    # so KEDA may scale the model to zero (IsActive false). Before: active for as long as remembered.
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 20.0})
    scenario, total = Scenario(config), 0.0
    for t in range(30):
        total += 60.0 if 20 <= t < 25 else 1.0
        busy = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=1, arrivals_total=total)
    assert busy.active
    quiet = scenario.hold(int(config.rate_window_s) + 1, waiting=0, running=0, ready=2, completions_per_s=0,
                          arrivals_total=total)
    assert quiet.demand > 1.0 and quiet.burst_window_s == 5.0  # the burst is still remembered
    assert quiet.arrival_rps == 0 and not quiet.active


def test_a_burst_of_long_prompts_keeps_prefill_headroom_its_count_does_not_show():
    # 2 ready at 10 req/s of 500-token prompts (2.5 replicas at 0.8 of 5 req/s); for 15 s, 3 req/s
    # more of 20,000-token documents: 195 requests in 15 s and 250 slots a replica, so the request
    # burst term asks for under one replica.
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 250.0, "prefill_tps": 20_000,
                             "expected_prefill_s": 0.05})
    scenario, arrived, prompt = Scenario(config), 0.0, 0.0
    for t in range(60):
        wave = 20 <= t < 35
        arrived += 13.0 if wave else 10.0
        prompt += 10 * 500 + (3 * 20_000 if wave else 0)
        decision = scenario.tick(waiting=0, running=20, ready=2, completions_per_s=10, arrivals_total=arrived,
                                 prompt_tokens_total=prompt, prompt_tokens_in_flight=0.0)
    # the 15 s with the wave (975,000 tokens) over 0.7 x 20,000 tokens/s x (15 s + the 1.95 s budget),
    # 25 s old at the half-life of a burst seen once
    faded = 0.5 ** (25 / headroom.ONCE_HALF_LIFE_S)
    assert decision.prefill_burst == pytest.approx(faded * 975_000 / (0.7 * 20_000 * (15 + config.budget_s)), rel=0.01)
    assert decision.need == pytest.approx(decision.prefill_burst) and decision.need > 3, decision.notes  # the rate: 2.5
    assert decision.burst_window_s == 15.0
    assert any("prompt tokens" in note for note in decision.notes)
    # without the counter (a source that lacks it) the same traffic keeps no such headroom
    blind, arrived = Scenario(config), 0.0
    for t in range(60):
        arrived += 13.0 if 20 <= t < 35 else 10.0
        decision = blind.tick(waiting=0, running=20, ready=2, completions_per_s=10, arrivals_total=arrived)
    assert decision.prefill_burst == 0.0 and decision.need == pytest.approx(10 / (5 * 0.8))  # the sustained rate's


@pytest.mark.parametrize("utilization, share", [(0.8, 0.7), (0.5, 0.5)])
def test_a_clump_of_prompts_that_arrives_at_once_is_prefilled_within_the_budget_alone(utilization, share):
    # 2 ready at 10 req/s of 500-token prompts; at 20 s a client replays 200 requests of 2,000 tokens
    # within one second (400,000 tokens). Its last request has the TTFT budget alone to be prefilled
    # in: the 1 s window asks for what clears the clump in 1 s + B, where the 5 s window would
    # credit it with 5 s + B (under half as many replicas). The prefill is planned at the target
    # utilisation's share of its throughput, and at most 0.7 (TPOT_TARGET_SHARE).
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 250.0, "prefill_tps": 20_000,
                             "expected_prefill_s": 0.05, "target_utilization": utilization})
    scenario, arrived, prompt = Scenario(config), 0.0, 0.0
    for t in range(40):
        clump = t == 20
        arrived += 10.0 + (200.0 if clump else 0.0)
        prompt += 10 * 500 + (200 * 2_000 if clump else 0)
        decision = scenario.tick(waiting=0, running=20, ready=2, completions_per_s=10, arrivals_total=arrived,
                                 prompt_tokens_total=prompt, prompt_tokens_in_flight=0.0)
    throughput = share * config.prefill_tps
    # 19 s after the clump, at the half-life of a burst seen once
    one_second = 0.5 ** (19 / headroom.ONCE_HALF_LIFE_S) * (400_000 + 5_000) / (throughput * (1 + config.budget_s))
    five_seconds = (400_000 + 5 * 5_000) / (throughput * (5 + config.budget_s))
    assert decision.burst_window_s == 1.0, decision.notes
    assert decision.prefill_burst == pytest.approx(one_second, rel=0.01) and one_second > 2 * five_seconds
    assert decision.need == pytest.approx(decision.prefill_burst)


def test_a_burst_the_rls_refused_is_remembered_by_its_prompts_as_well_as_its_requests():
    from scaler.policy.headroom import ONCE_HALF_LIFE_S

    # 2 ready serve 10 req/s of 2,000-token prompts; for 10 s, 30 req/s come and RED refuses 20 of
    # them: vLLM prefills the same 10 req/s throughout, and only the RLS's counts show the burst.
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 250.0, "prefill_tps": 20_000,
                             "expected_prefill_s": 0.05})

    def run(count_refused: bool):
        scenario, offered, refused = Scenario(config), 0.0, 0.0
        for t in range(1, 61):
            burst = 20 < t <= 30
            offered += 30.0 if burst else 10.0
            refused += 20.0 if burst else 0.0
            decision = scenario.tick(waiting=0, running=20, ready=2, completions_per_s=10, arrivals_total=offered,
                                     # every request finished or running was prefilled: 2,000 tokens each
                                     prompt_tokens_total=2_000 * (10 * t + 20), prompt_tokens_in_flight=0.0,
                                     refused_total=refused if count_refused else None)
        return decision

    counted, blind = run(True), run(False)
    # the 5 s window inside the burst: 5 x 30 requests x 2,000 tokens offered, over 0.7 x 20,000
    # tokens/s x (5 s + the budget), 30 s old (6.7% faded at the 5-minute half-life of a burst seen once);
    # without the refusals only the admitted 10 req/s show, at most over the 30 s window: 30 x 10 x
    # 2,000 tokens over 0.7 x 20,000 x (30 + the budget), 1.34 replicas' prefill
    assert counted.burst_window_s == 5.0 and counted.need == pytest.approx(counted.prefill_burst)
    faded = 0.5 ** (30 / ONCE_HALF_LIFE_S)
    assert counted.prefill_burst == pytest.approx(faded * 300_000 / (0.7 * 20_000 * (5 + config.budget_s)), rel=0.005)
    assert blind.prefill_burst == pytest.approx(600_000 / (0.7 * 20_000 * (30 + config.budget_s)), rel=0.02)
    # without vLLM's completion counter there is no mean prompt to price the refusals at
    from dataclasses import replace

    from scaler.policy.decide import _refused_prompt_tokens
    from scaler.policy.signals import Snapshot

    snap = Snapshot(time=1.0, waiting=0, running=20, ready_replicas=2, prompt_tokens_total=1e9, refused_total=100.0)
    assert _refused_prompt_tokens(snap) == 0.0
    assert _refused_prompt_tokens(replace(snap, completed_total=480.0)) == pytest.approx(100 * 1e9 / 500)


def test_the_capacity_is_weighed_by_how_much_longer_the_live_prompts_are_than_the_calibrated_ones():
    # 5 req/s a replica measured on 1,000-token prompts, 20,000 prompt tokens/s of prefill: 0.05 of
    # a calibrated request's 0.2 s is prefill. 10 req/s of 3,000-token prompts take 0.3 s each:
    # 1 + 5 x 2,000 / 20,000 = 1.5 calibrated requests' time, and the sustained rate needs 1.5 x
    # 10 / (0.8 x 5) = 3.75 replicas, not 2.5. Prompts of 500 tokens weigh 0.875.
    # (250 slots a replica: the bursts of a steady stream need fewer than its rate)
    config = PolicyConfig(**{**BASE.__dict__, "prefill_tps": 20_000, "capacity_prompt_tokens": 1_000,
                             "max_concurrency": 250.0})

    def run(config, prompt):
        scenario = Scenario(config)
        for t in range(1, 41):
            decision = scenario.tick(waiting=0, running=4, ready=3, completions_per_s=10, arrivals_total=10.0 * t,
                                     prompt_tokens_total=10.0 * prompt * t, prompt_tokens_in_flight=0.0)
        return decision

    heavy = run(config, 3_000)
    assert heavy.need == pytest.approx(1.5 * 10 / (0.8 * 5)) and heavy.prefill_burst < heavy.need
    assert heavy.prompt_weight == pytest.approx(1.5)  # what slo_scaler_prompt_weight exports
    assert any("weigh 1.50 x the calibrated mix's" in note for note in heavy.notes), heavy.notes
    assert run(config, 500).need == pytest.approx(0.875 * 10 / (0.8 * 5))
    assert run(config, 1_000).need == pytest.approx(10 / (0.8 * 5))  # the calibrated mix weighs 1
    # unweighed: without the calibrated prompt, or with a capacity that is not the configured one
    # (a prior, or one measured on the live mix)
    assert run(PolicyConfig(**{**config.__dict__, "capacity_prompt_tokens": None}), 3_000).need == pytest.approx(2.5)
    prior = PolicyConfig(**{**config.__dict__, "per_replica_capacity_rps": None, "capacity_prior_rps": 5.0})
    assert run(prior, 3_000).need == pytest.approx(2.5)


def test_prompt_tokens_read_a_step_apart_never_count_as_arrivals_going_back():
    # a request of 8,000 tokens counted in flight, then read prefilled and still in flight, then
    # only prefilled: the sum drops by 8,000; arrivals do not go back (the next 8,000 tokens fill
    # the gap), and the history is not started over as after a counter reset
    config = PolicyConfig(**{**BASE.__dict__, "prefill_tps": 20_000})
    scenario = Scenario(config)
    readings = [(0.0, 0.0)] * 6 + [(0.0, 8_000.0), (8_000.0, 8_000.0), (8_000.0, 0.0), (16_000.0, 0.0), (24_000.0, 0.0)]
    for prefilled, in_flight in readings:
        scenario.tick(waiting=0, running=1, ready=1, completions_per_s=1, prompt_tokens_total=prefilled,
                      prompt_tokens_in_flight=in_flight)
    history = scenario.state.prompt_bursts
    assert [arrived for _, arrived in history.marks[-5:]] == [8_000.0, 16_000.0, 16_000.0, 16_000.0, 24_000.0]
    assert history.peak(5.0) == 24_000.0 and history.marks[0][0] == 1.0


def test_a_poisoned_prompt_token_counter_plans_nothing_unbounded():
    from scaler.policy.decide import MAX_DEMAND_REPLICAS

    config = PolicyConfig(**{**BASE.__dict__, "prefill_tps": 20_000, "capacity_prompt_tokens": 1_000})
    scenario = Scenario(config)
    for total in (0.0, 1e308, float("inf"), float("inf")):  # a hostile page's counter
        decision = scenario.tick(waiting=0, running=4, ready=2, completions_per_s=2, prompt_tokens_total=total,
                                 prompt_tokens_in_flight=0.0)
    assert math.isfinite(decision.prefill_burst) and decision.demand <= MAX_DEMAND_REPLICAS, decision.notes


def test_a_clump_still_in_prefill_does_not_read_as_a_slow_batch():
    # 20 decoding make 1,000 tokens/s (20 ms a token); 180 more just arrived and are in prefill
    # (360,000 prompt tokens in flight, 2,000 a typical prompt): no tokens from them yet.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 256,
                             "prefill_tps": 10_000, "expected_prefill_s": 0.2})
    scenario = Scenario(config)
    for t in range(1, 12):
        decision = scenario.tick(waiting=0, running=200, ready=2, completions_per_s=4,
                                 generation_tokens_total=1000.0 * t, prompt_tokens_in_flight=360_000)
    assert decision.reason != "tpot-exceeds-slo", decision.detail  # RED if at all for TTFT, not TPOT


def test_a_poisoned_queue_plans_at_most_the_demand_cap():
    from scaler.policy.decide import MAX_DEMAND_REPLICAS

    config = PolicyConfig(**{**BASE.__dict__, "per_replica_capacity_rps": 0.001})
    scenario = Scenario(config)
    for _ in range(3):  # a hostile page: a billion waiting behind replicas that barely complete
        decision = scenario.tick(waiting=1e9, running=16, ready=2, completions_per_s=0.001)
    assert decision.demand == MAX_DEMAND_REPLICAS and any("capped" in note for note in decision.notes)
    assert len(scenario.state.pending_since) <= MAX_DEMAND_REPLICAS


def _red_on_two_batches_of_20():
    """RED from a queue two ready batches of 20 slots cannot start in time, held 30 s once it
    clears (stateHoldSeconds); the scenario and the arrivals counted so far."""
    config = PolicyConfig(**{**BASE.__dict__, "max_concurrency": 20.0, "state_hold_s": 30.0})
    scenario, total = Scenario(config), 0.0
    for _ in range(12):
        total += 30.0
        red = scenario.tick(waiting=60, running=40, ready=2, completions_per_s=10, arrivals_total=total)
    assert red.state is State.RED
    return config, scenario, total


def test_red_fills_free_batch_slots_within_one_budget_not_until_capacity_lands():
    # RED from a queue the ready batches cannot start in time; then the queue has started and the
    # batches have room again while RED holds (stateHoldSeconds): the room is offered at once.
    config, scenario, total = _red_on_two_batches_of_20()
    for _ in range(3):
        total += 12.0
        held = scenario.tick(waiting=0, running=16, ready=2, completions_per_s=10, arrivals_total=total)
    assert held.state is State.RED and held.starting_replicas > 0  # capacity asked for, ~60 s away
    free = 2 * 20 - 16
    # drain + free slots / budget (2 s): 10 + 24 / 2 = 22/s, not 10 + 24 / ~57 s = 10.4/s.
    assert held.admission_rps == pytest.approx(held.capacity_rps * 2 + free / config.budget_s, rel=0.01)
    assert held.admission_rps > 12.0  # the 12/s offered now all start in time: none is refused


def test_red_counts_a_slot_free_only_if_no_reading_of_the_last_budget_had_it_taken():
    # A batch that finished together and refills reads 40 and 10 running on 2 x 20 slots one poll
    # after the other: its 30 slots come back as completions, which the drain counts already.
    config, scenario, total = _red_on_two_batches_of_20()
    for running in (40, 10, 40, 10):
        total += 10.0
        turning = scenario.tick(waiting=0, running=running, ready=2, completions_per_s=10, arrivals_total=total)
    assert turning.state is State.RED and turning.running == 10
    drain = turning.capacity_rps * 2
    assert turning.admission_rps == pytest.approx(drain, rel=0.01)  # not 10 + 30 / 2 s = 25/s
    # Idle through a whole budget (2 s: readings 1 s apart), the 30 slots are free: filled within one budget.
    for _ in range(2):
        total += 10.0
        idle = scenario.tick(waiting=0, running=10, ready=2, completions_per_s=10, arrivals_total=total)
    assert idle.state is State.RED
    assert idle.admission_rps == pytest.approx(drain + 30 / config.budget_s, rel=0.01)


def test_tpot_is_known_from_readings_a_prometheus_scrape_interval_apart():
    # Prometheus scraping every 15 s: no two readings within 5 s, one scrape interval apart.
    config = PolicyConfig(**{**BASE.__dict__, "tpot_slo_s": 0.1, "max_concurrency": 256, "rate_window_s": 60.0})
    scenario = Scenario(config)
    for t in range(1, 6):
        decision = scenario.tick(dt=15.0, waiting=0, running=200, ready=2, completions_per_s=4,
                                 generation_tokens_total=15_000.0 * t)  # 1,000 tokens/s: 200 ms a token
    assert decision.state is State.RED and decision.reason == "tpot-exceeds-slo", decision.detail


def test_a_step_like_one_whose_rise_stopped_is_forecast_at_the_share_the_first_carried():
    # 5/s, a step to 10/s at 100 s, back to 5/s at 300 s, and the same step at 400 s. Over the 60 s
    # horizon the first step reads as a rise of up to 0.16/s per s and is forecast in full (19.7/s);
    # one scale-up latency later the rate is still 10/s, none of that rise, and the second step's
    # forecast extrapolates the share the prior keeps (15 s against the step's 30 s of forecasts).
    scenario, total = Scenario(BASE), 0.0
    for t in range(600):
        rate = 10.0 if 100 <= t < 300 or t >= 400 else 5.0
        total += rate
        scenario.tick(waiting=0, running=4, ready=2, completions_per_s=rate, arrivals_total=total)
    first, second = scenario.decisions[100:170], scenario.decisions[400:470]
    assert all(d.trend_share == 1.0 for d in first)
    assert max(d.arrival_forecast_rps for d in first) > 19.0
    assert 0.25 < second[0].trend_share < 0.4
    assert max(d.arrival_forecast_rps for d in second) < 0.7 * max(d.arrival_forecast_rps for d in first)
    shrunk = next(d for d in second if d.arrival_forecast_rps > d.arrival_rps)
    assert any(f"carried {shrunk.trend_share:.0%} of their rise" in note for note in shrunk.notes), shrunk.notes
    # Where the rise goes on, the forecasts come true and the share stays whole.
    ramp, total = Scenario(BASE), 0.0
    for t in range(400):
        rate = 5.0 + 0.1 * max(0, t - 100)
        total += rate
        ramp.tick(waiting=0, running=4, ready=2, completions_per_s=rate, arrivals_total=total)
    assert ramp.decisions[-1].trend_share > 0.95
