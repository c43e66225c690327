"""Fail open through a real Envoy (issue 13): missing, stale or unknown data never sheds.

One emulated replica behind a real Envoy (rendered config, rate-limit filter -> `serve`'s RLS),
Prometheus scraping the replica through a forwarder, `serve` reading Prometheus. The load is
about twice what the replica drains, so the scaler goes RED and the RLS refuses (shedding works).
Then the forwarder is cut, as when a port-forward dies or a PodMonitor stops being selected:
Prometheus loses the series while the fleet stays healthy. The scaler must say UNKNOWN, KEDA must
get UNAVAILABLE (its fallback), and the RLS must refuse nothing more. Then Prometheus itself is
killed (a source error): still nothing refused.
"""

from __future__ import annotations

import asyncio
import threading
import time

import aiohttp
import grpc
import pytest
import yaml

from conftest import free_port, poll_until
from envoy_helpers import EnvoyProcess
from scaler.render.envoy import render_envoy_config
from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest
from scaler_helpers import Forwarder, scaler_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration

MODEL = "chat"
ENGINE = ("--max-num-seqs", "4", "--model", MODEL)
SPEED = 0.125  # one replica drains about 6.6 requests/s at this speed
LOAD_RPS = 14.0
AFTER_S = 4.0  # load kept on after each failure is seen


class Load:
    """Open-loop POSTs through Envoy at LOAD_RPS on a loop thread: (time sent, HTTP status or None)."""

    def __init__(self, url: str) -> None:
        self.url, self.sent = url, []
        self._stop = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._future = asyncio.run_coroutine_threadsafe(self._run(), self._loop)

    async def _one(self, session: aiohttp.ClientSession, record: list) -> None:
        body = {"model": MODEL, "prompt": "hello " * 20, "max_tokens": 8}
        try:
            async with session.post(f"{self.url}/v1/completions", json=body,
                                    headers={"x-request-class": "interactive"}) as response:
                record[1] = response.status
                await response.read()
        except (aiohttp.ClientError, asyncio.TimeoutError):
            pass

    async def _run(self) -> None:
        tasks = []
        timeout = aiohttp.ClientTimeout(total=20)
        async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:
            due = time.monotonic()
            while not self._stop.is_set():
                while due <= time.monotonic():
                    record = [due, None]
                    self.sent.append(record)
                    tasks.append(asyncio.create_task(self._one(session, record)))
                    due += 1.0 / LOAD_RPS
                await asyncio.sleep(0.01)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def statuses(self, since: float) -> list[int]:
        return [status for sent, status in list(self.sent) if sent >= since and status is not None]

    def stop(self) -> None:
        self._stop.set()
        self._future.result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def refusals(serve) -> float:
    """RLS refusals for capacity so far (the counter behind slo_scaler_rls_decisions_total)."""
    from scaler.server.process import sample_value  # noqa: F401 (documents where the parsing lives)
    from prometheus_client.parser import text_string_to_metric_families

    total = 0.0
    for family in text_string_to_metric_families(serve.metrics_text()):
        for sample in family.samples:
            if sample.name == "slo_scaler_rls_decisions_total" and sample.labels.get("code") == "503":
                total += sample.value
    return total


def test_missing_and_unknown_data_never_shed(emulator_fleet, prometheus_server, scaler_server, tmp_path):  # noqa: F811
    fleet = emulator_fleet(*ENGINE, replicas=1, max_replicas=1, speed=SPEED)
    forwarder = Forwarder(fleet.port + 1)
    prom = prometheus_server([{"job_name": "vllm", "static_configs": [{"targets": [f"127.0.0.1:{forwarder.port}"]}]}])
    metadata = {"model": MODEL, "source": "prometheus", "prometheusAddress": prom.url, "ttftSloSeconds": "1",
                "perReplicaCapacity": "6", "scaleUpLatencySeconds": "10", "rateWindowSeconds": "6",
                "stateHoldSeconds": "2", "maxStalenessSeconds": "5"}
    (tmp_path / "models.yaml").write_text(yaml.safe_dump([metadata]))
    rls_port = free_port()
    serve = scaler_server("--models", str(tmp_path / "models.yaml"), "--rls-port", str(rls_port),
                          "--poll-interval", "0.25")
    poll_until(lambda: serve.metric("slo_scaler_ready_replicas", model=MODEL) == 1, 20, "the replica seen")
    listen, admin = free_port(), free_port()
    config = render_envoy_config({"served_name": MODEL, "status_code": 503, "rls_timeout_ms": 250}, listen,
                                 f"127.0.0.1:{fleet.port}", f"127.0.0.1:{rls_port}", admin)
    envoy = EnvoyProcess(config, admin, tmp_path, "envoy")
    load = Load(f"http://127.0.0.1:{listen}")
    client, ref = serve.client, ExternalScalerClient.ref(metadata)
    try:
        poll_until(lambda: refusals(serve) > 0, 40, "the overload to be shed (RED) while data flows")

        forwarder.close()  # Prometheus loses the pods; the fleet is fine
        poll_until(lambda: serve.metric("slo_scaler_state", model=MODEL, state="UNKNOWN") == 1, 20,
                   "UNKNOWN once the series vanish")
        unknown_at, refused = time.monotonic(), refusals(serve)
        with pytest.raises(grpc.RpcError) as keda:
            client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref), timeout=5)
        assert keda.value.code() == grpc.StatusCode.UNAVAILABLE and "series-vanished" in keda.value.details()
        assert client.GetMetricSpec(ref, timeout=5).metricSpecs[0].metricName == "slo-demand-chat"
        poll_until(lambda: time.monotonic() - unknown_at >= AFTER_S, AFTER_S + 5, "load with the series gone")
        assert refusals(serve) == refused, "refusals while the data is missing"
        assert serve.metric("slo_scaler_rls_decisions_total", model=MODEL, reason="unknown-series-vanished") > 0

        prom.kill()  # now the source itself is gone
        poll_until(lambda: serve.metric("slo_scaler_rls_decisions_total", model=MODEL,
                                        reason="unknown-source-error"), 20, "admissions in UNKNOWN (source error)")
        error_at = time.monotonic()
        poll_until(lambda: time.monotonic() - error_at >= AFTER_S / 2, AFTER_S, "load with the source gone")
        assert refusals(serve) == refused, "refusals while the source is down"
        answered = load.statuses(unknown_at)
        print(f"refused while data flowed: {refused:.0f}; after the cut: {len(answered)} answered, "
              f"statuses {sorted(set(answered))}")
        assert answered and 503 not in answered and 429 not in answered, sorted(set(answered))
        assert serve.events("rls_admit_unknown"), "the RLS says why it admits (rate-limited log line)"
    finally:
        load.stop()
        envoy.stop()
        forwarder.close()
