"""The scaler's own alert (manifests/base/prometheusrule.yaml), unit-tested by the real promtool."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) not installed")
SERIES = 'slo_scaler_config_last_reload_ok{pod="slo-scaler-0"}'


def test_config_refused_alert_fires_only_after_five_minutes_of_refusal(tmp_path):
    rule = yaml.safe_load((REPO / "manifests" / "base" / "prometheusrule.yaml").read_text())
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    check = subprocess.run([PROMTOOL, "check", "rules", "rules.yaml"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    fired = {"exp_labels": {"alertname": "SloScalerConfigRefused", "severity": "warning", "pod": "slo-scaler-0"},
             "exp_annotations": {"summary": rule["spec"]["groups"][0]["rules"][0]["annotations"]["summary"].replace(
                 "{{ $labels.pod }}", "slo-scaler-0")}}
    tests = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [
        # Applied, then refused from minute 3 on: silent while applied and for the first 5 minutes of refusal.
        {"interval": "1m", "input_series": [{"series": SERIES, "values": "1 1 1 0 0 0 0 0 0 0 0 0"}],
         "alert_rule_test": [{"eval_time": "2m", "alertname": "SloScalerConfigRefused", "exp_alerts": []},
                             {"eval_time": "7m", "alertname": "SloScalerConfigRefused", "exp_alerts": []},
                             {"eval_time": "9m", "alertname": "SloScalerConfigRefused", "exp_alerts": [fired]}]},
    ]}
    (tmp_path / "rules_test.yaml").write_text(yaml.safe_dump(tests))
    result = subprocess.run([PROMTOOL, "test", "rules", "rules_test.yaml"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
