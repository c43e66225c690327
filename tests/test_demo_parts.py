"""The demo's parts: fleet transitions, Prometheus targets, KEDA's value rules, the comparison
numbers, and the actuator driving a real emulator fleet through KEDA + HPA rules on a manual clock."""

from __future__ import annotations

import asyncio
import json
import math

import aiohttp
import pytest

from scaler.autoscaling import HpaSpec, KedaSpec, Reading, ScalingPolicy, ScalingRules, Trigger
from scaler.demo.actuator import Actuator, ExternalTrigger, TriggerReading, keda_value
from scaler.demo.fleetwatch import FleetSample, file_sd, ready_ports, scaler_state, transitions, write_file_sd
from scaler.demo.report import ready_over_time, replica_seconds, time_in
from scaler.server.process import ServeProcess
from scaler.sources import SourceError


def _member(index: int, state: str, port: int | None = None, ready_in: float = 0.0) -> dict:
    return {"index": index, "state": state, "port": port or 9000 + index, "ready_in_s": ready_in}


def test_transitions_name_what_changed():
    before = {"members": [_member(1, "ready"), _member(2, "starting", ready_in=5)]}
    after = {"members": [_member(1, "draining"), _member(2, "ready"), _member(3, "starting", ready_in=12)]}
    assert transitions(before, after, 1.0) == [
        "replica 1 ready -> draining", "replica 2 starting -> ready", "replica 3 starting (ready in 12s)"]
    assert transitions(after, {"members": [_member(2, "ready")]}, 2.0) == ["replica 1 retired", "replica 3 retired"]
    assert transitions(None, after, 0.0) == []  # the first look is the starting point, not a change


def test_prometheus_targets_are_the_ready_replicas_only(tmp_path):
    body = {"members": [_member(1, "ready", 8001), _member(2, "starting", 8002), _member(3, "draining", 8003)]}
    assert ready_ports(body) == [8001]
    path = tmp_path / "targets.json"
    write_file_sd(path, file_sd(ready_ports(body), "127.0.0.1"))
    assert json.loads(path.read_text()) == [{"targets": ["127.0.0.1:8001"]}]
    assert file_sd([], "127.0.0.1") == []


@pytest.mark.parametrize("value, want", [(-1.0, 0.0), (0.0, 0.0), (math.nan, 0.0), (math.inf, 0.0), (1.23456, 1.235)])
def test_keda_value(value, want):
    assert keda_value(value) == want


def test_comparison_numbers():
    samples = [FleetSample(-2.0, 1, 1, 0, 0), FleetSample(3.0, 3, 1, 2, 0), FleetSample(8.0, 3, 3, 0, 0)]
    # 1 replica for 0..3, 3 replicas for 3..10 (starting ones are paid for too).
    assert replica_seconds(samples, 10.0) == pytest.approx(1 * 3 + 3 * 7)
    assert ready_over_time(samples, 5.0, 10.0) == [1, 1, 3]
    states = [(-3.0, "RED"), (-1.0, "GREEN"), (4.0, "RED"), (9.0, "GREEN")]
    assert time_in(states, "RED", 10.0) == pytest.approx(5.0)
    assert time_in([(-5.0, "RED")], "RED", 10.0) == pytest.approx(10.0)


def test_scaler_state_reads_one_models_one_hot_gauge():
    text = "\n".join([
        '# TYPE slo_scaler_state gauge', 'slo_scaler_state{model="m",state="GREEN"} 0.0',
        'slo_scaler_state{model="m",state="RED"} 1.0', 'slo_scaler_state{model="other",state="GREEN"} 1.0', ''])
    assert scaler_state(text, "m") == "RED" and scaler_state(text, "other") == "GREEN"
    assert scaler_state(text, "missing") is None


class ScriptedTrigger:
    """Readings handed out in order (an AverageValue target of 1: desired = ceil(value))."""

    def __init__(self, values):
        self.values, self.reads = list(values), 0

    async def read(self) -> TriggerReading:
        value = self.values[min(self.reads, len(self.values) - 1)]
        self.reads += 1
        if isinstance(value, Exception):
            raise value
        return TriggerReading(Trigger(Reading("AverageValue", 1.0, value)), value > 0, f"value {value}")

    async def close(self) -> None:
        pass


@pytest.mark.integration
def test_actuator_applies_keda_and_hpa_rules_to_the_fleet(emulator_fleet):
    fleet = emulator_fleet(replicas=1, max_replicas=4, cold_start=1000.0)  # added replicas stay starting
    spec = KedaSpec(hpa=HpaSpec(min_replicas=1, max_replicas=4, sync_period_s=3.0,
                                scale_up=ScalingRules(0.0, (ScalingPolicy("Pods", 2, 15.0),)),
                                scale_down=ScalingRules(10.0, (ScalingPolicy("Percent", 100, 15.0),))),
                    polling_interval_s=6.0)
    trigger = ScriptedTrigger([3.2, 3.9, SourceError("prometheus down"), SourceError("prometheus down"), 0.4, 0.4, 0.4])
    now = [0.0]
    events = []

    async def scenario():
        async with aiohttp.ClientSession() as session:
            actuator = Actuator(spec, trigger, f"{fleet.url}/fleet", session, lambda: now[0], events.append)

            async def at(t):
                now[0] = t
                return await actuator.tick()

            first = await at(0.0)  # poll + sync due: wants 4, the policy allows +2 per 15 s
            assert first.replicas == 3 and first.reason == "ScaleUpLimit"
            assert await actuator.current_replicas() == 3
            await at(1.0)  # nothing due: no read
            assert trigger.reads == 1
            await at(3.0)  # HPA sync: still limited (2 added in this period)
            assert await actuator.current_replicas() == 3 and trigger.reads == 2
            assert await at(6.0) is None and await at(9.0) is None  # the metric is unavailable: keep the count
            assert await actuator.current_replicas() == 3
            await at(12.0)  # 0.4 asks for 1, but the 10 s scale-down window remembers 4 from t=3
            assert await actuator.current_replicas() == 3
            await at(15.0)  # t=3 has left the window: down to 1 at once (100% per period)
            return await actuator.current_replicas()

    assert asyncio.run(scenario()) == 1
    assert [e.replicas for e in events] == [3, None, 1]
    assert events[1].reason == "FailedGetExternalMetric" and "prometheus down" in events[1].detail
    assert "value 3.2" in events[0].detail and "IsActive true" in events[0].detail


@pytest.mark.integration
def test_external_trigger_reads_serve_as_keda_does(emulator_fleet, tmp_path):
    fleet = emulator_fleet("--model", "m", replicas=1, max_replicas=1)
    metadata = {"model": "m", "source": "scrape", "scrapeTargets": f"{fleet.replica_url(1)}/metrics",
                "ttftSloSeconds": "1", "perReplicaCapacity": "5", "scaleUpLatencySeconds": "30"}
    serve = ServeProcess.start("--poll-interval", "0.2", log=tmp_path / "serve.log")
    try:
        async def read():
            trigger = ExternalTrigger(f"127.0.0.1:{serve.grpc_port}", metadata)
            try:
                return await trigger.read()
            finally:
                await trigger.close()

        got = asyncio.run(read())
        assert got.trigger.reading.metric_type == "AverageValue" and got.trigger.reading.target == 1.0
        assert 0.0 <= got.trigger.reading.value < 1.0  # an idle fleet needs less than one replica
        assert got.active is False and got.detail.startswith("slo-demand-m = ")
    finally:
        serve.stop()
