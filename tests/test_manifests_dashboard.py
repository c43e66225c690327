"""The Grafana dashboard: valid JSON, every query valid PromQL (checked by promtool), every metric
one that vLLM, kube-state-metrics or slo-scaler really exports, and the required signals present."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from scaler.server.metrics import DECISION_GAUGES

REPO = Path(__file__).resolve().parents[1]
DASHBOARD = REPO / "manifests" / "dashboards" / "slo-scaler.json"
VLLM_CAPTURE = Path(__file__).parent / "fixtures" / "vllm" / "metrics_sample_0.29.0.txt"
# the scaler's contract: a gauge per decision field (scaler/server/metrics.py), the one-hot state and
# the RLS's decisions (scaler/rls/metrics.py)
SLO_SCALER = {f"slo_scaler_{name}" for name, _, _ in DECISION_GAUGES} | {"slo_scaler_state", "slo_scaler_rls_decisions_total"}
KUBE_STATE = {"kube_deployment_spec_replicas", "kube_deployment_status_replicas_ready"}
METRIC = re.compile(r"\b([a-z_]+:[a-z_:]+|slo_scaler_[a-z_]+|kube_[a-z_]+)\s*[{\[(]")


def exprs() -> list[tuple[str, str]]:
    board = json.loads(DASHBOARD.read_text())
    return [(panel["title"], target["expr"]) for panel in board["panels"] for target in panel["targets"]]


def concrete(expr: str) -> str:
    """Grafana variables replaced by values, so the query is plain PromQL."""
    return expr.replace("$__rate_interval", "1m").replace("$namespace", "llm").replace("$model", "m").replace("$predictor", "m-predictor")


def vllm_metrics() -> set[str]:
    names = set()
    for line in VLLM_CAPTURE.read_text().splitlines():
        if line.startswith("vllm:"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def test_dashboard_is_valid_json_with_unique_panel_ids():
    board = json.loads(DASHBOARD.read_text())
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids)) and board["uid"] == "slo-scaler"
    assert {v["name"] for v in board["templating"]["list"]} == {"datasource", "namespace", "model", "predictor"}


def test_dashboard_shows_the_required_signals():
    text = " ".join(f"{title} {expr}" for title, expr in exprs())
    for needle in ("vllm:num_requests_waiting", "vllm:time_to_first_token_seconds_bucket", "slo_scaler_pressure",
                   "slo_scaler_state", "slo_scaler_rls_decisions_total", "kube_deployment_spec_replicas", "slo_scaler_demand_replicas"):
        assert needle in text


def test_every_metric_exists():
    known = vllm_metrics() | SLO_SCALER | KUBE_STATE
    for title, expr in exprs():
        for metric in METRIC.findall(expr):
            assert metric in known, f"{title}: {metric} is not exported by vLLM, kube-state-metrics or slo-scaler"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_every_query_is_valid_promql(tmp_path):
    rules = [{"record": f"dashboard:panel_{i}", "expr": concrete(expr)} for i, (_, expr) in enumerate(exprs())]
    path = tmp_path / "dashboard_rules.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_promql_check_catches_a_broken_query(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "d", "rules": [{"record": "x:y", "expr": concrete(exprs()[0][1]) + ")"}]}]}))
    assert subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True, timeout=60).returncode != 0
