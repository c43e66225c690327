"""`slo-scaler check`: the checklist items as pure functions of evidence (spec, a load test file
built with the loadgen's own result types, kube-state-metrics series), table-driven."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from scaler.check import loadtest as loadtest_file
from scaler.check import prometheus
from scaler.check.catalogue import BY_ID, CHECKLIST, ITEMS
from scaler.check.checklist import evaluate, spec_facts
from scaler.check.kubernetes import ClusterEvidence
from scaler.check.prometheus import PromEvidence, ready_latencies
from scaler.check.result import Status
from scaler.policy import behavior
from scaler.cli import main
from scaler.loadgen.client import OK, REFUSED, Result
from scaler.loadgen.results import summarize, timeline, write_json
from scaler.loadgen.retry import Backoff
from scaler.render.derive import derive
from scaler.spec import parse_spec

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "manifests" / "examples" / "specs"


def spec_dict(name: str) -> dict:
    return yaml.safe_load((SPECS / f"{name}.yaml").read_text())


def spec(name: str = "chat", **edits):
    """An example spec with edits given as dotted paths: spec("chat", **{"replicas.min": 0})."""
    doc = spec_dict(name)
    for path, value in edits.items():
        *parents, leaf = path.split(".")
        node = doc
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return parse_spec(doc)


def run_items(s, others=None, prom=None, loadtest=None, cluster=None) -> dict:
    results = evaluate(facts=spec_facts(s), others=others or (s,), prom=prom or PromEvidence(None),
                       loadtest=loadtest, cluster=cluster or ClusterEvidence(False))
    return {r.item: r for r in results}


def test_every_item_names_checklist_lines_and_every_line_is_covered():
    assert {line for item in ITEMS for line in item.lines} == set(CHECKLIST)
    assert len(BY_ID) == len(ITEMS)


@pytest.mark.parametrize("name", ["chat", "batch-summarize"])
def test_example_specs_give_one_result_per_item_each_with_evidence(name):
    results = run_items(spec(name))
    assert list(results) == [item.id for item in ITEMS]
    for r in results.values():
        assert r.evidence, r.item
        assert r.reason
        if r.status is not Status.PASS:
            assert r.remedy, r.item
    # Nothing reachable beyond the spec: those items are UNKNOWN, never PASS.
    for item in ITEMS:
        if item.source in ("prometheus", "kubernetes") or item.id.startswith("loadtest."):
            assert results[item.id].status is Status.UNKNOWN, item.id
    assert all(results[i.id].status is not Status.FAIL for i in ITEMS if i.source == "spec")


def test_example_spec_findings():
    chat, batch = run_items(spec("chat")), run_items(spec("batch-summarize"))
    assert chat["spec.min-replicas"].status is Status.PASS and "holds the 4 replicas a burst needs" in chat["spec.min-replicas"].reason
    assert chat["spec.queue-bound"].status is Status.WARN  # no --max-num-seqs in runtime.args
    assert batch["spec.queue-bound"].status is Status.PASS
    assert batch["spec.calibration"].status is Status.WARN  # perReplicaCapacity: auto
    # The scaler holds replicas one planned scale-up, then the HPA's 15 s window (420 + 15 s for
    # batch), so both pass on the spec alone.
    assert batch["spec.scale-down"].status is Status.PASS and "held 435 s" in batch["spec.scale-down"].reason
    assert chat["spec.scale-down"].status is Status.PASS


def test_scale_to_zero_that_conflicts_with_the_slo_fails_naming_the_cause():
    results = run_items(spec("chat", **{"replicas.min": 0}))
    item = results["spec.scale-to-zero"]
    assert item.status is Status.FAIL
    assert "scale to zero conflicts with the SLO" in item.reason and "75 s is not below the TTFT p95 SLO (1.5 s)" in item.reason
    # The refusal does not hide the sizing items.
    assert results["spec.min-replicas"].status is Status.PASS
    forced = run_items(spec("chat", **{"replicas.min": 0, "replicas.forceScaleToZero": True, "traffic.baseRequestsPerSecond": 0,
                                       "traffic.burstGrowthPerSecond": 0}))
    assert forced["spec.scale-to-zero"].status is Status.WARN


def _scale_up_taking(seconds: int) -> PromEvidence:
    """kube-state-metrics: desired 4 -> 6 at t=100, ready 6 `seconds` later."""
    desired = tuple((float(t), 4.0 if t < 100 else 6.0) for t in range(0, 2400, 10))
    ready = tuple((float(t), 4.0 if t < 100 + seconds else 6.0) for t in range(0, 2400, 10))
    return PromEvidence("http://prom", desired=prometheus.Series("spec", desired), ready=prometheus.Series("ready", ready))


def test_scale_down_shorter_than_the_scale_up_latency_fails():
    # A scale-up that takes longer than the hold the scaler plans from the declared latency (75 s,
    # then the HPA's 15 s window).
    planned = derive(spec("chat")).scale_up_latency
    item = run_items(spec("chat"), prom=_scale_up_taking(int(4 * planned)))["spec.scale-down"]
    assert item.status is Status.FAIL
    window = behavior.SCALE_DOWN.stabilization_window_s
    assert f"released {planned + window:g} s after they were last needed, sooner than the scale-up latency {4 * planned:g} s" in item.reason
    assert f"({4 * planned:g} s) in calibration.scaleUpLatencySeconds" in item.remedy
    # The same on a batch model is a warning: no TTFT SLO is at stake.
    assert run_items(spec("batch-summarize"), prom=_scale_up_taking(4 * 420))["spec.scale-down"].status is Status.WARN


def test_scale_down_uses_a_measured_latency_longer_than_planned():
    # kube-state-metrics: desired 4 -> 6 at t=100, ready reaches 6 at t=340: 240 s, over the 75 s planned.
    desired = tuple((float(t), 4.0 if t < 100 else 6.0) for t in range(0, 600, 10))
    ready = tuple((float(t), 4.0 if t < 340 else 6.0) for t in range(0, 600, 10))
    prom = PromEvidence("http://prom", desired=prometheus.Series("spec", desired), ready=prometheus.Series("ready", ready),
                        learned_latency=prometheus.Measure("learned"))
    results = run_items(spec("chat", **{"replicas.scaleDownStabilizationSeconds": 200}), prom=prom)
    assert results["spec.scale-down"].status is Status.FAIL and "240 s" in results["spec.scale-down"].reason
    assert results["prom.scale-up-latency"].status is Status.FAIL
    assert "measured scale-up 240 s for +2 replica(s) (kube-state-metrics)" in results["prom.scale-up-latency"].reason


@pytest.mark.parametrize("label, desired, ready, ups", [
    ("one step, ready later", [(0, 1), (10, 3), (20, 3), (30, 3)], [(0, 1), (10, 1), (20, 2), (30, 3)], [(10, 2, 20, True)]),
    ("no rise", [(0, 2), (10, 2)], [(0, 2), (10, 2)], []),
    ("rise undone before ready", [(0, 1), (10, 3), (20, 1)], [(0, 1), (10, 1), (20, 1)], []),
    ("still waiting at the end", [(0, 1), (10, 2), (20, 2)], [(0, 1), (10, 1), (20, 1)], [(10, 1, 10, False)]),
    ("two rises", [(0, 1), (10, 2), (20, 2), (30, 4), (40, 4), (50, 4)], [(0, 1), (10, 1), (20, 2), (30, 2), (40, 3), (50, 4)],
     [(10, 1, 10, True), (30, 2, 20, True)]),
])
def test_ready_latencies(label, desired, ready, ups):
    got = ready_latencies(tuple(map(tuple, desired)), tuple(map(tuple, ready)))
    assert [(u.at, u.added, u.seconds, u.done) for u in got] == ups, label


def test_a_scale_up_beyond_the_warm_pool_is_judged_against_the_cold_latency():
    # chat: warm pool of 2, warm 75 s, cold 300 s. +2 in 80 s and +5 in 290 s are both as planned.
    desired = ((0.0, 4.0), (100.0, 6.0), (400.0, 6.0), (500.0, 11.0), (1000.0, 11.0))
    ready = ((0.0, 4.0), (180.0, 6.0), (790.0, 11.0), (1000.0, 11.0))
    prom = PromEvidence("http://prom", desired=prometheus.Series("d", desired), ready=prometheus.Series("r", ready))
    assert run_items(spec("chat"), prom=prom)["prom.scale-up-latency"].status is Status.PASS
    slow_warm = ((0.0, 4.0), (260.0, 6.0), (790.0, 11.0), (1000.0, 11.0))  # +2 took 160 s: the warm pool did not help
    prom = PromEvidence("http://prom", desired=prometheus.Series("d", desired), ready=prometheus.Series("r", slow_warm))
    item = run_items(spec("chat"), prom=prom)["prom.scale-up-latency"]
    assert item.status is Status.FAIL and "measured scale-up 160 s for +2 replica(s)" in item.reason and "the 75 s" in item.reason


@pytest.mark.parametrize("edits, item, status, words", [
    ({"runtime.args": ["--max-num-seqs=16"]}, "spec.queue-bound", Status.FAIL, "at most 16 sequences"),
    ({"runtime.args": ["--max-num-seqs", "64"]}, "spec.queue-bound", Status.PASS, "64 >= safe concurrency 32"),
    ({"shedding.enabled": False}, "spec.queue-bound", Status.FAIL, "nothing bounds vLLM's waiting queue"),
    ({"shedding.enabled": False}, "spec.status-codes", Status.FAIL, "never answered with 429/503"),
    ({"calibration.perReplicaCapacity": "auto"}, "spec.min-replicas", Status.WARN, "cannot be sized"),
    ({"replicas.max": 2}, "spec.min-replicas", Status.WARN, "replicas.max is 2"),
    ({"calibration.scaleUpLatencySeconds": "auto", "alerts.replicaReadyTimeoutSeconds": 600,
      "calibration.coldStart": None, "modelCache": None, "replicas.warmPool": 0}, "spec.scale-down", Status.UNKNOWN, "'auto'"),
])
def test_spec_items_table(edits, item, status, words):
    result = run_items(spec("chat", **edits))[item]
    assert result.status is status, result
    assert words in result.reason


def test_interactive_sharing_a_node_pool_with_batch_warns():
    chat = spec("chat")
    batch = spec("batch-summarize", **{"runtime.nodeSelector": dict(chat.runtime.node_selector)})
    result = run_items(chat, others=(chat, batch))["spec.classes"]
    assert result.status is Status.WARN and "llm-batch/batch-summarize (batch) draws GPUs from the same node pool" in result.reason
    assert run_items(chat, others=(chat, spec("batch-summarize")))["spec.classes"].status is Status.PASS


# --- load test results, built with the loadgen's own types ---------------------------------


def burst_results(burst_ttft_s: float, retry_after: bool = True, seed: int = 3) -> list[Result]:
    """A three-phase run (30 s at 2 req/s, 10 s at 10 req/s, 30 s at 2 req/s); during the burst
    half the requests are refused once, then admitted with TTFT `burst_ttft_s`."""
    rng, backoff, results = random.Random(seed), Backoff(), []
    t, i = 0.0, 0
    while t < 70:
        rate = 10.0 if 30 <= t < 40 else 2.0
        r = Result(id=str(i), request_class="interactive", tenant="web", prompt_tokens=100, max_tokens=20,
                   scheduled=t, start=t, outcome=OK, status=200, ttft_s=0.2 + 0.1 * rng.random(), tpot_s=0.02, e2e_s=1.0,
                   output_tokens=20)
        if 30 <= t < 40 and i % 2 == 0:
            delay, reason = backoff.delay(1, 2.0 if retry_after else None, rng.random())
            r.refusals, r.waits, r.wait_reasons = [503], [delay], [reason]
            r.ttft_s = burst_ttft_s
        elif 30 <= t < 40:
            r.ttft_s = burst_ttft_s
        results.append(r)
        t += 1.0 / rate
        i += 1
    results.append(Result(id="gave-up", request_class="interactive", tenant="web", prompt_tokens=100, max_tokens=20,
                          scheduled=35.0, start=35.0, outcome=REFUSED, status=503, refusals=[503] * 4,
                          waits=[2.0] * 3, wait_reasons=[Backoff().delay(k, 2.0 if retry_after else None, 0.5)[1] for k in (1, 2, 3)]))
    return results


def write_loadtest(path: Path, results: list[Result], model: str = "qwen2.5-7b-instruct") -> Path:
    summary = summarize(results, 70.0, 1.5) | {"model": model}
    write_json(path, {"url": "http://gw", "model": model, "bin_s": 5.0, "slo_ttft_s": 1.5,
                      "backoff": {"max_retries": 3, "base_s": 0.5, "cap_s": 60.0, "jitter": 0.5}},
               summary, results, timeline(results, 5.0))
    return path


def test_loadtest_that_held_the_slo_while_refusing_passes(tmp_path):
    ev = loadtest_file.read(write_loadtest(tmp_path / "ok.json", burst_results(burst_ttft_s=1.2)))
    results = run_items(spec("chat"), loadtest=ev)
    assert results["loadtest.burst"].status is Status.PASS
    assert results["loadtest.admitted-p99"].status is Status.PASS
    assert "stayed at 1.2 s, within the SLO 3 s" in results["loadtest.admitted-p99"].reason
    assert results["loadtest.retry-after"].status is Status.PASS
    assert results["loadtest.client-backoff"].status is Status.UNKNOWN  # production clients are not observable


def test_loadtest_where_admitted_p99_exceeded_the_slo_fails(tmp_path):
    ev = loadtest_file.read(write_loadtest(tmp_path / "slow.json", burst_results(burst_ttft_s=4.5)))
    item = run_items(spec("chat"), loadtest=ev)["loadtest.admitted-p99"]
    assert item.status is Status.FAIL
    assert "admitted TTFT p99 4.5 s exceeded the SLO 3 s while refusals rose (t=30-40 s)" in item.reason


def test_refusals_without_retry_after_fail(tmp_path):
    ev = loadtest_file.read(write_loadtest(tmp_path / "no-ra.json", burst_results(1.2, retry_after=False)))
    item = run_items(spec("chat"), loadtest=ev)["loadtest.retry-after"]
    assert item.status is Status.FAIL and "carried Retry-After" in item.reason


def test_no_retry_after_wording_is_the_backoffs():
    assert Backoff().delay(1, None, 0.0)[1].startswith(loadtest_file.NO_RETRY_AFTER)
    assert not Backoff().delay(1, 3.0, 0.0)[1].startswith(loadtest_file.NO_RETRY_AFTER)


def test_flat_loadtest_has_no_burst_and_other_models_runs_are_unknown(tmp_path):
    flat = [Result(id=str(i), request_class="interactive", tenant="t", prompt_tokens=1, max_tokens=1, scheduled=i * 0.5,
                   start=i * 0.5, outcome=OK, ttft_s=0.1) for i in range(120)]
    ev = loadtest_file.read(write_loadtest(tmp_path / "flat.json", flat))
    assert run_items(spec("chat"), loadtest=ev)["loadtest.burst"].status is Status.FAIL
    other = loadtest_file.read(write_loadtest(tmp_path / "other.json", flat, model="someone-else"))
    item = run_items(spec("chat"), loadtest=other)["loadtest.burst"]
    assert item.status is Status.UNKNOWN and "'someone-else'" in item.reason


@pytest.mark.parametrize("doc, field", [
    ("not json", "expected the JSON written by"),
    ({"config": {"bin_s": 5}, "summary": {}, "timeline": [{"t": 0, "sent": "3", "refused_attempts": 0}], "requests": []},
     "timeline[0].sent"),
    ({"config": {"bin_s": 5}, "summary": {}, "timeline": []}, ".requests"),
    ({"config": {}, "summary": {}, "timeline": [], "requests": []}, "config.bin_s"),
])
def test_bad_results_files_name_the_field(tmp_path, doc, field):
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(loadtest_file.LoadtestFileError, match=field.replace("[", r"\[").replace("]", r"\]")):
        loadtest_file.read(path)


# --- the command line -----------------------------------------------------------------------


def test_cli_json_and_markdown_and_exit_codes(tmp_path, capsys):
    assert main(["check", str(SPECS / "chat.yaml"), str(SPECS / "batch-summarize.yaml"), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["items"]) == 2 * len(ITEMS) and doc["summary"]["FAIL"] == 0
    assert all(item["evidence"] and item["checklist"] for item in doc["items"])

    broken = tmp_path / "chat-zero.yaml"
    doc = spec_dict("chat")
    doc["replicas"]["min"] = 0
    broken.write_text(yaml.safe_dump(doc))
    assert main(["check", str(broken), "-o", "markdown"]) == 1
    out = capsys.readouterr().out
    assert "| **FAIL** | llm/chat | spec.scale-to-zero |" in out

    assert main(["check", str(SPECS / "chat.yaml"), "--loadtest", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: cannot read" in capsys.readouterr().err
    assert main(["check", str(SPECS / "chat.yaml"), "--window", "5 minutes"]) == 2
    assert "--window: expected a Prometheus duration" in capsys.readouterr().err


def test_unreachable_prometheus_and_cluster_are_unknown_with_the_reason(tmp_path, capsys):
    from scaler.ports import free_port

    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("not: a kubeconfig\n")
    code = main(["check", str(SPECS / "chat.yaml"), "--prometheus", f"http://127.0.0.1:{free_port()}",
                 "--kubeconfig", str(kubeconfig), "-o", "json"])
    items = {i["item"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    assert code == 0
    for name in ("prom.vllm-series", "prom.scaler-series", "prom.ttft", "prom.scale-up-latency", "prom.concurrency"):
        assert items[name]["status"] == "UNKNOWN" and "unreachable" in items[name]["reason"], items[name]
    for name in ("k8s.scaledobject", "k8s.predictor", "k8s.podmonitor"):
        assert items[name]["status"] == "UNKNOWN" and "cluster not readable" in items[name]["reason"], items[name]


def test_something_that_is_not_prometheus_gives_unknown_naming_why(tmp_path):
    from scaler_helpers import PageServer

    page = PageServer("<html>not a Prometheus</html>")
    try:
        ev = prometheus.gather(spec("chat"), f"http://127.0.0.1:{page.port}", "1h", now=1_800_000_000.0)
    finally:
        page.close()
    item = run_items(spec("chat"), prom=ev)["prom.vllm-series"]
    assert item.status is Status.UNKNOWN and "without a JSON body" in item.reason


def test_no_vllm_series_fails_unless_the_model_may_have_been_scaled_to_zero():
    nothing = {label: prometheus.Measure(f"count({name})") for label, name in prometheus.VLLM_SERIES.items()}
    prom = PromEvidence("http://prom", "1h", vllm=nothing)
    item = run_items(spec("chat"), prom=prom)["prom.vllm-series"]
    assert item.status is Status.FAIL and "no vLLM series for model_name='qwen2.5-7b-instruct' in namespace 'llm'" in item.reason
    assert run_items(spec("batch-summarize"), prom=prom)["prom.vllm-series"].status is Status.UNKNOWN
    some = nothing | {"running": prometheus.Measure("count(running)", 1.0), "waiting": prometheus.Measure("count(waiting)", 1.0)}
    item = run_items(spec("batch-summarize"), prom=PromEvidence("http://prom", "1h", vllm=some))["prom.vllm-series"]
    assert item.status is Status.FAIL and "missing vLLM series" in item.reason and "KV cache usage" in item.reason
