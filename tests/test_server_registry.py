"""The model registry on a manual clock: parsing once, reconfiguring, waking StreamIsActive,
staleness, forgetting deleted ScaledObjects, and the JSON line of every state change."""

from __future__ import annotations

import json
import math
import logging

import pytest

from scaler.policy.config import ConfigError
from scaler.server.logs import JsonFormatter
from scaler.server.registry import (ARRIVAL_MARK_S, INPUTS_STALE, PARSE_CACHE_BYTES, POLICY_ERROR, SERIES_VANISHED,
                                    SOURCE_ERROR, SOURCE_STALE, ModelRegistry)
from scaler.sources.base import Observation

META = {"model": "llama", "source": "scrape", "scrapeTargets": "http://10.0.0.1:8080", "ttftSloSeconds": "2",
        "perReplicaCapacity": "5", "scaleUpLatencySeconds": "8", "stateHoldSeconds": "3", "rateWindowSeconds": "10",
        "maxStalenessSeconds": "4"}


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def feed(registry, entry, clock, *, waiting, running=16, ready=2, completed=0.0, dt=1.0):
    clock.now += dt
    return entry.apply(Observation(clock.now, waiting, running, ready, completed), None, clock.now, 0.01)


def test_metadata_is_parsed_once_and_changes_reconfigure_the_model():
    registry = ModelRegistry()
    entry = registry.ensure(META, "llm")
    assert registry.ensure(dict(META), "llm") is entry and registry.models() == [entry]
    assert entry.metric_name == "slo-demand-llama"
    registry.ensure({**META, "ttftSloSeconds": "4", "rateWindowSeconds": "20"}, "llm")
    assert entry.config.ttft_slo_s == 4.0 and entry.window.span_s == 20.0
    assert registry.get("llama") is entry and registry.get("other") is None


def test_invalid_metadata_raises_every_time():
    registry = ModelRegistry()
    for _ in range(2):  # the second answer comes from the parse cache
        with pytest.raises(ConfigError) as error:
            registry.ensure({**META, "targetUtilization": "1.5"})
        assert error.value.key == "targetUtilization"
    assert registry.models() == []


def test_server_defaults_fill_what_the_trigger_leaves_out():
    registry = ModelRegistry({"ttftSloSeconds": "3", "source": "prometheus", "prometheusAddress": "http://p:9090"})
    entry = registry.ensure({"model": "short"})
    assert entry.config.ttft_slo_s == 3.0 and entry.metadata.source.prometheus_address == "http://p:9090"
    with pytest.raises(ConfigError, match="model"):
        ModelRegistry({"model": "everyone"})


def test_arrivals_at_zero_replicas_wake_subscribers_at_once():
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)
    queue = registry.subscribe()
    feed(registry, entry, clock, waiting=0, running=0, ready=0)
    assert not entry.is_active(clock.now) and queue.empty()

    entry.record_arrivals(2)
    assert entry.is_active(clock.now) and queue.get_nowait() is entry
    entry.record_arrivals(1)
    assert queue.empty()  # already active: no news
    assert entry.arrivals_total == 3.0
    snapshot_arrivals = feed(registry, entry, clock, waiting=0, running=0, ready=0)
    assert entry.window.latest.arrivals_total == 3.0 and snapshot_arrivals.ready_replicas == 0

    clock.now += entry.config.rate_window_s + 1  # no request for a whole window: idle again
    assert not entry.is_active(clock.now)
    registry.unsubscribe(queue)


def test_staleness_follows_the_observation_time():
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)
    assert entry.is_stale(clock.now)  # nothing observed yet
    feed(registry, entry, clock, waiting=0)
    entry.fail("scrape: none of 1 target(s) answered")
    clock.now += 4.0
    assert not entry.is_stale(clock.now) and entry.decision is not None
    clock.now += 0.5
    assert entry.is_stale(clock.now)
    assert entry.error == "scrape: none of 1 target(s) answered"


def test_models_no_scaledobject_asks_about_are_forgotten_but_pinned_ones_stay():
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    registry.ensure(META)
    registry.ensure({**META, "model": "from-file"}, pinned=True)
    clock.now += 100
    registry.ensure({**META, "model": "recent"})
    assert registry.forget_idle(60, clock.now) == ["llama"]
    assert sorted(e.name for e in registry.models()) == ["from-file", "recent"]


def test_every_state_change_is_one_json_line_with_its_reason(caplog):
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)
    queue = registry.subscribe()
    waiting, completed = 0.0, 0.0
    with caplog.at_level(logging.INFO, logger="scaler.server"):
        for _ in range(5):
            completed += 8
            feed(registry, entry, clock, waiting=0, running=8, completed=completed)
        for _ in range(12):  # 2 more a second than two replicas drain: the queue grows
            waiting += 2
            completed += 10
            feed(registry, entry, clock, waiting=waiting, completed=completed)
    changes = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.getMessage() == "state change"]
    transitions = [(c["previous_state"], c["state"]) for c in changes]
    assert transitions and transitions[0][0] == "GREEN" and transitions[-1][1] == "RED", transitions
    assert [d for d in entry.decisions_total if d[0] != "GREEN"], "the burst was never noticed"
    for change in changes:
        assert change["event"] == "state_change" and change["model"] == "llama"
        assert change["reason"] and change["detail"]
        assert {"wait_s", "budget_s", "demand", "pressure", "ready_replicas"} <= set(change)
    assert changes[0]["reason"] in ("queue-growing", "wait-exceeds-budget")
    news = []
    while not queue.empty():
        news.append(queue.get_nowait())
    assert news.count(entry) >= len(changes)
    assert entry.decisions_total[("RED", "wait-exceeds-budget")] >= 1


# --- fail open: UNKNOWN, never "zero replicas" (issue 13) -----------------------------------

def _admit(entry, now):
    from admission_helpers import req
    from scaler.admission import AdmissionConfig, AdmissionState, admit

    return admit(AdmissionConfig(), AdmissionState(), req("batch"), entry.decision_at(now), now, 0.5, 60.0)[0]


def test_vanished_series_stale_inputs_and_source_errors_are_unknown_and_admit():
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)
    for _ in range(4):
        red = feed(registry, entry, clock, waiting=200, completed=0.0)
    assert red.state.value == "RED" and not _admit(entry, clock.now).admitted

    vanished = entry.fail("prometheus: no series", clock.now, SERIES_VANISHED)
    assert (vanished.state.value, vanished.reason, vanished.previous_state.value) == ("UNKNOWN", SERIES_VANISHED, "RED")
    assert vanished.demand == red.demand and vanished.admission_rps is None, "the last known demand, never zero"
    verdict = _admit(entry, clock.now)
    assert verdict.admitted and verdict.reason == "unknown-series-vanished" and verdict.state == "UNKNOWN"

    clock.now += 1
    frozen = entry.apply(Observation(clock.now - 10, 200, 16, 2, 0.0), None, clock.now, 0.01)
    assert (frozen.state.value, frozen.reason) == ("UNKNOWN", INPUTS_STALE), "no decision from stale inputs"
    assert _admit(entry, clock.now).reason == "unknown-inputs-stale"

    back = feed(registry, entry, clock, waiting=200)
    assert back.state.value == "RED" and back.state_changed and back.previous_state.value == "UNKNOWN"
    assert entry.fail("scrape: refused", clock.now).reason == SOURCE_ERROR
    assert _admit(entry, clock.now).reason == "unknown-source-error"
    assert entry.decisions_total[("UNKNOWN", SERIES_VANISHED)] == 1


def test_a_decision_whose_data_ages_past_max_staleness_is_unknown_for_admission():
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)
    for _ in range(4):
        feed(registry, entry, clock, waiting=200)
    assert not _admit(entry, clock.now).admitted
    clock.now += entry.config.max_staleness_s + 0.1  # no round since: the poller is stuck or slow
    assert entry.decision.state.value == "RED"
    view = entry.decision_at(clock.now)
    assert (view.state.value, view.reason) == ("UNKNOWN", SOURCE_STALE) and entry.decision_at(clock.now) is view
    assert _admit(entry, clock.now).admitted


def test_arrivals_pair_with_the_data_time_across_a_source_outage():
    """15 requests/s offered throughout; the source is down 30 s, then returns data 3 s old."""
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure(META)

    def run(seconds, observe_lag=None):
        for _ in range(int(seconds * 10)):
            clock.now += 0.1
            entry.record_arrivals(1.5)  # 15/s
            if observe_lag is not None and round(clock.now * 10) % 10 == 0:
                entry.apply(Observation(clock.now - observe_lag, 0, 4, 2, None), None, clock.now, 0.01)

    run(12, observe_lag=0.0)
    before = entry.decision.arrival_rps
    run(30)  # outage: no observation, arrivals keep coming
    run(8, observe_lag=3.0)  # back, with Prometheus' lag
    after = entry.decision.arrival_rps
    assert 13.5 <= before <= 16.5 and 13.5 <= after <= 16.5, (before, after)
    run(60, observe_lag=0.0)  # the count's time marks stay bounded by maxStalenessSeconds, not by uptime
    assert len(entry.arrivals._times) <= (entry.config.max_staleness_s + 2) / ARRIVAL_MARK_S + 1


def test_a_policy_error_stays_with_its_model(monkeypatch):
    import scaler.server.registry as registry_module

    real = registry_module.decide

    def poisoned(model, *args, **kwargs):
        if model == "bad":
            raise OverflowError("cannot convert float infinity to integer")
        return real(model, *args, **kwargs)

    monkeypatch.setattr(registry_module, "decide", poisoned)
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    good, bad = registry.ensure(META), registry.ensure({**META, "model": "bad"})
    clock.now += 1
    assert good.apply(Observation(clock.now, 0, 4, 2, 0.0), None, clock.now, 0.01).state.value == "GREEN"
    failed = bad.apply(Observation(clock.now, 0, 4, 2, 0.0), None, clock.now, 0.01)
    assert (failed.state.value, failed.reason) == ("UNKNOWN", POLICY_ERROR) and "OverflowError" in failed.detail


def test_demand_and_pending_replicas_are_capped():
    from scaler.policy.decide import MAX_DEMAND_REPLICAS as DEMAND_CAP

    clock = Clock()
    registry = ModelRegistry(clock=clock)
    # 20 waiting over an 8 s scale-up at 0.001 requests/s per replica: ~3,000 replicas asked for.
    entry = registry.ensure({**META, "perReplicaCapacity": "0.001", "targetUtilization": "0.8"})
    for _ in range(3):
        decision = feed(registry, entry, clock, waiting=20, running=16, ready=2)
    assert decision.demand == DEMAND_CAP and any("capped" in note for note in decision.notes)
    assert len(entry.state.pending_since) <= DEMAND_CAP


def test_parse_cache_is_keyed_by_known_keys_and_bounded():
    registry = ModelRegistry()
    for i in range(3000):  # KEDA's own keys vary; they must not make new cache entries
        registry.ensure({**META, "scalerAddress": f"scaler-{i}:9090", "unsafeSsl": str(i % 2)})
    assert len(registry._parsed) == 1
    for i in range(2000):  # distinct hostile values: bounded by bytes
        with pytest.raises(ConfigError):
            registry.ensure({**META, "podSelector": "x" * 1000 + str(i), "namespace": "ns"})
    assert registry._parsed_bytes <= PARSE_CACHE_BYTES


@pytest.mark.parametrize("key, value, expected", [
    ("perReplicaCapacity", "1e-8", "perReplicaCapacity: expected a number in [0.001, 100000], got '1e-8'"),
    ("targetUtilization", "5e-324", "targetUtilization: expected a number in [0.05, 1], got '5e-324'"),
    ("scaleUpLatencySeconds", "1e-300", "scaleUpLatencySeconds: expected a number in [0.1, 3600]"),
    ("maxConcurrency", "0.5", "maxConcurrency: expected a number in [1, 100000]"),
    ("backlogDrainRatio", "1e-9", "backlogDrainRatio: expected a number in [0.01, 1]"),
    ("expectedPrefillSeconds", "1.9999", "expectedPrefillSeconds: expected at most ttftSloSeconds - 0.01"),
    ("scrapeTargets", "http://a:1/metrics," * 2000, "scrapeTargets: expected a value of at most 16384 characters"),
    ("anythingElse", "x" * 20_000, "anythingElse: expected a value of at most 16384 characters"),
])
def test_numeric_metadata_is_held_to_physical_ranges_and_sizes(key, value, expected):
    with pytest.raises(ConfigError) as error:
        ModelRegistry().ensure({**META, key: value})
    assert str(error.value).startswith(expected), str(error.value)


def _rls_seconds(clock, seconds, calls, observe):
    """`seconds` of RLS traffic: `calls(second)` ten times a second, then `observe(second)`, the
    poller's round at the end of each second."""
    for second in range(seconds):
        for _ in range(10):
            clock.now += 0.1
            calls(second)
        observe(second)


def test_rls_arrivals_vllm_never_sees_do_not_drive_demand():
    """200 forged ShouldRateLimit calls/s for an idle model: vLLM's counters see none of them."""
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    idle, busy = registry.ensure(META), registry.ensure({**META, "model": "busy"})

    def calls(second):
        idle.record_arrivals(20)  # forged: admitted, never reaching a pod
        busy.record_arrivals(1)  # real: 10/s, completed by the pods

    def observe(second):
        idle.apply(Observation(clock.now, 0, 0, 1, 100.0), None, clock.now, 0.01)
        busy.apply(Observation(clock.now, 0, 4, 2, 10.0 * (second + 1)), None, clock.now, 0.01)

    _rls_seconds(clock, 20, calls, observe)
    assert not idle.arrivals_trusted and idle.decision.arrival_rps < 1 and idle.decision.demand < 1, idle.decision
    assert busy.arrivals_trusted and 9 <= busy.decision.arrival_rps <= 11, busy.decision.arrival_rps


def test_the_rls_refusals_reach_the_policy_with_its_arrivals_and_go_with_them_when_untrusted():
    """What the RLS refused is counted in the snapshot (their prompts never reach vLLM's counter);
    a model whose RLS counts vLLM contradicts gets neither count."""
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    real, forged = registry.ensure(META), registry.ensure({**META, "model": "forged"})

    def calls(second):
        real.record_arrivals(1)  # 10/s admitted, completed by the pods
        real.record_arrivals(1, admitted=second < 10)  # and 10/s more, refused from the 10th second
        forged.record_arrivals(20)
        forged.record_arrivals(1, admitted=False)

    def observe(second):
        completed = 10.0 * (second + 1) + 10.0 * min(second + 1, 10)
        real.apply(Observation(clock.now, 0, 4, 2, completed), None, clock.now, 0.01)
        forged.apply(Observation(clock.now, 0, 0, 1, 100.0), None, clock.now, 0.01)

    _rls_seconds(clock, 20, calls, observe)
    assert real.arrivals_trusted and real.window.latest.refused_total == pytest.approx(100.0)
    assert real.window.latest.arrivals_total == pytest.approx(400.0)
    assert not forged.arrivals_trusted and forged.window.latest.refused_total is None


def test_the_tpot_histogram_reaches_the_policy_as_the_share_over_the_slo():
    """Each finished request's TPOT, read from vLLM's buckets at the model's TPOT SLO: 2% of 20
    requests/s over 0.1 s for five minutes asks for more replicas than the queue does."""
    clock = Clock()
    registry = ModelRegistry(clock=clock)
    entry = registry.ensure({**META, "tpotSloSeconds": "0.1", "perReplicaCapacity": "10"})
    silent = registry.ensure({**META, "model": "no-tpot-slo", "perReplicaCapacity": "10"})
    finished = 0.0
    for _ in range(300):
        clock.now += 1.0
        finished += 20.0
        buckets = ((0.05, finished * 0.9), (0.1, finished * 0.98), (0.15, finished), (math.inf, finished))
        for model in (entry, silent):
            model.apply(Observation(clock.now, 0, 8, 4, finished, tpot_buckets=buckets), None, clock.now, 0.01)
    assert entry.decision.tpot_slow_share == pytest.approx(0.02)
    assert entry.decision.need >= 4 * (0.02 / 0.005) ** (1 / 3) - 0.01, entry.decision
    assert any("missed the TPOT SLO" in note for note in entry.decision.notes)
    assert silent.decision.tpot_slow_share is None and silent.decision.need < 4  # no TPOT SLO: nothing counted


class _Source:
    kind = "prometheus"


def test_series_seen_with_no_ready_replica_then_gone_are_vanished_not_missing():
    """A round can read a model's gauges with no ready replica (its target went down between two
    of the round's queries); the next round without series is then "series-vanished"."""
    from scaler.server.poller import Poller
    from scaler.server.registry import NO_SERIES
    from scaler.sources.base import NoSeries

    clock = Clock()
    registry = ModelRegistry(clock=clock)
    poller = Poller(registry, clock=clock)
    never, seen = registry.ensure(META), registry.ensure({**META, "model": "mistral"})
    poller._apply(never, _Source(), NoSeries("none"), clock.now, 0.01)
    assert never.decision.reason == NO_SERIES, "a model never seen has no series: not vanished"

    for ready in (2, 0):
        clock.now += 1
        poller._apply(seen, _Source(), Observation(clock.now, 3, 4, ready, 0.0), clock.now, 0.01)
    assert seen.known.ready_replicas == 0
    for _ in range(2):  # and every round after, until the series come back
        clock.now += 1
        poller._apply(seen, _Source(), NoSeries("gone"), clock.now, 0.01)
        assert (seen.decision.state.value, seen.decision.reason) == ("UNKNOWN", SERIES_VANISHED)
