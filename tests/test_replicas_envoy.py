"""Three `serve` replicas sharing one Redis behind ONE real Envoy, its RLS calls skewed 80/10/10
by endpoint weights; the replica taking 80% is killed (SIGKILL) mid-burst. No request is lost
(the calls that hit the dead replica are admitted: Envoy fails open; after two such failures its
outlier detection ejects the replica and the others answer), and the
tenant's admitted rate after the failover stays within 10% of the rate before it."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from conftest import free_port, poll_until
from envoy_helpers import EnvoyProcess, start_upstream
from scaler.render.envoy import render_envoy_config
from scaler_helpers import CAPTURE_MODEL, PageServer, scaler_server, vllm_page  # noqa: F401 (scaler_server: a fixture)

pytestmark = pytest.mark.integration
NAMESPACE = "llm"
WEIGHTS = (8, 1, 1)
QUOTA = 5.0  # partner's requests/s: the one budget the three replicas spend
RATE = 25.0  # partner's offered requests/s through Envoy, 5x its quota
KILL_AT_S, FAILOVER_S, END_S, WARMUP_S = 4.5, 1.5, 10.0, 1.0



def envoy_config(listen: int, admin: int, upstream: int, rls_ports: list[int]) -> str:
    """The rendered standalone Envoy, its RLS cluster given the three replicas with weights 8/1/1."""
    config = yaml.safe_load(render_envoy_config({"served_name": CAPTURE_MODEL, "namespace": NAMESPACE,
                                                 "rls_timeout_ms": 250}, listen, f"127.0.0.1:{upstream}",
                                                f"127.0.0.1:{rls_ports[0]}", admin))
    cluster = next(c for c in config["static_resources"]["clusters"] if c["name"] == "slo_scaler_rls")
    cluster["load_assignment"]["endpoints"] = [{"lb_endpoints": [
        {"endpoint": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": port}}},
         "load_balancing_weight": weight} for port, weight in zip(rls_ports, WEIGHTS)]}]
    return yaml.safe_dump(config, sort_keys=False)


def send(port: int) -> int | str:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions",
                                     headers={"x-tenant-id": "partner", "x-request-class": "interactive"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError as error:  # a lost request
        return f"{type(error).__name__}: {error}"


def test_three_replicas_one_envoy_lose_nothing_when_one_dies_mid_burst(scaler_server, redis_server, tmp_path):  # noqa: F811
    redis = redis_server()
    page = PageServer(vllm_page(waiting=0, running=2))  # healthy: GREEN, only the quota limits partner
    upstream = start_upstream()
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {CAPTURE_MODEL}\n  namespace: {NAMESPACE}\n  source: scrape\n"
                      f"  scrapeTargets: {page.url}\n  ttftSloSeconds: 2\n  perReplicaCapacity: 10\n")
    tenants = tmp_path / "tenants.yaml"
    tenants.write_text(f"tenants:\n- name: partner\n  quotaRequestsPerSecond: {QUOTA}\n")
    rls_ports = [free_port() for _ in WEIGHTS]
    replicas = [scaler_server("--models", str(models), "--tenants", str(tenants), "--rls-port", str(port),
                              "--state-store", redis.url, "--state-store-replicas", str(len(WEIGHTS)),
                              "--state-store-timeout", "0.5",  # no 20 ms blip on a loaded machine blurs the rates
                              "--poll-interval", "0.2") for port in rls_ports]
    for replica in replicas:
        poll_until(lambda: replica.metric("slo_scaler_state", namespace=NAMESPACE, state="GREEN") == 1, 20,
                   "every replica GREEN from --models")
    listen, admin = free_port(), free_port()
    envoy = EnvoyProcess(envoy_config(listen, admin, upstream.server_address[1], rls_ports), admin, tmp_path)
    try:
        results: list[tuple[float, object]] = []
        with ThreadPoolExecutor(16) as pool:
            start, killed = time.monotonic(), False
            futures = []
            for n in range(int(END_S * RATE)):
                at = n / RATE
                time.sleep(max(0.0, start + at - time.monotonic()))
                if not killed and at >= KILL_AT_S:
                    replicas[0].proc.kill()  # the replica taking 80% of the calls, without warning
                    killed = True
                futures.append((at, pool.submit(send, listen)))
            results = [(at, future.result()) for at, future in futures]
        lost = [r for _, r in results if r not in (200, 429)]
        assert not lost, f"{len(lost)} of {len(results)} requests lost: {lost[:3]}"

        def admitted_rate(begin: float, end: float) -> float:
            return sum(1 for at, r in results if begin <= at < end and r == 200) / (end - begin)

        before = admitted_rate(WARMUP_S, KILL_AT_S)
        after = admitted_rate(KILL_AT_S + FAILOVER_S, END_S)
        print(f"partner admitted {before:.2f}/s before, {after:.2f}/s after the kill (quota {QUOTA:g}/s, offered "
              f"{RATE:g}/s); Envoy: ejections {envoy.stat('cluster.slo_scaler_rls.outlier_detection.ejections_enforced_total')}, "
              f"RLS errors {envoy.stat('cluster.model_upstream.ratelimit.error')} (failed open "
              f"{envoy.stat('cluster.model_upstream.ratelimit.failure_mode_allowed')})")
        assert QUOTA * 0.8 <= before <= QUOTA * 1.3, before  # one budget, whichever replica answers
        assert abs(after - before) <= 0.1 * before + 1 / (END_S - KILL_AT_S - FAILOVER_S), (before, after)
        assert envoy.stat("cluster.slo_scaler_rls.outlier_detection.ejections_enforced_total") >= 1, \
            "Envoy ejected the dead replica"
    finally:
        envoy.stop()
        upstream.shutdown()
        upstream.server_close()
        page.close()
