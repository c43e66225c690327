"""A failed scrape names the pod an operator knows (`kubectl get pods`), not only its IP.

Pods come through the real `kubernetes` client's models (V1Pod -> pod_info) into Discovery; their
/metrics are real loopback HTTP servers. A discovered target is `pod namespace/name (URL)`, a
static one its URL alone; whatever the API sends is shown printable (a newline or an escape in a
name is its repr), so it cannot forge or break a log line.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import time

import grpc
import pytest
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from scaler.server.logs import JsonFormatter
from scaler.server.metadata import SourceSpec
from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest
from scaler.sources import ModelQuery, Observation, SourceError
from scaler.sources.discovery import Discovery, pod_info
from scaler.sources.scrape import ScrapeSource
from scaler_helpers import CAPTURE_MODEL, InProcessScaler, PageServer, vllm_page

HOSTILE = 'qwen-0\n{"level": "error", "msg": "forged"}\x1b[31m'


def k8s_pod(name: str, ip: str) -> k8s.V1Pod:
    created = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    return k8s.V1Pod(metadata=k8s.V1ObjectMeta(name=name, namespace="llm", creation_timestamp=created),
                     status=k8s.V1PodStatus(pod_ip=ip, phase="Running",
                                            conditions=[k8s.V1PodCondition(type="Ready", status="True")]))


class Pods:
    """The discovery seam (PodLister): the API's pods as the real client's models, or its error."""

    def __init__(self, *pods: k8s.V1Pod, error: Exception | None = None) -> None:
        self.pods, self.error = pods, error

    def list_pods(self, namespace, selector):
        if self.error is not None:
            raise self.error
        return [pod_info(pod) for pod in self.pods]


def discovered(port: int) -> SourceSpec:
    return SourceSpec(kind="scrape", namespace="llm", pod_selector="app=qwen", metrics_port=port)


def observe(spec: SourceSpec, pods: Pods | None = None) -> Observation | SourceError:
    async def run():
        discovery = Discovery(pods) if pods else None
        if discovery:
            await discovery.refresh({spec.discovery_key}, now=time.time())
        source = ScrapeSource(timeout_s=5.0, discovery=discovery)
        try:
            return (await source.observe([ModelQuery(CAPTURE_MODEL, spec)], time.time()))[CAPTURE_MODEL]
        finally:
            await source.close()
    return asyncio.run(run())


@pytest.fixture
def failing():
    server = PageServer(vllm_page())
    server.status = 500
    yield server
    server.close()


def test_a_discovered_pod_whose_metrics_fail_is_named_with_its_url(failing):
    result = observe(discovered(failing.port), Pods(k8s_pod("qwen-0", "127.0.0.1")))
    assert type(result) is SourceError, result
    assert f"first: pod llm/qwen-0 (http://127.0.0.1:{failing.port}/metrics): HTTP 500" in str(result)


def test_the_pod_of_several_that_did_not_answer_is_named_in_the_note():
    page = PageServer(vllm_page(waiting=3))
    try:
        # Nothing listens on 127.0.0.2 at the page's port (it is bound on 127.0.0.1 only): refused.
        result = observe(discovered(page.port), Pods(k8s_pod("qwen-0", "127.0.0.1"), k8s_pod("qwen-1", "127.0.0.2")))
    finally:
        page.close()
    assert isinstance(result, Observation), result
    assert (result.ready_replicas, result.waiting) == (1, 3)
    assert result.note.startswith(f"1 target(s) did not answer; first: pod llm/qwen-1 (http://127.0.0.2:{page.port}"
                                  "/metrics): ClientConnectorError"), result.note


def test_a_static_target_is_named_by_its_url_alone(failing):
    result = observe(SourceSpec(kind="scrape", scrape_targets=(failing.url,)))
    assert type(result) is SourceError, result
    assert f"first: {failing.url}: HTTP 500" in str(result) and "pod " not in str(result)


def test_a_hostile_pod_name_is_shown_as_its_repr(failing):
    result = str(observe(discovered(failing.port), Pods(k8s_pod(HOSTILE, "127.0.0.1"))))
    assert f"pod {f'llm/{HOSTILE}'!r} (http://127.0.0.1:{failing.port}/metrics): HTTP 500" in result, result
    assert result.isprintable(), result  # no newline to forge a second log line, no escape for a terminal


def test_a_hostile_pod_ip_leaves_the_url_printable():
    discovery = Discovery(Pods(k8s_pod("qwen-0", "10.0.0.1\r\nHost: evil"), k8s_pod("qwen-1", "fd00::7")))
    key = ("llm", "app=qwen")
    asyncio.run(discovery.refresh({key}, now=time.time()))
    urls = [target.url for target in discovery.ready_targets(key, 8080)]
    assert urls == ["http://10.0.0.1%0D%0AHost%3A%20evil:8080/metrics", "http://[fd00::7]:8080/metrics"]


def test_a_listing_error_from_the_api_is_one_printable_line():
    error = ApiException(status=403, reason="Forbidden")
    error.body = '{"kind": "Status",\n "message": "pods is forbidden"}\x1b[0m'
    discovery = Discovery(Pods(error=error))
    key = ("llm", "app=qwen")
    asyncio.run(discovery.refresh({key}, now=time.time()))
    assert "\n" in str(error)  # the client's own text spans lines
    message = discovery.errors[key]
    assert message.startswith("listing pods 'app=qwen' in llm: ") and message.isprintable(), message
    assert "(403)" in message and "Forbidden" in message


def test_serve_logs_and_answers_the_failed_pod_by_name(failing, caplog):
    """Through the server: the source_error log line and GetMetrics' UNAVAILABLE name the pod."""
    metadata = {"model": CAPTURE_MODEL, "source": "scrape", "podSelector": "app=qwen",
                "metricsPort": str(failing.port), "ttftSloSeconds": "2", "perReplicaCapacity": "4"}
    named = f"pod {f'llm/{HOSTILE}'!r} (http://127.0.0.1:{failing.port}/metrics)"
    caplog.set_level(logging.WARNING, logger="scaler.server")
    server = InProcessScaler("--poll-interval", "0.2", pod_lister=Pods(k8s_pod(HOSTILE, "127.0.0.1")))
    try:
        with pytest.raises(grpc.RpcError) as refused:
            server.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ExternalScalerClient.ref(metadata,
                                                                                                namespace="llm")))
    finally:
        server.close()
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
    assert named in refused.value.details(), refused.value.details()
    [record] = [r for r in caplog.records if getattr(r, "fields", {}).get("event") == "source_error"]
    assert named in record.fields["error"] and record.fields["error"].isprintable()
    line = JsonFormatter().format(record)
    assert "\n" not in line and json.loads(line)["error"] == record.fields["error"]


def test_serve_logs_the_pod_of_several_that_did_not_answer_once(caplog):
    """One pod of two fails: the model keeps deciding on the other, and the log names the failed pod
    once (the note is logged when it changes, not every round)."""
    page = PageServer(vllm_page(waiting=3))
    metadata = {"model": CAPTURE_MODEL, "source": "scrape", "podSelector": "app=qwen",
                "metricsPort": str(page.port), "ttftSloSeconds": "2", "perReplicaCapacity": "4"}
    caplog.set_level(logging.WARNING, logger="scaler.server")
    server = InProcessScaler("--poll-interval", "0.1",
                             pod_lister=Pods(k8s_pod("qwen-0", "127.0.0.1"), k8s_pod("qwen-1", "127.0.0.2")))
    try:
        server.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ExternalScalerClient.ref(metadata,
                                                                                            namespace="llm")))
        entry = server.registry.get(CAPTURE_MODEL, "llm")
        deadline = time.monotonic() + 30.0  # generous: a state reached, not a timing
        while sum(entry.decisions_total.values()) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)  # more rounds with the same failure
        assert sum(entry.decisions_total.values()) >= 5
        assert entry.observation.ready_replicas == 1  # decided on the pod that answered
    finally:
        server.close()
        page.close()
    notes = [r.fields for r in caplog.records if getattr(r, "fields", {}).get("event") == "source_note"]
    assert len(notes) == 1, notes
    assert notes[0]["note"].startswith(f"1 target(s) did not answer; first: pod llm/qwen-1 (http://127.0.0.2:{page.port}")
    assert notes[0]["model"] == CAPTURE_MODEL
