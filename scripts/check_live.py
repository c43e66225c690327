"""Run `slo-scaler check` on both example specs against a live setup on this machine and print
what it finds (the figures in docs/check.md come from here).

Per example spec an emulated vLLM fleet serving the spec's model name (one replica, --speed 10),
`slo-scaler serve` deciding for both models from the trigger metadata render writes for them
(scrape source), a real Prometheus scraping all three, and a shortened standard burst from the
load tester against each fleet. No Envoy: nothing is refused, which the load test items report.

    python scripts/check_live.py [--out check-out] [--demo-out demo-out]

Writes OUT/loadtest-<name>.json, OUT/check.json and OUT/check.md; prints the table. Exit status
is the check's.

With --demo-out DIR (after `slo-scaler demo --out DIR`) it also prints the load test items for
the demo's two arms, against a spec built from the demo's own scenario: the arm with Envoy
shedding and SLO-aware scaling, and the baseline that queues everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import asdict
from pathlib import Path

import yaml

from scaler.check import loadtest as loadtest_file
from scaler.check.checklist import evaluate, spec_facts
from scaler.check.kubernetes import ClusterEvidence
from scaler.check.prometheus import PromEvidence
from scaler.check.report import table
from scaler.cli import main as cli
from scaler.demo.scenario import MODEL, DemoScenario
from scaler.demo.processes import prometheus_binary
from scaler.loadgen.loadtest import LoadtestConfig, run_loadtest
from scaler.loadgen.results import write_json
from scaler.loadgen.workload import WorkloadOptions, build_arrivals
from scaler.ports import free_port, free_port_range
from scaler.render.derive import derive, trigger_metadata
from scaler.server.process import ServeProcess
from scaler.spec import ModelSpec, load_spec, parse_spec

REPO = Path(__file__).resolve().parent.parent
SPECS = [REPO / "manifests" / "examples" / "specs" / name for name in ("chat.yaml", "batch-summarize.yaml")]
SPEED = 10.0
BURST = WorkloadOptions(profile="burst", rate_rps=2.0, peak_rps=4.0, burst_factor=2.5, low_s=20.0, burst_s=6.0,
                        after_s=14.0, prompt_tokens=64, max_tokens=16)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=2) as resp:
        return json.loads(resp.read())


def wait(what: str, ok, timeout_s: float = 30.0) -> None:
    print(f"waiting for {what}", file=sys.stderr)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if ok():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def query(prom: str, promql: str) -> list:
    return get_json(f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": promql}))["data"]["result"]


async def bursts(urls: list[str], out: Path, names: list[str]) -> list[Path]:
    configs = [LoadtestConfig(url=u, speed=SPEED, bin_s=2.0) for u in urls]
    runs = await asyncio.gather(*(run_loadtest(c, build_arrivals(BURST), show_progress=False) for c in configs))
    paths = []
    for name, config, run in zip(names, configs, runs):
        path = out / f"loadtest-{name}.json"
        write_json(path, asdict(config) | {"model": run.model}, run.summary, run.results, run.bins)
        paths.append(path)
    return paths


def demo_spec(sc: DemoScenario) -> ModelSpec:
    """The demo's model as a spec, every number from its scenario. The demo states one TTFT
    objective; it is read as both the p95 and the p99 objective (the strict reading)."""
    return parse_spec({
        "apiVersion": "slo-scaler.io/v1alpha1", "kind": "ModelSpec", "name": "demo-llm", "namespace": "demo",
        "model": {"uri": "hf://demo/demo-llm", "servedName": MODEL},
        "runtime": {"image": "vllm/vllm-openai:v0.11.0", "args": [f"--max-num-seqs={sc.max_num_seqs}"]},
        "slo": {"ttftP95Seconds": sc.ttft_slo_s, "ttftP99Seconds": sc.ttft_slo_s},
        "requestClass": "interactive",
        "traffic": {"baseRequestsPerSecond": sc.base_rps, "peakRequestsPerSecond": sc.peak_rps * sc.burst_factor,
                    "burstGrowthPerSecond": sc.peak_rps * sc.burst_factor - sc.base_rps},
        "calibration": {"safeConcurrency": sc.max_num_seqs, "perReplicaCapacity": sc.capacity_rps,
                        "scaleUpLatencySeconds": sc.cold_start_s, "expectedPrefillSeconds": sc.expected_prefill_s},
        "replicas": {"min": sc.min_replicas, "max": sc.max_replicas, "scaleDownStabilizationSeconds": int(sc.scale_down_window_s)},
        "gateway": {"kind": "envoy"}, "scaler": {"source": "scrape"},
    }, source="demo scenario")


def check_demo(demo_out: Path) -> None:
    spec = demo_spec(DemoScenario())
    for arm in ("slo-scaler", "baseline"):
        evidence = loadtest_file.read(demo_out / f"{arm}.json")
        results = evaluate(facts=spec_facts(spec), others=(spec,), prom=PromEvidence(None), loadtest=evidence,
                           cluster=ClusterEvidence(False))
        print(f"\n# the demo's {arm} arm ({demo_out / (arm + '.json')})")
        sys.stdout.write(table([r for r in results if r.item.startswith("loadtest.")]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="check-out", help="output directory (default check-out)")
    parser.add_argument("--demo-out", default=None, help="also check the load tests of `slo-scaler demo --out DIR`")
    args = parser.parse_args()
    if args.demo_out:
        check_demo(Path(args.demo_out))
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    specs = [load_spec(p) for p in SPECS]
    children: list[subprocess.Popen] = []
    serve = None
    try:
        ports = []
        for spec in specs:
            port = free_port_range(2)
            log = (out / f"emulator-{spec.name}.log").open("wb")
            children.append(subprocess.Popen(
                [sys.executable, "-m", "scaler", "emulate", "--port", str(port), "--replicas", "1", "--max-replicas", "1",
                 "--speed", str(SPEED), "--cold-start", "0", "--model", spec.model.served_name], stdout=log, stderr=log))
            ports.append(port)
        for spec, port in zip(specs, ports):
            wait(f"the {spec.name} emulator", lambda p=port: urllib.request.urlopen(f"http://127.0.0.1:{p}/health", timeout=1).status == 200)
        models = []
        for spec, port in zip(specs, ports):
            meta = trigger_metadata(spec, derive(spec))
            for key in ("prometheusAddress", "enableTLS", "unsafeSsl"):
                meta.pop(key, None)
            models.append(meta | {"source": "scrape", "scrapeTargets": f"http://127.0.0.1:{port + 1}/metrics"})
        (out / "models.yaml").write_text(yaml.safe_dump(models))
        print("starting slo-scaler serve", file=sys.stderr)
        serve = ServeProcess.start("--models", str(out / "models.yaml"), "--poll-interval", "0.5", log=out / "serve.log")
        scrape = [{"job_name": f"vllm-{s.name}", "static_configs": [{"targets": [f"127.0.0.1:{p + 1}"], "labels": {"namespace": s.namespace}}]}
                  for s, p in zip(specs, ports)]
        scrape.append({"job_name": "slo-scaler", "static_configs": [{"targets": [f"127.0.0.1:{serve.metrics_port}"]}]})
        (out / "prometheus.yml").write_text(yaml.safe_dump({"global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                                                            "scrape_configs": scrape}))
        prom_port = free_port()
        prom = f"http://127.0.0.1:{prom_port}"
        children.append(subprocess.Popen(
            [prometheus_binary() or "prometheus", f"--config.file={out / 'prometheus.yml'}", f"--storage.tsdb.path={out / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prom_port}", "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=(out / "prometheus.log").open("wb")))
        wait("Prometheus scraping the replicas and the scaler", lambda: len(query(prom, "up == 1")) == 3)
        print(f"sending a {BURST.low_s + BURST.burst_s + BURST.after_s:g} model-second burst to each fleet", file=sys.stderr)
        files = asyncio.run(bursts([f"http://127.0.0.1:{p}" for p in ports], out, [s.name for s in specs]))
        for spec in specs:
            sel = f'namespace="{spec.namespace}",model_name="{spec.model.served_name}"'
            wait(f"{spec.name}'s first tokens in Prometheus", lambda: query(prom, f"sum(vllm:time_to_first_token_seconds_count{{{sel}}}) >= 60"))
        argv = ["check", *map(str, SPECS), "--prometheus", prom, "--window", "5m", *[a for f in files for a in ("--loadtest", str(f))]]
        for fmt, name in (("json", "check.json"), ("markdown", "check.md")):
            with (out / name).open("w") as stream:
                saved, sys.stdout = sys.stdout, stream
                try:
                    cli([*argv, "-o", fmt])
                finally:
                    sys.stdout = saved
        return cli(argv)
    finally:
        if serve is not None:
            serve.stop()
        for child in children:
            child.terminate()
            child.wait(10)


if __name__ == "__main__":
    sys.exit(main())
