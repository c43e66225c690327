"""The rendered alerts, checked and unit-tested by the real promtool.

For each example, spec.groups of the PrometheusRule become a plain rules file; `promtool check
rules` must pass, and `promtool test rules` runs one healthy scenario (no alert fires) and, for
every alert, a scenario with synthetic series that break exactly its threshold (it fires, with
its labels and annotations). Thresholds come from the spec, so a template change that loosens
or breaks an expression fails here.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from scaler.render.render import render_model
from scaler.spec import load_spec

REPO = Path(__file__).resolve().parents[1]
SPECS = sorted((REPO / "manifests" / "examples" / "specs").glob("*.yaml"))
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) not installed")

EXPECTED_ALERTS = {
    "SloScalerTTFTP95OverSLO", "SloScalerTTFTP99OverSLO", "SloScalerQueueTimeOverBudget", "SloScalerQueueBacklog",
    "SloScalerRefusalRateHigh", "SloScalerReplicasNotReady", "SloScalerReplicasAtMax",
}


def _labels(**labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def _histogram(metric: str, sel: dict, steps: int, buckets: list[tuple[float, int]]) -> list[dict]:
    """Bucket counters growing by the given cumulative counts per minute ([(le, count), ...])."""
    total = buckets[-1][1]
    return [
        {"series": f"{metric}_bucket" + _labels(**sel, le=le), "values": f"0+{count}x{steps}"}
        for le, count in [(f"{le:g}", count) for le, count in buckets] + [("+Inf", total)]
    ]


def _above(metric: str, sel: dict, steps: int, value: float) -> list[dict]:
    """Every observation lies between 2x and 4x `value`: every quantile is above it."""
    return _histogram(metric, sel, steps, [(value * 2, 0), (value * 4, 100)])


def scenarios(spec, derived) -> dict[str, list[dict]]:
    """Input series per scenario: 'healthy', and one per alert that breaks only that alert's threshold."""
    steps = math.ceil(derived.replica_ready_timeout / 60) + 12
    vllm = {"namespace": spec.namespace, "model_name": spec.model.served_name}
    deploy = {"namespace": spec.namespace, "deployment": f"{spec.name}-predictor"}
    decisions = {"namespace": spec.namespace, "model": spec.model.served_name, "class": spec.request_class, "tenant": "web", "reason": "r"}
    p95, p99, budget = spec.slo.ttft_p95_seconds, spec.slo.ttft_p99_seconds, derived.budget_seconds
    ratio, refusal, top = spec.alerts.waiting_to_running_ratio, spec.alerts.refusal_ratio, derived.max_replicas
    # Healthy: latencies at a quarter of their limits, queue below ratio, refusals at a fifth of the limit.
    base = {
        "ttft": _above("vllm:time_to_first_token_seconds", vllm, steps, p95 / 16),
        "queue": _above("vllm:request_queue_time_seconds", vllm, steps, budget / 16),
        "waiting": [{"series": "vllm:num_requests_waiting" + _labels(**vllm), "values": f"{ratio * 5:g}x{steps}"},
                    {"series": "vllm:num_requests_running" + _labels(**vllm), "values": f"10x{steps}"}],
        "refusals": [{"series": "slo_scaler_rls_decisions_total" + _labels(**decisions, code="OK"), "values": f"0+100x{steps}"},
                     {"series": "slo_scaler_rls_decisions_total" + _labels(**decisions, code="503"), "values": f"0+{100 * refusal / 5:g}x{steps}"}],
        "replicas": [{"series": "kube_deployment_spec_replicas" + _labels(**deploy), "values": f"{top - 1}x{steps}"},
                     {"series": "kube_deployment_status_replicas_ready" + _labels(**deploy), "values": f"{top - 1}x{steps}"}],
    }

    def with_(**changes):
        return [series for key, group in ({**base, **changes}).items() for series in group]

    return {
        "healthy": with_(),
        # All observations between the two SLOs: p95 is over its SLO, p99 still under its own.
        "SloScalerTTFTP95OverSLO": with_(ttft=_histogram("vllm:time_to_first_token_seconds", vllm, steps, [(p95, 0), (p99, 100)])),
        # 96% fast, 4% far above the p99 SLO: p99 breaks, p95 stays fast.
        "SloScalerTTFTP99OverSLO": with_(ttft=_histogram("vllm:time_to_first_token_seconds", vllm, steps, [(p95 / 4, 96), (p99 * 4, 100)])),
        "SloScalerQueueTimeOverBudget": with_(queue=_above("vllm:request_queue_time_seconds", vllm, steps, budget)),
        "SloScalerQueueBacklog": with_(waiting=[
            {"series": "vllm:num_requests_waiting" + _labels(**vllm), "values": f"{ratio * 20 + 1:g}x{steps}"},
            {"series": "vllm:num_requests_running" + _labels(**vllm), "values": f"10x{steps}"}]),
        "SloScalerRefusalRateHigh": with_(refusals=[
            {"series": "slo_scaler_rls_decisions_total" + _labels(**decisions, code="OK"), "values": f"0+100x{steps}"},
            {"series": "slo_scaler_rls_decisions_total" + _labels(**decisions, code="503"), "values": f"0+{100 * refusal * 2:g}x{steps}"}]),
        "SloScalerReplicasNotReady": with_(replicas=[
            {"series": "kube_deployment_spec_replicas" + _labels(**deploy), "values": f"{top - 1}x{steps}"},
            {"series": "kube_deployment_status_replicas_ready" + _labels(**deploy), "values": f"{max(top - 3, 0)}x{steps}"}]),
        "SloScalerReplicasAtMax": with_(replicas=[
            {"series": "kube_deployment_spec_replicas" + _labels(**deploy), "values": f"{top}x{steps}"},
            {"series": "kube_deployment_status_replicas_ready" + _labels(**deploy), "values": f"{top}x{steps}"}]),
    }, steps


def _expected(rule: dict, series: list[dict]) -> dict:
    """The alert as promtool reports it: rule labels, plus series labels the expression keeps."""
    labels = {k: str(v) for k, v in rule["labels"].items()}
    if rule["alert"] in ("SloScalerReplicasNotReady", "SloScalerReplicasAtMax"):
        labels["deployment"] = next(s for s in series if s["series"].startswith("kube_deployment_spec_replicas"))["series"].split('deployment="')[1].split('"')[0]
    return {"exp_labels": labels, "exp_annotations": rule.get("annotations", {})}


def rules_file(spec_path: Path, tmp_path: Path):
    spec = load_spec(spec_path)
    output = render_model(spec)
    rule = next(d for d in yaml.safe_load_all(output.files["prometheusrule.yaml"]) if d)
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}, sort_keys=True))
    return spec, output.derived, rule["spec"]["groups"], path


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_promtool_check_rules(spec_path, tmp_path):
    _, _, groups, path = rules_file(spec_path, tmp_path)
    assert {r["alert"] for g in groups for r in g["rules"]} == EXPECTED_ALERTS
    result = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(EXPECTED_ALERTS)} rules found" in result.stdout


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_promtool_alerts_fire_only_when_broken(spec_path, tmp_path):
    spec, derived, groups, path = rules_file(spec_path, tmp_path)
    rules = {r["alert"]: r for g in groups for r in g["rules"]}
    cases, steps = scenarios(spec, derived)
    eval_time = f"{steps - 1}m"
    tests = []
    for name, series in cases.items():
        checks = []
        for alert, rule in sorted(rules.items()):
            fires = alert == name
            checks.append({"eval_time": eval_time, "alertname": alert, "exp_alerts": [_expected(rule, series)] if fires else []})
        tests.append({"name": name, "interval": "1m", "input_series": series, "alert_rule_test": checks})
    test_file = tmp_path / "rules_test.yaml"
    test_file.write_text(yaml.safe_dump({"rule_files": [path.name], "evaluation_interval": "1m", "tests": tests}, sort_keys=False))
    result = subprocess.run([PROMTOOL, "test", "rules", str(test_file)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(cases) == {"healthy"} | EXPECTED_ALERTS


def test_promtool_test_fails_when_an_alert_is_missing(tmp_path):
    """The harness can fail: expecting a firing alert from healthy series is reported as a failure."""
    spec, derived, groups, path = rules_file(SPECS[0], tmp_path)
    rule = groups[0]["rules"][0]
    cases, steps = scenarios(spec, derived)
    test = {"interval": "1m", "input_series": cases["healthy"],
            "alert_rule_test": [{"eval_time": f"{steps - 1}m", "alertname": rule["alert"], "exp_alerts": [_expected(rule, cases["healthy"])]}]}
    test_file = tmp_path / "rules_test.yaml"
    test_file.write_text(yaml.safe_dump({"rule_files": [path.name], "tests": [test]}))
    result = subprocess.run([PROMTOOL, "test", "rules", str(test_file)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode != 0
