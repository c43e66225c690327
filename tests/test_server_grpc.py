"""KEDA's side of the wire: a client built from externalscaler.proto drives the real server.

The server reads a real vLLM capture (values edited) from a loopback HTTP server, so every
number below went through the scrape source, the policy and gRPC.
"""

from __future__ import annotations

import math
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from conftest import poll_until
from scaler.server.protocol import PROTO, SERVICE_NAME, ExternalScalerClient, GetMetricsRequest
from scaler.sources.discovery import PodInfo
from scaler_helpers import CAPTURE_MODEL, InProcessScaler, PageServer, metric, vllm_page

FAST = ("--poll-interval", "0.2")


def keda_metadata(url: str, model: str = CAPTURE_MODEL, **extra: str) -> dict[str, str]:
    """What KEDA sends: the trigger metadata verbatim, its own keys included."""
    return {"scalerAddress": "slo-scaler.keda:9090", "enableTLS": "false", "model": model, "source": "scrape",
            "scrapeTargets": url, "ttftSloSeconds": "2", "perReplicaCapacity": "4", "scaleUpLatencySeconds": "60",
            **extra}


@pytest.fixture
def page():
    server = PageServer(vllm_page(waiting=3, running=5))
    yield server
    server.close()


@pytest.fixture
def scaler():
    started = []

    def start(*flags, **kwargs) -> InProcessScaler:
        started.append(InProcessScaler(*FAST, *flags, **kwargs))
        return started[-1]

    yield start
    for s in started:
        s.close()


def test_proto_is_keda_v2_contract():
    # Field numbers are the wire; these are KEDA's (DESIGN.md).
    expected = {
        "ScaledObjectRef": {"name": 1, "namespace": 2, "scalerMetadata": 3},
        "IsActiveResponse": {"result": 1},
        "GetMetricSpecResponse": {"metricSpecs": 1},
        "MetricSpec": {"metricName": 1, "targetSize": 2, "targetSizeFloat": 3},
        "GetMetricsRequest": {"scaledObjectRef": 1, "metricName": 2},
        "GetMetricsResponse": {"metricValues": 1},
        "MetricValue": {"metricName": 1, "metricValue": 2, "metricValueFloat": 3},
    }
    for message, fields in expected.items():
        descriptor = getattr(PROTO, message).DESCRIPTOR
        assert {f.name: f.number for f in descriptor.fields} == fields, message
    assert SERVICE_NAME == "externalscaler.ExternalScaler"
    methods = PROTO._file.services_by_name["ExternalScaler"].methods_by_name
    assert {name: m.server_streaming for name, m in methods.items()} == {
        "IsActive": False, "StreamIsActive": True, "GetMetricSpec": False, "GetMetrics": False,
        "StreamMetricSpec": True}


def test_four_rpcs_over_the_wire(scaler, page):
    server = scaler()
    client = server.client
    ref = ExternalScalerClient.ref(keda_metadata(page.url))

    spec = client.GetMetricSpec(ref)
    assert [(s.metricName, s.targetSize, s.targetSizeFloat) for s in spec.metricSpecs] == [
        ("slo-demand-qwen2-5-1-5b", 1, 1.0)]

    response = client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref, metricName="slo-demand-qwen2-5-1-5b"))
    assert len(response.metricValues) == 1
    value = response.metricValues[0]
    assert value.metricName == "slo-demand-qwen2-5-1-5b"
    # No completions in a static page, so no arrival rate: demand is the backlog term alone,
    # 3 waiting to drain over max(0.5 x 2 s, 60 s), per replica of 4/s at 80 %.
    assert value.metricValueFloat == pytest.approx(3 / 60 / (4 * 0.8))
    assert value.metricValue == 1  # the deprecated int64, rounded up

    assert client.IsActive(ref).result is True
    stream = client.StreamIsActive(ref)
    assert next(stream).result is True
    stream.cancel()

    text = server.metrics_text()
    assert metric(text, "slo_scaler_demand_replicas", model=CAPTURE_MODEL) == pytest.approx(value.metricValueFloat)
    assert metric(text, "slo_scaler_waiting_requests", model=CAPTURE_MODEL) == 3
    assert metric(text, "slo_scaler_running_requests", model=CAPTURE_MODEL) == 5
    assert metric(text, "slo_scaler_ready_replicas", model=CAPTURE_MODEL) == 1


def test_idle_model_is_inactive_with_zero_demand(scaler):
    idle = PageServer(vllm_page(waiting=0, running=0))
    try:
        client = scaler().client
        ref = ExternalScalerClient.ref(keda_metadata(idle.url))
        value = client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref)).metricValues[0]
        assert value.metricValueFloat == 0.0 and value.metricValue == 0
        assert client.IsActive(ref).result is False
    finally:
        idle.close()


HOSTILE = [
    ("no model", {"model": None}, "model"),
    ("quote in model", {"model": 'x"} or vector(1) #'}, "model"),
    ("newline in model", {"model": "llama\nup"}, "model"),
    ("braces in model", {"model": "a{b}"}, "model"),
    ("PromQL in address", {"source": "prometheus", "prometheusAddress": 'http://p:9090/api?query=up"'},
     "prometheusAddress"),
    ("address without port", {"source": "prometheus", "prometheusAddress": "http://prometheus"}, "prometheusAddress"),
    ("file URL target", {"scrapeTargets": "file:///etc/passwd"}, "scrapeTargets"),
    ("credentials in target", {"scrapeTargets": "http://user:pw@10.0.0.1:8080/metrics"}, "scrapeTargets"),
    ("unknown source", {"source": "influx"}, "source"),
    ("YAML in selector", {"podSelector": "app: {x: y}", "scrapeTargets": None}, "podSelector"),
    ("port out of range", {"metricsPort": "70000"}, "metricsPort"),
    ("namespace with capitals", {"namespace": "Prod"}, "namespace"),
    ("NaN SLO", {"ttftSloSeconds": "NaN"}, "ttftSloSeconds"),
    ("unknown class", {"requestClass": "vip"}, "requestClass"),
    ("capacity neither number nor auto", {"perReplicaCapacity": "lots"}, "perReplicaCapacity"),
    ("prefill eats the SLO", {"expectedPrefillSeconds": "3"}, "expectedPrefillSeconds"),
    ("inverted hysteresis", {"redExitRatio": "1.5"}, "redExitRatio"),
]


@pytest.fixture(scope="module")
def shared_scaler():
    server = InProcessScaler(*FAST)
    yield server
    server.close()


@pytest.mark.parametrize("label, change, key", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_invalid_metadata_is_invalid_argument_naming_the_key(shared_scaler, label, change, key):
    client = shared_scaler.client
    metadata = keda_metadata("http://127.0.0.1:9/metrics")
    for k, v in change.items():
        if v is None:
            metadata.pop(k)
        else:
            metadata[k] = v
    ref = ExternalScalerClient.ref(metadata)
    calls = {
        "GetMetricSpec": lambda: client.GetMetricSpec(ref),
        "GetMetrics": lambda: client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref)),
        "IsActive": lambda: client.IsActive(ref),
        "StreamIsActive": lambda: next(client.StreamIsActive(ref)),
    }
    for name, call in calls.items():
        with pytest.raises(grpc.RpcError) as error:
            call()
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (label, name)
        assert error.value.details().startswith(f"{key}: expected"), (label, name, error.value.details())


def test_source_down_serves_last_good_value_then_unavailable(scaler):
    page = PageServer(vllm_page(waiting=3, running=5))
    server = scaler()
    client = server.client
    ref = ExternalScalerClient.ref(keda_metadata(page.url, maxStalenessSeconds="2"))
    good = client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref)).metricValues[0].metricValueFloat
    assert good > 0

    page.close()
    entry = server.registry.get(CAPTURE_MODEL)
    poll_until(lambda: entry.error, 5, "the poller to notice the target is gone")
    assert "none of 1 target(s) answered" in entry.error
    assert entry.input_age(time.time()) < 2  # still within maxStalenessSeconds
    last = client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref)).metricValues[0].metricValueFloat
    assert last == pytest.approx(good)  # the last good value, not a guess

    def unavailable():
        try:
            client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref))
        except grpc.RpcError as error:
            return error
        return None

    error = poll_until(unavailable, 5, "GetMetrics to refuse stale data")
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "maxStalenessSeconds 2" in error.details() and "none of 1 target(s) answered" in error.details()
    # IsActive answers from the last known activity: missing data never scales a busy model to zero.
    assert client.IsActive(ref).result is True
    assert server.registry.get(CAPTURE_MODEL).decision.state.value == "UNKNOWN"
    # KEDA's fallback only fires while GetMetricSpec keeps answering (keda#8056).
    assert client.GetMetricSpec(ref).metricSpecs[0].metricName == "slo-demand-qwen2-5-1-5b"
    text = server.metrics_text()
    assert metric(text, "slo_scaler_source_up", model=CAPTURE_MODEL, source="scrape") == 0
    assert metric(text, "slo_scaler_input_age_seconds", model=CAPTURE_MODEL) > 2


class FakePods:
    """The discovery seam (PodLister) with pods set by the test."""

    def __init__(self) -> None:
        self.pods: list[PodInfo] = []
        self.calls = 0

    def list_pods(self, namespace: str, selector: str) -> list[PodInfo]:
        assert (namespace, selector) == ("llm", "app=qwen")
        self.calls += 1
        return list(self.pods)


def discovered_metadata(port: int, **extra: str) -> dict[str, str]:
    return {"model": CAPTURE_MODEL, "source": "scrape", "podSelector": "app=qwen", "metricsPort": str(port),
            "ttftSloSeconds": "2", "perReplicaCapacity": "4", **extra}


def test_stream_pushes_true_within_a_second_when_a_model_at_zero_gets_requests(scaler):
    pods = FakePods()  # scaled to zero: no pod matches
    server = scaler("--poll-interval", "5", pod_lister=pods)  # polls too slow to be what wakes the stream
    ref = ExternalScalerClient.ref(discovered_metadata(8080), namespace="llm")
    assert server.client.IsActive(ref).result is False
    entry = server.registry.get(CAPTURE_MODEL)
    assert entry.decision.ready_replicas == 0

    stream = server.client.StreamIsActive(ref)
    assert next(stream).result is False
    sent = time.monotonic()
    server.call_soon(entry.record_arrivals, 3)  # the rate-limit service saw 3 requests
    assert next(stream).result is True
    assert time.monotonic() - sent < 4.0  # pushed, not found by the next 5 s poll
    stream.cancel()
    assert server.client.IsActive(ref).result is True


def test_discovery_scrapes_ready_pods_and_counts_starting_ones(scaler):
    page = PageServer(vllm_page(waiting=6, running=4))
    pods = FakePods()
    now = time.time()
    pods.pods = [PodInfo("qwen-a", "127.0.0.1", ready=True, created=now - 300),
                 PodInfo("qwen-b", "10.255.0.9", ready=False, created=now - 7),  # starting, not scraped
                 PodInfo("qwen-c", "10.255.0.10", ready=True, created=now - 900, terminating=True)]
    try:
        server = scaler(pod_lister=pods)
        ref = ExternalScalerClient.ref(discovered_metadata(page.port), namespace="llm")
        server.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref))
        decision = server.registry.get(CAPTURE_MODEL).decision
        assert (decision.waiting, decision.running, decision.ready_replicas) == (6, 4, 1)
        assert decision.starting_replicas == 1
        assert page.hits >= 1
    finally:
        page.close()


def test_health_service_says_serving(scaler):
    server = scaler()
    stub = health_pb2_grpc.HealthStub(server.channel)
    for service in ("", "externalscaler.ExternalScaler"):
        assert stub.Check(health_pb2.HealthCheckRequest(service=service)).status == \
            health_pb2.HealthCheckResponse.SERVING


def test_own_metrics_describe_every_model(scaler, page):
    server = scaler()
    ref = ExternalScalerClient.ref(keda_metadata(page.url))
    server.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref))
    text = server.metrics_text()
    for name in ("slo_scaler_pressure", "slo_scaler_demand_replicas", "slo_scaler_estimated_wait_seconds",
                 "slo_scaler_ttft_budget_seconds", "slo_scaler_input_age_seconds", "slo_scaler_arrival_rate",
                 "slo_scaler_completion_rate"):
        assert metric(text, name, model=CAPTURE_MODEL) is not None, name
    assert metric(text, "slo_scaler_ttft_budget_seconds", model=CAPTURE_MODEL) == 2.0
    states = {s: metric(text, "slo_scaler_state", model=CAPTURE_MODEL, state=s) for s in ("GREEN", "YELLOW", "RED")}
    assert sorted(states.values()) == [0.0, 0.0, 1.0]
    decision = server.registry.get(CAPTURE_MODEL).decision
    assert metric(text, "slo_scaler_decisions_total", model=CAPTURE_MODEL, state=decision.state.value,
                  reason=decision.reason) >= 1
    assert 0 < metric(text, "slo_scaler_source_query_seconds", model=CAPTURE_MODEL, source="scrape") < 2
    assert math.isfinite(metric(text, "slo_scaler_pressure", model=CAPTURE_MODEL))
