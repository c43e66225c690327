"""The simulator's core: conservation, determinism, fast-forward equivalence, queueing theory."""

from __future__ import annotations

import math
import random

import pytest

from scaler.sim.sweep import run_point
from scaler.sim.policies import make
from scaler.sim.policies.base import Policy
from scaler.sim.setup import Clients, ColdStart, Setup
from scaler.sim.simulation import Simulation, conservation, simulate
from scaler.workloads import Arrival, LengthMix, burst_scenario, poisson

from sim_helpers import UNIT_PARAMS, context, workload

SHORT = Setup(cold_start=ColdStart(median_s=10.0))


def short_burst(seed=1, base=6.0, peak=10.0):
    arrivals = burst_scenario(random.Random(seed), base_rps=base, peak_rps=peak, low_s=30, burst_s=8,
                              burst_factor=3.0, after_s=20, lengths=LengthMix(long_output_range=(300, 600)))
    return workload(arrivals, capacity_rps=4.0, setup=SHORT, burst=(30.0, 38.0), initial=1, peak=6)


@pytest.mark.parametrize("policy", ["slo-scaler", "ray-serve", "kserve-keda-running", "clairvoyant"])
def test_every_arrival_is_completed_refused_or_in_flight(policy):
    w = short_burst()
    sim = Simulation(w, make(policy, context(w, SHORT)), SHORT)
    record = sim.run()
    counts = conservation(record)
    assert sum(counts.values()) == len(w.arrivals)
    # No request is lost inside the fleet: what is in flight is exactly what the engines hold.
    in_engines = sum(m.replica.load for m in sim.fleet.members) + len(sim._held)
    assert counts["in-flight"] == in_engines
    for r in record.requests:
        if r.outcome == "completed":
            assert r.admitted_at is not None and r.first_token is not None and r.finished >= r.first_token
        if r.outcome == "refused":
            assert r.refusals == r.attempts == SHORT.clients.max_retries + 1


def test_the_prompt_token_counter_counts_every_first_token_retired_replicas_included():
    w = short_burst()
    policy = make("slo-scaler", context(w, SHORT))
    record = Simulation(w, policy, SHORT).run()
    last = policy.window.latest  # the scaler's last scrape, in the tail after every request finished
    assert all(r.finished is not None and r.finished <= last.time for r in record.requests)
    prefilled = sum(r.arrival.prompt_tokens for r in record.requests)
    assert last.prompt_tokens_total == prefilled  # vllm:prompt_tokens_total over the fleet's life
    assert any(to < frm for _, frm, to in record.scale_events), "a replica retired during the run"


def test_a_cut_off_run_keeps_requests_in_flight_and_counts_them():
    w = short_burst()
    setup = Setup(cold_start=ColdStart(median_s=10.0), tail_s=0.0)
    record = simulate(w, make("static-peak", context(w, setup)), setup)
    counts = conservation(record)
    assert counts["in-flight"] > 0 and sum(counts.values()) == len(w.arrivals)


def test_same_seed_same_results_other_seed_other_results():
    w = short_burst()
    setup = Setup(cold_start=ColdStart(10.0))
    one = run_point(w, "slo-scaler", None, setup, seed=3, keep_timeline=True)
    two = run_point(w, "slo-scaler", None, setup, seed=3, keep_timeline=True)
    assert one.summary == two.summary and one.timeline == two.timeline and one.windows == two.windows
    assert one.details["scale_events"] == two.details["scale_events"]
    other = run_point(w, "slo-scaler", None, setup, seed=4)
    assert other.details["scale_events"] != one.details["scale_events"] or other.summary != one.summary


@pytest.mark.parametrize("policy", ["static-peak", "slo-scaler", "ray-serve"])
def test_fast_forward_gives_the_same_run_as_stepping(policy):
    w = short_burst(seed=2)
    fast = simulate(w, make(policy, context(w, SHORT)), SHORT)
    slow_setup = Setup(cold_start=ColdStart(10.0), fast_forward=False)
    slow = simulate(w, make(policy, context(w, slow_setup)), slow_setup)
    assert [r.outcome for r in fast.requests] == [r.outcome for r in slow.requests]
    for a, b in zip(fast.requests, slow.requests):
        assert (a.first_token is None) == (b.first_token is None)
        if a.first_token is not None:
            assert a.first_token == pytest.approx(b.first_token, abs=1e-6)
            assert a.finished == pytest.approx(b.finished, abs=1e-6)
    assert fast.scale_events == slow.scale_events
    assert fast.engine_steps == slow.engine_steps


def test_cold_starts_are_drawn_once_per_started_replica_and_shared_across_policies():
    draws = ColdStart(median_s=60.0, sigma=0.2).draws(5)
    first = [next(draws) for _ in range(200)]
    again = ColdStart(median_s=60.0, sigma=0.2).draws(5)
    assert first == [next(again) for _ in range(200)]
    assert all(30.0 <= x <= 120.0 for x in first)
    assert 50 < sorted(first)[100] < 70
    assert ColdStart(median_s=60.0).quantile(0.95) == pytest.approx(60 * math.exp(0.2 * 1.6449), rel=1e-3)


def test_clients_wait_retry_after_or_back_off():
    rng = random.Random(0)
    clients = Clients(max_retries=2, backoff_s=1.0, jitter=0.0)
    assert clients.wait(1, 7.0, rng) == 7.0
    assert clients.wait(1, None, rng) == 1.0 and clients.wait(2, None, rng) == 2.0
    with pytest.raises(ValueError, match="max_retries"):
        Clients(max_retries=-1)


def test_gateway_queue_full_refuses_and_clients_retry_with_backoff():
    # Ray Serve's mechanism on a fleet that cannot grow: 1 replica, 1 in flight, 2 queued.
    class Tight(Policy):
        name = "tight"
        max_ongoing_per_replica = 1
        max_queued = 2

        def initial_replicas(self):
            return 1

        def control(self, now, view):
            return None

    arrivals = [Arrival(0.01 * i, 10, 200) for i in range(10)]
    w = workload(arrivals, initial=1, peak=1)
    setup = Setup(params=UNIT_PARAMS, clients=Clients(max_retries=1, backoff_s=1.0, jitter=0.0))
    record = simulate(w, Tight(context(w, setup)), setup)
    counts = conservation(record)
    # 3 are taken at once; the other 7 are refused, come back 1 s later, and are refused again
    # (the first request still holds the replica for 2 s).
    assert counts == {"completed": 3, "refused": 7, "in-flight": 0}
    assert len(record.refused_attempts) == 14
    assert all(r.refusals == 2 for r in record.requests if r.refused)


def erlang_c_wait(arrival_rps: float, service_s: float, servers: int) -> float:
    a = arrival_rps * service_s
    rho = a / servers
    top = a ** servers / math.factorial(servers) / (1 - rho)
    c = top / (sum(a ** k / math.factorial(k) for k in range(servers)) + top)
    return c / (servers / service_s - arrival_rps)


@pytest.mark.parametrize("servers, rho", [(1, 0.6), (2, 0.7), (3, 0.75)])
def test_steady_state_wait_matches_erlang_c(servers, rho):
    """M/M/c: one request at a time per replica (max_num_seqs=1), exponential-like service
    (geometric output length x a fixed 10 ms step), a central FCFS queue at the gateway."""

    class CentralQueue(Policy):
        name = "central-queue"
        max_ongoing_per_replica = 1

        def initial_replicas(self):
            return servers

        def control(self, now, view):
            return None

    mean_tokens = 50
    service_s = mean_tokens * UNIT_PARAMS.step_base_s
    rate = rho * servers / service_s
    rng = random.Random(11)
    p = 1 / mean_tokens

    def geometric(r):
        return 1 + int(math.log(1 - r.random()) / math.log(1 - p))

    arrivals = poisson(rng, rate_rps=rate, start_s=0.0, duration_s=6000 / rate,
                       lengths=lambda r: (1, min(geometric(r), 3000)))
    w = workload(arrivals, initial=servers, peak=servers)
    setup = Setup(params=UNIT_PARAMS, tail_s=600.0)
    record = simulate(w, CentralQueue(context(w, setup)), setup)
    assert conservation(record)["completed"] == len(arrivals)
    warm = [r for r in record.requests if r.arrival.time > 200]
    waits = [r.ttft - UNIT_PARAMS.step_base_s for r in warm]  # TTFT = wait + the 1-token prefill step
    services = [r.finished - r.first_token + UNIT_PARAMS.step_base_s for r in warm]
    assert sum(services) / len(services) == pytest.approx(service_s, rel=0.05)
    assert sum(waits) / len(waits) == pytest.approx(erlang_c_wait(rate, service_s, servers), rel=0.15)


def test_admitted_ttft_counts_from_the_admitted_attempt_not_the_first():
    from scaler.sim.metrics import window_score
    from scaler.sim.simulation import ClientRequest, RunRecord

    served = ClientRequest(0, Arrival(1.0, 10, 10))
    served.admitted_at, served.first_token, served.finished = 1.0, 1.5, 2.0
    retried = ClientRequest(1, Arrival(2.0, 10, 10))  # refused once, admitted 8 s later
    retried.refusals, retried.admitted_at, retried.first_token, retried.finished = 1, 10.0, 10.5, 11.0
    refused = ClientRequest(2, Arrival(3.0, 10, 10))
    refused.refused = True
    score = window_score(RunRecord("w", "p", [served, retried, refused], end_time=20.0), 0.0, 20.0, 2.0, 0.1)
    assert score.ttft_p99_s > 8.0  # from the first attempt: the retry's wait counts
    assert score.admitted_ttft_p99_s == pytest.approx(0.5)
    assert score.slo_attainment == pytest.approx(1 / 3)  # only the first meets a 2 s TTFT
