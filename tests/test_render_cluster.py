"""What makes a default install come up: monitoring found by the operator, the KServe mode for the
installed version, every predictor host shed, cooldownPeriod only where KEDA uses it, and the
scaler's Deployment wired to the rendered ConfigMap."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scaler.render.render import MODEL_CONFIG_MAP, render_model
from scaler.spec import SpecError, load_spec, parse_spec

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "manifests" / "examples" / "specs"


def _spec(name: str = "chat", **changes):
    doc = yaml.safe_load((SPECS / f"{name}.yaml").read_text())
    for field, value in changes.items():
        node = doc
        *parents, last = field.split("__")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return parse_spec(doc)


def _objects(spec, file: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(render_model(spec).files[file]) if d]


def test_monitoring_objects_carry_the_release_label_by_default_and_the_specs_labels():
    default = _spec()
    for file in ("podmonitor.yaml", "prometheusrule.yaml"):
        assert _objects(default, file)[0]["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    custom = _spec(monitoring__labels={"release": "prom", "team": "llm"})
    for file in ("podmonitor.yaml", "prometheusrule.yaml"):
        labels = _objects(custom, file)[0]["metadata"]["labels"]
        assert labels["release"] == "prom" and labels["team"] == "llm" and labels["app.kubernetes.io/name"] == "chat"
    assert "release" not in _objects(custom, "scaledobject.yaml")[0]["metadata"]["labels"]
    base = yaml.safe_load((REPO / "manifests" / "base" / "podmonitor.yaml").read_text())
    assert base["metadata"]["labels"]["release"] == "kube-prometheus-stack"


@pytest.mark.parametrize("version, mode", [("0.15", "RawDeployment"), ("0.16", "Standard"), ("0.20", "Standard")])
def test_deployment_mode_follows_the_kserve_version(version, mode):
    spec = _spec(kserve__version=version)
    isvc = _objects(spec, "inferenceservice.yaml")[0]
    assert isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] == mode
    assert isvc["metadata"]["annotations"]["serving.kserve.io/autoscalerClass"] == "external"
    # Both raw modes create the <name>-predictor Deployment the ScaledObject targets.
    target = _objects(spec, "scaledobject.yaml")[0]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "chat-predictor")


def test_unsupported_kserve_version_is_refused():
    with pytest.raises(SpecError, match="kserve.version"):
        _spec(kserve__version="0.14")


def test_istio_filter_covers_the_service_and_the_predictor_host():
    patches = _objects(_spec(), "envoyfilter.yaml")[0]["spec"]["configPatches"]
    hosts = {p["match"]["routeConfiguration"]["vhost"]["name"] for p in patches}
    assert hosts == {"chat-llm.example.com:80", "chat-predictor-llm.example.com:80"}
    assert all(p["patch"]["value"]["rate_limits"] == patches[0]["patch"]["value"]["rate_limits"] for p in patches)


def test_a_host_off_kserves_pattern_needs_the_predictor_host():
    with pytest.raises(SpecError, match="gateway.istio.predictorHost"):
        _spec(gateway__istio__host="llm.example.com")
    spec = _spec(gateway__istio__host="llm.example.com", gateway__istio__predictorHost="chat-predictor.example.com")
    hosts = {p["match"]["routeConfiguration"]["vhost"]["name"] for p in _objects(spec, "envoyfilter.yaml")[0]["spec"]["configPatches"]}
    assert hosts == {"llm.example.com:80", "chat-predictor.example.com:80"}


def test_cooldown_period_only_with_scale_to_zero():
    chat = _objects(load_spec(SPECS / "chat.yaml"), "scaledobject.yaml")[0]["spec"]
    batch = _objects(load_spec(SPECS / "batch-summarize.yaml"), "scaledobject.yaml")[0]["spec"]
    assert "cooldownPeriod" not in chat and "idleReplicaCount" not in chat
    assert batch["idleReplicaCount"] == 0 and batch["cooldownPeriod"] == 300


def test_scaler_deployment_mounts_the_rendered_config_map():
    deployment = yaml.safe_load((REPO / "manifests" / "base" / "deployment.yaml").read_text())
    pod = deployment["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "models")
    assert volume["configMap"] == {"name": MODEL_CONFIG_MAP, "optional": True}
    mount = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "models")
    assert f"--config={mount['mountPath']}" in pod["containers"][0]["args"]
    rendered = yaml.safe_load((REPO / "manifests" / "examples" / "scaler-config-slo-scaler" / "kustomization.yaml").read_text())
    generator = rendered["configMapGenerator"][0]
    assert generator["name"] == MODEL_CONFIG_MAP and generator["namespace"] == "slo-scaler"
    assert generator["options"]["disableNameSuffixHash"] is True  # updated in place: the kubelet swaps, no rollout


def test_hpa_behaviour_is_the_policys():
    """One definition (scaler.policy.behavior) for render, the simulator and the demo."""
    from scaler.policy import behavior

    hpa = _objects(_spec(), "scaledobject.yaml")[0]["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
    for key, rules in (("scaleUp", behavior.SCALE_UP), ("scaleDown", behavior.SCALE_DOWN)):
        assert hpa[key] == {
            "stabilizationWindowSeconds": rules.stabilization_window_s, "selectPolicy": rules.select_policy,
            "policies": [{"type": r.type, "value": r.value, "periodSeconds": r.period_s} for r in rules.policies]}
