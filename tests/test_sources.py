"""Signal sources: vLLM pages (real captures), counters across restarts, direct scrape,
Kubernetes discovery (the seam, the real client's models, the real client over HTTP)."""

from __future__ import annotations

import asyncio
import datetime
import gc
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from kubernetes import client as k8s

from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery, Observation, SourceError
from scaler.sources.counters import FORGET_AFTER_S, MonotonicCounters, monotonic_buckets
from scaler.sources.discovery import Discovery, KubernetesPodLister, PodInfo, Target, pod_info
from scaler.sources.scrape import ScrapeSource
from scaler.sources.vllm import parse_page, tpot_over
from scaler_helpers import CAPTURE_MODEL, HostileServer, PageServer, vllm_page

FIXTURES = Path(__file__).parent / "fixtures" / "vllm"


# --- vLLM pages --------------------------------------------------------------------


def test_real_captures_of_both_vllm_engines_parse():
    v1 = parse_page((FIXTURES / "metrics_sample_0.29.0.txt").read_text())
    assert set(v1) == {CAPTURE_MODEL}
    sample = v1[CAPTURE_MODEL]
    assert (sample.waiting, sample.running, sample.completed) == (0.0, 0.0, 10.0)  # 10 requests, finished "length"
    assert sample.prompt == 530.0  # vllm:prompt_tokens_total, the prefill headroom's counter
    v0 = parse_page((FIXTURES / "metrics_sample_0.4.3.txt").read_text())
    assert v0["facebook/opt-125m"].completed == 1.0


def test_waiting_by_reason_is_not_mistaken_for_waiting():
    page = vllm_page(waiting=7).replace(
        'vllm:num_requests_waiting_by_reason{engine="0",model_name="qwen2.5-1.5b",reason="capacity"} 0.0',
        'vllm:num_requests_waiting_by_reason{engine="0",model_name="qwen2.5-1.5b",reason="capacity"} 99.0')
    assert parse_page(page)[CAPTURE_MODEL].waiting == 7


def test_engines_of_a_data_parallel_replica_are_summed():
    page = vllm_page(waiting=2, running=3, completed=5)
    second = "\n".join(line.replace('engine="0"', 'engine="1"') for line in page.splitlines()
                       if line.startswith(("vllm:num_requests_waiting{", "vllm:num_requests_running{",
                                           "vllm:request_success_total{", "vllm:generation_tokens_total{",
                                           "vllm:prompt_tokens_total{")))
    sample = parse_page(page + second + "\n")[CAPTURE_MODEL]
    assert (sample.waiting, sample.running, sample.completed, sample.generated, sample.prompt) == (4, 6, 10, 2 * 584,
                                                                                                   2 * 530)


def test_the_tpot_histogram_counts_requests_over_the_slo_never_fewer():
    capture = parse_page((FIXTURES / "metrics_sample_0.29.0.txt").read_text())[CAPTURE_MODEL]
    assert len(capture.tpot_buckets) == 20 and capture.tpot_buckets[-1] == (math.inf, 10.0)
    assert tpot_over(capture.tpot_buckets, 0.1) == (0.0, 10.0)  # the capture's 10 took 0.01-0.025 s
    buckets = parse_page(vllm_page(tpot=(3, 40)))[CAPTURE_MODEL].tpot_buckets
    assert tpot_over(buckets, 0.1) == (3.0, 40.0)
    assert tpot_over(buckets, 0.12) == (3.0, 40.0)  # between two bounds: the one under it
    assert tpot_over(buckets, 0.005) == (40.0, 40.0)  # under the first bound: none known within
    assert tpot_over(buckets, None) == (None, None)  # no TPOT SLO: nothing to count
    lines = vllm_page().splitlines()
    without = "\n".join(line for line in lines if "request_time_per_output_token" not in line) + "\n"
    assert parse_page(without)[CAPTURE_MODEL].tpot_buckets == ()
    no_inf = "\n".join(line for line in lines if not ("request_time_per_output_token" in line and '"+Inf"' in line))
    assert tpot_over(parse_page(no_inf + "\n")[CAPTURE_MODEL].tpot_buckets, 0.1) == (None, None)  # no count
    second = "\n".join(line.replace('engine="0"', 'engine="1"') for line in vllm_page(tpot=(3, 40)).splitlines()
                       if line.startswith("vllm:request_time_per_output_token_seconds_bucket{"))
    both = parse_page(vllm_page(tpot=(3, 40)) + second + "\n")[CAPTURE_MODEL].tpot_buckets
    assert tpot_over(both, 0.1) == (6.0, 80.0)  # the engines of a data-parallel replica are summed


def test_nan_queue_leaves_the_model_out_nan_counter_is_unknown():
    assert parse_page(vllm_page(waiting="NaN")) == {}
    assert parse_page(vllm_page(running="+Inf")) == {}
    assert parse_page(vllm_page(waiting=1, completed="NaN"))[CAPTURE_MODEL].completed is None


# --- counters ----------------------------------------------------------------------


def test_counters_survive_restarts_new_replicas_and_departures():
    counters = MonotonicCounters()
    assert counters.update("m", {"a": 100.0, "b": 50.0}, now=0) == 0  # first sight is a baseline
    assert counters.update("m", {"a": 110.0, "b": 55.0}, now=1) == 15
    assert counters.update("m", {"a": 3.0, "b": 60.0}, now=2) == 15 + 3 + 5  # a restarted: 3 new
    assert counters.update("m", {"a": 4.0, "b": 60.0, "c": 40.0}, now=3) == 24  # c new: baseline
    assert counters.update("m", {"c": 42.0}, now=4) == 26  # a and b left: no drop
    assert counters.update("other", {"a": 1.0}, now=4) == 0  # per model
    counters.prune(now=4 + FORGET_AFTER_S + 1)
    assert counters.update("m", {"c": 50.0}, now=5 + FORGET_AFTER_S) == 26  # forgotten: baseline again


def test_histogram_buckets_are_counters_of_their_own_across_restarts():
    counters = MonotonicCounters()

    def h(slow, finished):
        return ((0.1, finished - slow), (math.inf, finished))

    assert monotonic_buckets(counters, "m", {"a": h(1, 10), "b": h(0, 5)}, now=0) == ((0.1, 0.0), (math.inf, 0.0))
    assert monotonic_buckets(counters, "m", {"a": h(3, 20), "b": h(0, 9)}, now=1) == ((0.1, 12.0), (math.inf, 14.0))
    # a restarted: its 2 are new work, nothing is taken away.
    assert monotonic_buckets(counters, "m", {"a": h(0, 2), "b": h(0, 9)}, now=2) == ((0.1, 14.0), (math.inf, 16.0))
    assert monotonic_buckets(counters, "m", {"a": (), "b": ()}, now=3) == ()  # nobody reports it: unknown
    # A replica with other bounds: only the bounds every replica has, so no bucket holds more than the next.
    other = ((0.05, 1.0), (0.1, 2.0), (math.inf, 2.0))
    assert [le for le, _ in monotonic_buckets(counters, "m", {"a": other, "b": h(0, 9)}, now=4)] == [0.1, math.inf]


# --- direct scrape -----------------------------------------------------------------


def scrape_query(*urls: str, model: str = CAPTURE_MODEL) -> ModelQuery:
    return ModelQuery(model, SourceSpec(kind="scrape", scrape_targets=tuple(urls)))


def observe(source, *queries, now=None):
    async def run():
        try:
            return await source.observe(list(queries), now if now is not None else time.time())
        finally:
            await source.close()
    return asyncio.run(run())


def test_scrape_sums_replicas_and_counts_those_that_answered():
    a, b = PageServer(vllm_page(waiting=3, running=4, completed=10)), PageServer(vllm_page(waiting=2, running=4))
    other = PageServer(vllm_page(model="another-model", waiting=50))
    gone = PageServer()
    gone.close()
    try:
        result = observe(ScrapeSource(), scrape_query(a.url, b.url, other.url, gone.url),
                         scrape_query(other.url, model="another-model"), now=123.0)
    finally:
        for server in (a, b, other):
            server.close()
    mine = result[CAPTURE_MODEL]
    assert isinstance(mine, Observation)
    assert (mine.time, mine.waiting, mine.running, mine.ready_replicas) == (123.0, 5, 8, 2)
    assert mine.completed_total == 0  # a baseline on first sight
    assert mine.note.startswith("2 target(s) did not answer; first: ")
    assert result["another-model"].waiting == 50 and result["another-model"].ready_replicas == 1
    assert a.hits == b.hits == other.hits == 1  # a URL is fetched once per round, however many models list it


def test_scrape_follows_the_tpot_histogram_as_counters():
    a = PageServer(vllm_page(tpot=(0, 10)))
    source = ScrapeSource()

    async def rounds():
        try:
            first = (await source.observe([scrape_query(a.url)], 1.0))[CAPTURE_MODEL]
            a.text = vllm_page(tpot=(2, 30))
            return first, (await source.observe([scrape_query(a.url)], 2.0))[CAPTURE_MODEL]
        finally:
            await source.close()

    try:
        first, second = asyncio.run(rounds())
    finally:
        a.close()
    assert tpot_over(first.tpot_buckets, 0.1) == (0.0, 0.0)  # first sight is a baseline
    assert tpot_over(second.tpot_buckets, 0.1) == (2.0, 20.0)


def test_scrape_with_no_target_answering_is_an_error_not_zero():
    broken = PageServer(vllm_page())
    broken.status = 500
    try:
        result = observe(ScrapeSource(), scrape_query(broken.url))
    finally:
        broken.close()
    assert isinstance(result[CAPTURE_MODEL], SourceError)
    assert "none of 1 target(s) answered" in str(result[CAPTURE_MODEL]) and "HTTP 500" in str(result[CAPTURE_MODEL])


# Each counter the scrape reads, its readings over three rounds (the replica restarts before the
# third) and the totals it must report: a baseline on first sight, then only increases.
COUNTERS = {"completed": ("completed_total", (10, 16, 2), [0, 6, 8]),
            "prompt": ("prompt_tokens_total", (530, 4_530, 1_000), [0, 4_000, 5_000])}


@pytest.mark.parametrize("series", COUNTERS)
def test_scrape_follows_a_counter_across_rounds_and_a_restart(series):
    field, readings, totals = COUNTERS[series]
    page = PageServer(vllm_page(**{series: readings[0]}))
    source = ScrapeSource()

    async def rounds():
        seen = []
        for reading in readings:
            page.text = vllm_page(**{series: reading})
            seen.append(getattr((await source.observe([scrape_query(page.url)], time.time()))[CAPTURE_MODEL], field))
        await source.close()
        return seen

    try:
        assert asyncio.run(rounds()) == totals
    finally:
        page.close()


def test_closing_the_scrape_source_mid_fetch_leaves_no_fetch_pending(caplog):
    """Shutdown cancels the rounds (Poller.run), but a fetch is shared and shielded, so it runs on;
    close() must end it. Left pending on a loop that stops after close() (InProcessScaler), it was
    "Task was destroyed but it is pending!" once the loop was collected. Two ticks' fetches of one
    URL are both in flight: the second once replaced the first in the shared map, orphaning it."""
    slow = HostileServer("slow")  # headers, then a byte every 0.2 s: a fetch in flight for minutes
    source = ScrapeSource(timeout_s=600)

    async def shut_down_mid_fetch():
        rounds = []
        for tick in (1.0, 2.0):
            rounds.append(asyncio.create_task(source.observe([scrape_query(slow.url)], tick)))
            for _ in range(1000):  # up to 10 s on a loaded machine for the request to arrive
                if slow.hits == tick:
                    break
                await asyncio.sleep(0.01)
        assert slow.hits == 2, "both ticks' requests reached the server"
        for round_ in rounds:
            round_.cancel()
        await asyncio.gather(*rounds, return_exceptions=True)
        await source.close()
        return [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]

    loop = asyncio.new_event_loop()
    try:
        pending = loop.run_until_complete(shut_down_mid_fetch())
    finally:
        loop.close()  # as a stopped server loop: nothing cancels what is left on it
        slow.close()
    del loop
    gc.collect()
    assert pending == []
    assert "Task was destroyed" not in caplog.text


# --- discovery ---------------------------------------------------------------------


class FakeLister:
    def __init__(self, pods):
        self.pods, self.calls, self.fail = pods, 0, None

    def list_pods(self, namespace, selector):
        self.calls += 1
        if self.fail:
            raise self.fail
        return list(self.pods)


def test_discovery_lists_at_most_every_refresh_interval_and_keeps_the_last_listing_on_error():
    pods = [PodInfo("a", "10.0.0.1", True, created=0.0), PodInfo("b", "fd00::2", True, created=0.0),
            PodInfo("c", "10.0.0.3", False, created=90.0), PodInfo("d", "10.0.0.4", True, 0.0, terminating=True),
            PodInfo("e", None, False, created=99.0)]
    lister = FakeLister(pods)
    discovery = Discovery(lister, refresh_s=2.0)
    key = ("llm", "app=x")
    assert discovery.ready_targets(key, 8080) is None and discovery.starting_ages(key, 100.0) is None

    asyncio.run(discovery.refresh({key}, now=100.0))
    asyncio.run(discovery.refresh({key}, now=101.0))
    assert lister.calls == 1
    assert discovery.ready_targets(key, 8080) == [Target("http://10.0.0.1:8080/metrics", "llm/a"),
                                                  Target("http://[fd00::2]:8080/metrics", "llm/b")]
    assert discovery.starting_ages(key, 100.0) == (10.0, 1.0)

    lister.fail = ConnectionError("API server unreachable")
    asyncio.run(discovery.refresh({key}, now=102.5))
    assert lister.calls == 2
    assert "API server unreachable" in discovery.errors[key]
    assert len(discovery.ready_targets(key, 8080)) == 2  # pods rarely vanish in a second


def _pod(name, ready, ip="10.1.2.3", deleting=False):
    created = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name=name, namespace="llm", creation_timestamp=created,
                                  deletion_timestamp=created if deleting else None),
        status=k8s.V1PodStatus(pod_ip=ip, phase="Running", conditions=[
            k8s.V1PodCondition(type="PodScheduled", status="True"),
            k8s.V1PodCondition(type="Ready", status="True" if ready else "False")]))


def test_pod_info_from_the_kubernetes_client_models():
    info = pod_info(_pod("qwen-0", ready=True))
    assert info == PodInfo("qwen-0", "10.1.2.3", True, created=1767225600.0, terminating=False)
    assert pod_info(_pod("qwen-1", ready=False)).ready is False
    assert pod_info(_pod("qwen-2", ready=True, deleting=True)).terminating is True
    pending = k8s.V1Pod(metadata=k8s.V1ObjectMeta(name="p", creation_timestamp=datetime.datetime.now(
        datetime.timezone.utc)), status=k8s.V1PodStatus(phase="Pending"))
    assert pod_info(pending).ready is False and pod_info(pending).ip is None


def test_kubernetes_lister_lists_pods_by_selector_through_the_real_client():
    api_client = k8s.ApiClient()
    pod_list = api_client.sanitize_for_serialization(
        k8s.V1PodList(items=[_pod("qwen-0", True), _pod("qwen-1", False, ip="10.1.2.4")]))
    seen = []

    class ApiServer(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            seen.append(self.path)
            body = json.dumps(pod_list).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ApiServer)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        config = k8s.Configuration(host=f"http://127.0.0.1:{httpd.server_address[1]}")
        lister = KubernetesPodLister(k8s.CoreV1Api(k8s.ApiClient(config)))
        pods = lister.list_pods("llm", "app=qwen,tier!=cpu")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert seen == ["/api/v1/namespaces/llm/pods?labelSelector=app%3Dqwen%2Ctier%21%3Dcpu"]
    assert [(p.name, p.ip, p.ready) for p in pods] == [("qwen-0", "10.1.2.3", True), ("qwen-1", "10.1.2.4", False)]


def test_scrape_of_discovered_pods_with_none_ready_is_zero_replicas():
    discovery = Discovery(FakeLister([PodInfo("a", "10.0.0.1", False, created=time.time() - 5)]))
    spec = SourceSpec(kind="scrape", namespace="llm", pod_selector="app=x")
    asyncio.run(discovery.refresh({spec.discovery_key}, now=time.time()))
    result = observe(ScrapeSource(discovery=discovery), ModelQuery("m", spec))["m"]
    assert isinstance(result, Observation)
    assert (result.ready_replicas, result.waiting, result.note) == (0, 0, "no ready pod")
    assert math.isclose(discovery.starting_ages(spec.discovery_key, time.time())[0], 5, abs_tol=1)
