"""The model registry on a manual clock: parsing once, reconfiguring, waking StreamIsActive,
staleness, forgetting deleted ScaledObjects, and the JSON line of every state change."""

from __future__ import annotations

import json
import logging

import pytest

from scaler.policy.config import ConfigError
from scaler.server.logs import JsonFormatter
from scaler.server.registry import ModelRegistry
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
