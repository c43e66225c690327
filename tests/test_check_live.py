"""`slo-scaler check` against real parts: an emulated vLLM fleet per example spec (serving the
spec's model name), `slo-scaler serve` deciding for both models from the spec's own trigger
metadata, a real Prometheus scraping all of it, and a burst from the project's load tester
written as a results file. Then a spec whose model Prometheus has never seen."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from conftest import poll_until
from scaler.check import prometheus
from scaler.check.catalogue import ITEMS
from scaler.check.checklist import evaluate, spec_facts
from scaler.check.kubernetes import ClusterEvidence
from scaler.cli import main
from scaler.loadgen.loadtest import LoadtestConfig, run_loadtest
from scaler.loadgen.results import write_json
from scaler.loadgen.workload import WorkloadOptions, build_arrivals
from scaler.render.derive import derive, trigger_metadata
from scaler.spec import load_spec, parse_spec
from scaler_helpers import PageServer, scaler_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration

SPECS = Path(__file__).resolve().parent.parent / "manifests" / "examples" / "specs"
SPEED = 10.0
# The standard three-phase burst, shortened: 10 model s at 2 req/s, 4 s at 10 req/s, 8 s at 2 req/s.
BURST = WorkloadOptions(profile="burst", rate_rps=2.0, peak_rps=4.0, burst_factor=2.5, low_s=10.0, burst_s=4.0,
                        after_s=8.0, prompt_tokens=64, max_tokens=16)


def kube_state(desired: int, ready: int) -> str:
    """What kube-state-metrics says about chat's predictor Deployment (there is no cluster here)."""
    labels = 'namespace="llm",deployment="chat-predictor"'
    return (f"kube_deployment_spec_replicas{{{labels}}} {desired}\n"
            f"kube_deployment_status_replicas_ready{{{labels}}} {ready}\n")


def scaler_models(specs, fleets) -> list[dict]:
    """The trigger metadata render writes for each spec, pointed at the emulator (scrape source)."""
    models = []
    for spec, fleet in zip(specs, fleets):
        meta = trigger_metadata(spec, derive(spec))
        for key in ("prometheusAddress", "enableTLS", "unsafeSsl"):
            meta.pop(key, None)
        models.append(meta | {"source": "scrape", "scrapeTargets": f"{fleet.replica_url(1)}/metrics"})
    return models


async def burst_files(fleets, paths: list[Path]) -> list[Path]:
    """The burst against every fleet at once; each run written as `slo-scaler loadtest` writes it."""
    configs = [LoadtestConfig(url=fleet.url, speed=SPEED, bin_s=2.0) for fleet in fleets]
    runs = await asyncio.gather(*(run_loadtest(c, build_arrivals(BURST), show_progress=False) for c in configs))
    for config, run, path in zip(configs, runs, paths):
        write_json(path, asdict(config) | {"model": run.model}, run.summary, run.results, run.bins)
    return paths


def test_check_both_example_specs_against_emulator_prometheus_and_a_loadtest(
        emulator_fleet, prometheus_server, scaler_server, tmp_path, capsys):  # noqa: F811
    paths = [SPECS / "chat.yaml", SPECS / "batch-summarize.yaml"]
    specs = [load_spec(p) for p in paths]
    fleets = [emulator_fleet("--model", s.model.served_name, replicas=1, max_replicas=1, speed=SPEED) for s in specs]
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump(scaler_models(specs, fleets)))
    serve = scaler_server("--models", str(models), "--poll-interval", "0.5", "--discovery", "off")
    deployments = PageServer(kube_state(desired=4, ready=4))
    prom = prometheus_server(
        [{"job_name": "kube-state-metrics", "static_configs": [{"targets": [deployments.url.split("/")[2]]}]}]
        + [{"job_name": f"vllm-{s.name}", "static_configs": [{"targets": [f"127.0.0.1:{f.port + 1}"], "labels": {"namespace": s.namespace}}]}
         for s, f in zip(specs, fleets)]
        + [{"job_name": "slo-scaler", "static_configs": [{"targets": [f"127.0.0.1:{serve.metrics_port}"]}]}])
    poll_until(lambda: len(prom.query("up == 1")) == 4, 30, "Prometheus scraping both replicas, the scaler and kube-state")
    # A scale-up of chat's predictor from 4 to 6 replicas, ready once the bursts are over.
    poll_until(lambda: prom.query('kube_deployment_spec_replicas == 4'), 30, "the 4 replicas before the scale-up")
    deployments.text = kube_state(desired=6, ready=4)
    asked = time.time()
    files = asyncio.run(burst_files(fleets, [tmp_path / f"loadtest-{s.name}.json" for s in specs]))
    poll_until(lambda: prom.query('kube_deployment_spec_replicas == 6'), 30, "the scale-up seen by Prometheus")
    deployments.text = kube_state(desired=6, ready=6)
    ready_after = time.time() - asked
    poll_until(lambda: prom.query('kube_deployment_status_replicas_ready == 6'), 30, "the new replicas ready")
    deployments.close()
    for s in specs:
        sel = f'namespace="{s.namespace}",model_name="{s.model.served_name}"'
        poll_until(lambda: prom.query(f"sum(vllm:time_to_first_token_seconds_count{{{sel}}}) >= 30"), 30,
                   f"Prometheus seeing the burst's first tokens for {s.name}")
        poll_until(lambda: prom.query(f'slo_scaler_demand_replicas{{model="{s.model.served_name}"}}'), 30,
                   f"the scaler's decisions for {s.name}")

    argv = ["check", *map(str, paths), "--prometheus", prom.url, "--window", "5m",
            "--loadtest", str(files[0]), "--loadtest", str(files[1])]
    assert main([*argv, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    table = capsys.readouterr().out

    items = {(i["model"], i["item"]): i for i in doc["items"]}
    assert len(items) == 2 * len(ITEMS)
    for item in doc["items"]:
        assert item["evidence"], item
        assert all(e["value"] is not None for e in item["evidence"] if e["source"].startswith(("count(", "sum(", "histogram")))\
            or item["status"] != "PASS", item
    for s in specs:
        model = f"{s.namespace}/{s.name}"
        status = {name: items[(model, name)]["status"] for _, name in items if _ == model}
        assert status["prom.vllm-series"] == "PASS"
        assert status["prom.ttft"] == "PASS", json.dumps(items[(model, "prom.ttft")], indent=1)
        assert status["prom.concurrency"] == "PASS"
        # The scaler decides, but no Envoy asks it here: the refusal alert's input is missing.
        assert status["prom.scaler-series"] == "WARN" and "slo_scaler_rls_decisions_total" in items[(model, "prom.scaler-series")]["reason"]
        assert status["loadtest.burst"] == "PASS"
        # The emulator alone never refuses: shedding under the burst is not shown, and says so.
        assert status["loadtest.admitted-p99"] == "WARN" and "no request was refused" in items[(model, "loadtest.admitted-p99")]["reason"]
        assert status["loadtest.retry-after"] == "UNKNOWN"
        assert f"PASS     {model}" in table
    # chat's scale-up, measured from kube-state-metrics through a range query: within the 75 s planned.
    latency = items[("llm/chat", "prom.scale-up-latency")]
    assert latency["status"] == "PASS" and "(kube-state-metrics)" in latency["reason"]
    measured = next(e["value"] for e in latency["evidence"] if e["source"].startswith("max(kube_deployment_spec_replicas"))
    # Scrapes every 1 s and a range step of 1 s blur each edge by up to 2 s.
    assert len(measured) == 1 and measured[0]["added"] == 2 and measured[0]["ready"], measured
    assert ready_after - 4 <= measured[0]["seconds"] <= ready_after + 4, (measured, ready_after)
    assert items[("llm-batch/batch-summarize", "prom.scale-up-latency")]["status"] == "UNKNOWN"  # no kube-state series for it
    assert "kube-state-metrics" in items[("llm-batch/batch-summarize", "prom.scaler-series")]["reason"]
    ttft = items[("llm/chat", "prom.ttft")]
    assert any(e["source"].startswith("histogram_quantile(0.99") and e["value"] < 3.0 for e in ttft["evidence"])

    # Broken: a spec whose served name this Prometheus has never seen.
    doc = yaml.safe_load(paths[0].read_text())
    doc["model"]["servedName"] = "qwen2.5-7b-instruct-v2"
    ghost = parse_spec(doc)
    evidence = prometheus.gather(ghost, prom.url, "5m", now=time.time())
    results = {r.item: r for r in evaluate(facts=spec_facts(ghost), others=(ghost,), prom=evidence, loadtest=None,
                                           cluster=ClusterEvidence(False))}
    assert results["prom.vllm-series"].status.value == "FAIL"
    assert "no vLLM series for model_name='qwen2.5-7b-instruct-v2' in namespace 'llm'" in results["prom.vllm-series"].reason
    assert results["prom.scaler-series"].status.value == "FAIL"
    assert results["prom.ttft"].status.value == "UNKNOWN"  # no first tokens: no percentile, never a pass
