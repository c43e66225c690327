"""What the simulator found about the policy core (docs/simulator.md, "Where ours loses").

A short version of the standard burst: 3 replicas at half the normal peak, then 15 s at 2.5 x
the peak. vLLM absorbs the burst into its running batch, so the scaler alone meets the SLO. The
shedder used to refuse requests that would have been served in time, because the queue
projection ignored the batch's free slots; the projection now fills free slots first
(`maxConcurrency`, or the batch size learned from a sustained queue).
"""

from __future__ import annotations

import random

from scaler.sim import metrics
from scaler.sim.policies import make
from scaler.sim.setup import ColdStart, Setup
from scaler.sim.simulation import simulate
from scaler.workloads import burst_scenario

from sim_helpers import context, workload

SETUP = Setup(cold_start=ColdStart(20.0))


def run(policy):
    arrivals = burst_scenario(random.Random(5), base_rps=6.4, peak_rps=12.8, low_s=40, burst_s=15,
                              burst_factor=2.5, after_s=30)
    # 248: the safe concurrency sim.calibrate measures for these lengths on the default engine.
    w = workload(arrivals, capacity_rps=4.25, setup=SETUP, burst=(40.0, 55.0), initial=3, peak=10, safe_concurrency=248)
    record = simulate(w, make(policy, context(w, SETUP)), SETUP)
    return record, metrics.summarize(record, SETUP.ttft_slo_s, w.burst, w.duration_s)


def test_the_batch_absorbs_the_burst_without_shedding():
    record, summary = run("slo-scaler-no-shedding")
    assert summary.slo_attainment_all == 1.0
    assert max(queued for _, queued, *_ in record.samples) < 20  # never a queue worth a TTFT budget


def test_shedding_does_not_refuse_what_the_batch_would_serve_in_time():
    _, summary = run("slo-scaler")
    assert summary.refusal_rate < 0.01 and summary.slo_attainment_all >= 0.99
