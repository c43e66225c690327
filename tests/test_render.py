"""Rendering: golden files, determinism, hostile input, atomic writes, derived values, KEDA contract.

The rendered examples in manifests/examples/<name>/ ARE the golden files. When a template change
is intended, regenerate them and review the diff:

    python -m scaler render manifests/examples/specs/*.yaml -o manifests/examples
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scaler.modelconfig.build import from_spec
from scaler.render import cli as render_cli
from scaler.render.derive import burst_recurrence, burst_replicas, derive, trigger_metadata
from scaler.render.filters import UnsafeValue, num, promql, q
from scaler.render.render import RenderError, render_model, render_specs, write_outputs
from scaler.server import metadata as server_metadata
from scaler.spec import SpecError, load_spec, parse_spec

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "manifests" / "examples"
SPECS = sorted((EXAMPLES / "specs").glob("*.yaml"))
REGENERATE = "python -m scaler render manifests/examples/specs/*.yaml -o manifests/examples"
CONTRACT_KEYS = {
    "scalerAddress", "model", "namespace", "podSelector", "metricsPort", "ttftSloSeconds", "requestClass", "source",
    "prometheusAddress", "scrapeTargets", "scaleUpLatencySeconds", "perReplicaCapacity", "maxConcurrency", "targetUtilization",
    "expectedPrefillSeconds", "yellowEnterRatio", "yellowExitRatio", "redEnterRatio", "redExitRatio", "stateHoldSeconds",
    "enableTLS", "unsafeSsl", "tpotSloSeconds", "burstReplicas", "burstRecurrence",
}


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    render_cli.register(parser.add_subparsers())
    args = parser.parse_args(["render", *argv])
    return args.func(args)


def chat_doc() -> dict:
    return yaml.safe_load((EXAMPLES / "specs" / "chat.yaml").read_text())


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_examples_match_golden_files(tmp_path):
    assert run_cli(*map(str, SPECS), "-o", str(tmp_path)) == 0
    fresh = tree(tmp_path)
    golden = {name: text for name, text in tree(EXAMPLES).items() if not name.startswith("specs/")}
    assert sorted(fresh) == sorted(golden), f"rendered files differ from manifests/examples; regenerate: {REGENERATE}"
    diffs = []
    for name in sorted(fresh):
        if fresh[name] != golden[name]:
            diffs += difflib.unified_diff(golden[name].splitlines(), fresh[name].splitlines(), f"golden/{name}", f"rendered/{name}", lineterm="")
    assert not diffs, "\n".join(diffs[:200]) + f"\n\nIf intended, regenerate: {REGENERATE}"


def test_render_is_deterministic_and_independent_of_key_order():
    doc = chat_doc()
    doc["runtime"]["nodeSelector"] = {"b.example/pool": "gpu", "a.example/zone": "z1"}
    reordered = dict(reversed(list(doc.items())))
    reordered["runtime"] = dict(reversed(list(doc["runtime"].items())))
    reordered["runtime"]["nodeSelector"] = dict(reversed(list(doc["runtime"]["nodeSelector"].items())))
    one = render_model(parse_spec(doc)).files
    two = render_model(parse_spec(reordered)).files
    assert one == two
    assert one["inferenceservice.yaml"].index('"a.example/zone"') < one["inferenceservice.yaml"].index('"b.example/pool"')


HOSTILE = [
    ("name", 'chat"\nkind: Secret'),
    ("namespace", "llm\n  evil: true"),
    ("model.servedName", 'qwen"} or vector(1) #'),
    ("model.servedName", "qwen\nx"),
    ("model.uri", "hf://org/model\" ; rm -rf"),
    ("runtime.image", "vllm:latest\n    securityContext: {privileged: true}"),
    ("runtime.args", ["--ok", "--x={{ 7*7 }}"]),
    ("runtime.args", ["--x: y"]),
    ("runtime.nodeSelector", {"pool": "gpu\nhostNetwork: true"}),
    ("runtime.nodeSelector", {"a: b": "gpu"}),
    ("shedding.tenants", [{"name": "web'}]"}]),
    ("gateway.istio.host", "chat.example.com:80\n  x"),
    ("scaler.prometheusAddress", "http://prom:9090/api?query=up"),
    ("scaler.service", "slo-scaler.evil:1"),
    ("scaler.tls.secretName", "tls\"\n"),
]


@pytest.mark.parametrize("field, value", HOSTILE, ids=[f"{f}={v!r}"[:60] for f, v in HOSTILE])
def test_hostile_values_are_rejected_and_nothing_is_written(field, value, tmp_path, capsys):
    doc = chat_doc()
    node = doc
    *parents, last = field.split(".")
    for key in parents:
        node = node[key]
    node[last] = value
    spec_file = tmp_path / "hostile.yaml"
    spec_file.write_text(yaml.safe_dump(doc))
    out = tmp_path / "out"
    assert run_cli(str(spec_file), "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert "invalid model spec" in err and field.split(".")[-1] in err, err
    assert not out.exists(), "a failed render must leave nothing behind"


def test_one_bad_spec_among_good_ones_writes_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    doc = chat_doc() | {"name": "other"}
    doc["replicas"]["min"] = 0  # interactive, 75 s scale-up vs 1.5 s SLO: refused
    bad.write_text(yaml.safe_dump(doc))
    out = tmp_path / "out"
    assert run_cli(*map(str, SPECS), str(bad), "-o", str(out)) == 1
    assert not out.exists()


@pytest.mark.parametrize("filter_, value", [(q, 3), (q, None), (num, True), (num, "3"), (num, float("nan")), (promql, 'a"b'), (promql, "a\nb"), (promql, 1)])
def test_filters_refuse_values_without_a_safe_rendering(filter_, value):
    with pytest.raises(UnsafeValue):
        filter_(value)


def test_filters_quote_what_they_accept():
    assert yaml.safe_load("k: " + q('a: b\n"c" #d {{ e }}')) == {"k": 'a: b\n"c" #d {{ e }}'}
    assert (num(3.0), num(0.25), promql("m/x-1")) == ("3", "0.25", '"m/x-1"')


def test_rerender_replaces_an_earlier_render(tmp_path):
    assert run_cli(*map(str, SPECS), "-o", str(tmp_path)) == 0
    stale = tmp_path / "chat" / "stale.yaml"
    stale.write_text("old")
    assert run_cli(*map(str, SPECS), "-o", str(tmp_path)) == 0
    assert not stale.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary directories left"


def test_refuses_to_replace_a_directory_it_did_not_write(tmp_path):
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "mine.txt").write_text("precious")
    with pytest.raises(RenderError, match="not written by `slo-scaler render`"):
        write_outputs(tmp_path, render_specs([(load_spec(SPECS[1]), "chat.yaml")]))
    assert (tmp_path / "chat" / "mine.txt").read_text() == "precious"
    assert not (tmp_path / "batch-summarize").exists()


def test_failure_while_swapping_restores_the_previous_render(tmp_path, monkeypatch):
    outputs = render_specs([(load_spec(p), str(p)) for p in SPECS])
    write_outputs(tmp_path, outputs)
    before = tree(tmp_path)
    changed = [o.__class__(o.directory, {**o.files, "extra.txt": "new"}, o.derived, o.source, o.kinds) for o in outputs]
    real_rename, calls = os.rename, []

    def flaky_rename(src, dst):
        calls.append(dst)
        if len(calls) == 4:  # second output's swap: the first one is already in place
            raise OSError("disk on fire")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", flaky_rename)
    with pytest.raises(OSError, match="disk on fire"):
        write_outputs(tmp_path, changed)
    monkeypatch.setattr(os, "rename", real_rename)
    assert tree(tmp_path) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def _spec(**changes) -> "object":
    doc = chat_doc()
    for field, value in changes.items():
        node = doc
        *parents, last = field.split("__")
        for key in parents:
            node = node[key]
        node[last] = value
    return parse_spec(doc)


def test_burst_replicas_cover_the_burst_during_scale_up():
    d = derive(_spec(calibration__warmScaleUpLatencySeconds=75))
    # warm latency 75 s (measured); a request stays 32 / 3 = 10.67 s in a full batch, so the replicas
    # up at 75 s hold what arrived over [64.33, 75]: 4 + 0.05 x 69.67 = 7.48 req/s on average;
    # carry = 3 x 25/32 = 2.34 req/s.
    assert d.scale_up_latency == 75 and d.target_concurrency == 25
    assert d.burst_replicas == 4
    steeper = derive(_spec(calibration__warmScaleUpLatencySeconds=75, traffic__burstGrowthPerSecond=0.2))
    assert steeper.burst_replicas == 8  # 4 + 0.2 x 69.67 = 17.93 req/s / 2.34 = 7.65


def test_the_burst_floor_goes_to_the_scaler_and_keda_fallback_while_min_replicas_stays_the_specs():
    d = derive(_spec(calibration__warmScaleUpLatencySeconds=75, traffic__burstGrowthPerSecond=0.2))
    assert (d.min_replicas, d.burst_replicas, d.fallback_replicas) == (1, 8, 8)
    assert from_spec(_spec(calibration__warmScaleUpLatencySeconds=75, traffic__burstGrowthPerSecond=0.2),
                     d).scaler.burst_replicas == 8
    raised = derive(_spec(replicas__min=10, calibration__warmScaleUpLatencySeconds=75, traffic__burstGrowthPerSecond=0.2))
    assert (raised.min_replicas, raised.burst_replicas, raised.fallback_replicas) == (10, 8, 10)
    capped = derive(_spec(replicas__max=5, calibration__warmScaleUpLatencySeconds=75, traffic__burstGrowthPerSecond=0.2))
    assert capped.burst_replicas == 5 and any(w.startswith("burst headroom needs 8") for w in capped.warnings)


def test_burst_recurrence_reads_the_profiles_peak_over_its_base():
    # 0 for a peak at the base (a level), 1 from twice the base (the burst history's new burst), linear between.
    assert [burst_recurrence(10.0, peak) for peak in (10.0, 12.5, 15.0, 20.0, 45.0)] == [0.0, 0.25, 0.5, 1.0, 1.0]
    assert burst_recurrence(0.0, 5.0) == 1.0 and burst_recurrence(10.0, 8.0) == 0.0
    d = derive(_spec(calibration__warmScaleUpLatencySeconds=75))  # base 4, peak 30: a burst
    assert d.burst_recurrence == 1.0
    assert from_spec(_spec(calibration__warmScaleUpLatencySeconds=75), d).scaler.burst_recurrence == 1.0
    level = derive(_spec(calibration__warmScaleUpLatencySeconds=75, traffic__baseRequestsPerSecond=25))
    assert level.burst_recurrence == 0.2 and "burstRecurrence = 0.2: peak 30 req/s over base 25" in level.explain()
    assert "half-life of 8 minutes" in level.explain()  # 300 + 900 x 0.2 = 480 s
    batch = derive(_spec(requestClass="batch"))
    assert batch.burst_replicas is None and batch.burst_recurrence is None


def test_without_warm_pool_the_cold_latency_sizes_the_headroom():
    d = derive(_spec(replicas__warmPool=0))
    assert d.scale_up_latency == 300 and d.burst_replicas == 8  # 4 + 0.05 x 294.67 = 18.73 req/s / 2.34 = 7.99


def test_requests_that_outlast_the_rise_hold_only_what_arrived_while_they_run():
    # Long generations: 256 requests in a full batch at 1.7 req/s, so each stays 150.6 s, longer
    # than the 60 s until new capacity is ready. At 60 s the replicas up hold the base's requests
    # plus the rise's (0.8 req/s per s for 30 s, then 24 above the base): 6 x 150.6 + 360 + 720
    # requests, 13.17 req/s over 150.6 s, at 1.7 x 204/256 = 1.355 req/s each: 10 replicas, where
    # carrying the peak the rise reaches (30 req/s) would need 23.
    long = derive(_spec(calibration__warmScaleUpLatencySeconds=60, calibration__safeConcurrency=256,
                        calibration__perReplicaCapacity=1.7, traffic__baseRequestsPerSecond=6,
                        traffic__peakRequestsPerSecond=30, traffic__burstGrowthPerSecond=0.8, replicas__max=40))
    assert long.burst_replicas == 10
    assert "a request stays 150.588 s" in long.explain()


@settings(max_examples=200, deadline=None)
@given(base=st.floats(0, 50), rise=st.floats(0, 100), growth=st.floats(0, 5), latency=st.floats(1, 600),
       request_s=st.floats(0.01, 400))
def test_burst_rate_is_the_mean_arrival_rate_over_the_last_request_duration(base, rise, growth, latency, request_s):
    peak = base + rise
    _, reach = burst_replicas(base, peak, growth, latency, 1.0, request_s)
    # Reference: the rate min(base + growth x t, peak) (the base before the burst) averaged over
    # [latency - request_s, latency] by a fine midpoint sum.
    n = 4000
    step = request_s / n
    ts = (latency - request_s + (i + 0.5) * step for i in range(n))
    mean = sum(base if t < 0 else min(base + growth * t, peak) for t in ts) / n
    # The midpoint sum is exact on the linear pieces; each of the two kinks (the burst's start and
    # the peak) puts it off by at most growth x step^2 / 8 over the span.
    assert reach == pytest.approx(mean, rel=1e-9, abs=1e-9 + growth * step * step / (4 * request_s))
    assert base - 1e-9 <= reach <= min(base + growth * latency, peak) + 1e-9


@pytest.mark.parametrize("safe, asked, target, utilization", [(32, 0.8, 25, 0.7812), (10, 1.0, 9, 0.9), (2, 0.9, 1, 0.5), (100, 0.5, 50, 0.5)])
def test_autoscaler_target_sits_below_safe_concurrency(safe, asked, target, utilization):
    d = derive(_spec(calibration__safeConcurrency=safe, scaler__targetUtilization=asked))
    assert (d.target_concurrency, d.target_utilization) == (target, utilization)
    assert d.target_concurrency < safe


def test_safe_concurrency_of_one_leaves_no_room_below_it():
    with pytest.raises(SpecError, match="calibration.safeConcurrency: expected at least 2"):
        derive(_spec(calibration__safeConcurrency=1))


@pytest.mark.parametrize("request_class", ["interactive", "agent"])
def test_scale_to_zero_refused_when_scale_up_breaks_the_slo(request_class):
    with pytest.raises(SpecError) as err:
        derive(_spec(requestClass=request_class, replicas__min=0, traffic__baseRequestsPerSecond=0, traffic__burstGrowthPerSecond=0,
                     calibration__warmScaleUpLatencySeconds=75))
    assert err.value.issues[0].path == "replicas.min"
    assert "scale-up latency 75 s is not below the TTFT p95 SLO (1.5 s)" in str(err.value)
    assert "forceScaleToZero" in str(err.value)


def test_scale_to_zero_when_forced_or_fast_enough():
    quiet = dict(replicas__min=0, traffic__baseRequestsPerSecond=0, traffic__burstGrowthPerSecond=0)
    forced = derive(_spec(replicas__forceScaleToZero=True, **quiet))
    assert (forced.idle_replicas, forced.min_replicas) == (0, 1)
    assert "forceScaleToZero" in forced.explain()
    fast = derive(_spec(calibration__warmScaleUpLatencySeconds=1.0, **quiet))
    assert fast.idle_replicas == 0


def test_scale_to_zero_refused_when_base_traffic_needs_replicas():
    with pytest.raises(SpecError, match="contradicts scale to zero"):
        derive(_spec(replicas__min=0, replicas__forceScaleToZero=True))


def test_idle_replica_count_only_where_scale_to_zero_is_allowed():
    files = {p.stem: render_model(load_spec(p)).files["scaledobject.yaml"] for p in SPECS}
    batch = yaml.safe_load(files["batch-summarize"].split("\n", 2)[2])
    chat = yaml.safe_load(files["chat"].split("\n", 2)[2])
    assert (batch["spec"]["idleReplicaCount"], batch["spec"]["minReplicaCount"]) == (0, 1)
    assert batch["spec"]["triggers"][0]["type"] == "external-push"
    assert "idleReplicaCount" not in chat["spec"] and chat["spec"]["triggers"][0]["type"] == "external"


def test_warning_when_max_replicas_cannot_carry_the_peak(capsys):
    d = derive(_spec(replicas__max=6))
    assert any("replicas.max (6) carries" in w and "needs 13 replicas" in w for w in d.warnings)
    assert not derive(_spec()).warnings


def test_explain_prints_the_reasoning(capsys):
    assert run_cli(str(SPECS[1]), "--explain") == 0
    out = capsys.readouterr().out
    for step in ("budgetSeconds = 1.25", "scaleUpLatencySeconds = 75: warm pool", "burstReplicas = 4", "minReplicas = 1", "targetUtilization = 0.7812"):
        assert step in out


def test_render_requires_an_output_unless_explaining(capsys):
    assert run_cli(str(SPECS[0])) == 2
    assert "-o/--output DIR is required" in capsys.readouterr().err


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_trigger_metadata_is_the_keda_contract_and_the_scaler_accepts_it(path):
    spec = load_spec(path)
    meta = trigger_metadata(spec, derive(spec))
    assert set(meta) <= CONTRACT_KEYS
    assert all(isinstance(v, str) for v in meta.values()), "KEDA requires string metadata values"
    assert meta["scalerAddress"] == "slo-scaler.slo-scaler.svc.cluster.local:9090"
    assert meta["podSelector"] == f"serving.kserve.io/inferenceservice={spec.name}"
    parsed = server_metadata.parse(meta, namespace=spec.namespace)  # the server's own parser
    assert parsed.model == spec.model.served_name
    assert parsed.policy.ttft_slo_s == spec.slo.ttft_p95_seconds
    assert parsed.source.kind == spec.scaler.source


def test_warm_latency_derives_from_the_cold_start_parts():
    """The warm pool removes node provisioning and the image pull; the model cache the download."""
    parts = {"nodeProvisionSeconds": 150, "imagePullSeconds": 75, "weightDownloadSeconds": 45, "loadSeconds": 30}
    cached = derive(_spec(calibration__warmScaleUpLatencySeconds=None, calibration__coldStart=parts))
    assert cached.scale_up_latency == 30  # load only
    uncached = derive(_spec(calibration__warmScaleUpLatencySeconds=None, calibration__coldStart=parts, modelCache=None))
    assert uncached.scale_up_latency == 45 + 30  # download + load
    measured = derive(_spec(calibration__warmScaleUpLatencySeconds=50, calibration__coldStart=parts))
    assert measured.scale_up_latency == 50  # a measured value wins


@pytest.mark.parametrize("changes, expected", [
    (dict(model__uri="pvc://models/qwen"), "modelCache: expected a model.uri KServe's LocalModelCache can download"),
    (dict(calibration__warmScaleUpLatencySeconds=None), "calibration.warmScaleUpLatencySeconds: expected a measured value, or calibration.coldStart"),
])
def test_model_cache_and_warm_latency_rules(changes, expected):
    with pytest.raises(SpecError, match=re.escape(expected)):
        _spec(**changes)


def test_model_cache_without_a_warm_pool_is_not_rendered():
    spec = _spec(replicas__warmPool=0)
    assert "localmodelcache.yaml" not in render_model(spec).files
    assert any("no LocalModelCache is rendered" in w for w in derive(spec).warnings)


def test_rls_tls_mounts_the_client_certificate_where_the_rls_cluster_reads_it():
    doc = yaml.safe_load((EXAMPLES / "specs" / "batch-summarize.yaml").read_text())
    doc.setdefault("shedding", {})["rlsTls"] = {"enabled": True, "secretName": "gw-rls-client"}
    files = render_model(parse_spec(doc)).files
    pod = next(d for d in yaml.safe_load_all(files["gateway.yaml"]) if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    mount = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "rls-tls")
    assert next(v for v in pod["volumes"] if v["name"] == "rls-tls")["secret"]["secretName"] == "gw-rls-client"
    cluster = next(c for c in yaml.safe_load(files["envoy.yaml"])["static_resources"]["clusters"]
                   if c["name"] == "slo_scaler_rls")
    tls = cluster["transport_socket"]["typed_config"]["common_tls_context"]
    assert tls["tls_certificates"][0]["certificate_chain"]["filename"] == mount["mountPath"] + "/tls.crt"
    assert tls["validation_context"]["trusted_ca"]["filename"] == mount["mountPath"] + "/ca.crt"
    plain = render_model(load_spec(EXAMPLES / "specs" / "batch-summarize.yaml")).files
    assert "transport_socket" not in plain["envoy.yaml"] and "rls-tls" not in plain["gateway.yaml"]
