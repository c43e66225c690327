"""Every per-model history serve keeps is bounded by time, not by uptime: after two simulated hours
each holds what its span needs at one round a second, the same as after ten minutes (the soak's
RSS, docs/shedding.md "Tails under load", rests on this)."""

import logging

from scaler.policy.decide import RELEASE_HOLD_LATENCIES
from scaler.policy.headroom import MARK_SPACING_S
from scaler.server.registry import ARRIVAL_MARK_S, ModelRegistry
from scaler.sources.base import Observation


def sizes(entry):
    times, needs = entry.state.needs
    return {
        "window": len(entry.window),
        "window counters": max(len(c.seqs) for c in entry.window._counters.values()),
        "arrival marks": len(entry.arrivals._times),
        "arrival checks": len(entry._checks.times),
        "release hold": len(needs),
        "burst marks": len(entry.state.bursts.marks),
    }


def test_each_history_holds_its_span_and_no_more_however_long_serve_runs(caplog):
    caplog.set_level(logging.ERROR, "scaler.server")
    now = [1000.0]
    registry = ModelRegistry(clock=lambda: now[0])
    # A stalled model (a queue, completions never move): RED, and its burst peaks decay every
    # round, so the release hold keeps every round's need, its largest case.
    entry = registry.ensure({"model": "m", "ttftSloSeconds": "2", "perReplicaCapacity": "4",
                             "scaleUpLatency": "60", "source": "prometheus", "prometheusAddress": "http://127.0.0.1:9"})
    config = entry.config

    def run(seconds):
        for _ in range(seconds):
            for _ in range(4):  # the RLS process reports arrivals a few times a second
                now[0] += 0.25
                entry.record_arrivals(0.5, at=now[0])
            entry.apply(Observation(time=now[0] - 0.5, waiting=3, running=2, ready_replicas=1, completed_total=100.0),
                        None, now[0], 0.01)

    run(600)
    after_ten_minutes = sizes(entry)
    run(2 * 3600 - 600)
    after_two_hours = sizes(entry)
    assert after_two_hours == after_ten_minutes
    bounds = {
        "window": config.rate_window_s + 1,
        "window counters": config.rate_window_s + 1,
        "arrival marks": (config.max_staleness_s + 1.5) / ARRIVAL_MARK_S + 2,
        "arrival checks": config.rate_window_s + 1,
        "release hold": RELEASE_HOLD_LATENCIES * 60 + 1,
        "burst marks": (60 + MARK_SPACING_S) / MARK_SPACING_S + 1,
    }
    for name, bound in bounds.items():
        assert after_two_hours[name] <= bound, (name, after_two_hours[name], bound)
    # The decaying need is the release hold's largest case: it is full, not trimmed by accident.
    assert after_two_hours["release hold"] >= RELEASE_HOLD_LATENCIES * 60 - 1
