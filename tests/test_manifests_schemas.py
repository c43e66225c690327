"""Every object we ship or render validates against the real schemas, after a real `kubectl kustomize`.

Custom resources: the upstream CRDs in tests/fixtures/crds (see SOURCES.md there) (KServe, KEDA, Istio, Prometheus Operator),
made strict (unknown fields are errors, as with `kubectl apply --validate=strict`), with metadata
checked as Kubernetes ObjectMeta. Core objects: Kubernetes' own JSON schemas, strict, from the
`kubernetes-validate` PyPI package (shipped in the wheel, so this works offline).
"""

from __future__ import annotations

import copy
import functools
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

REPO = Path(__file__).resolve().parents[1]
CRDS = Path(__file__).parent / "fixtures" / "crds"
KUBERNETES_VERSION = "1.32"
EXAMPLES = REPO / "manifests" / "examples"
BUILDS = ["manifests", "manifests/base", "manifests/overlays/tls", "manifests/overlays/single-replica",
          "manifests/dashboards"] + sorted(
    str(p.parent.relative_to(REPO)) for p in EXAMPLES.glob("*/kustomization.yaml")
)


def kustomize(path: str | Path) -> list[dict]:
    result = subprocess.run(["kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"kubectl kustomize {path} failed:\n{result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def _strict(schema):
    """OpenAPI v3 (CRD) schema -> JSON Schema that rejects unknown fields and honours nullable."""
    if isinstance(schema, list):
        return [_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _strict(v) for k, v in schema.items()}
    if "properties" in out and "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if out.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if out.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    return out


@functools.cache
def crd_schemas() -> dict[tuple[str, str], dict]:
    assert CRDS.is_dir(), f"CRD schemas not found in {CRDS}"
    schemas = {}
    for path in sorted(CRDS.glob("*.yaml")):
        for doc in yaml.load_all(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # 3 MB of CRDs
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = doc["spec"]["group"], doc["spec"]["names"]["kind"]
            for version in doc["spec"]["versions"]:
                schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
                # Istio's schemas omit the envelope; metadata is checked separately as ObjectMeta.
                schema["properties"].update(apiVersion={"type": "string"}, kind={"type": "string"}, metadata={"type": "object"})
                schemas[(f"{group}/{version['name']}", kind)] = _strict(schema)
    return schemas


def validate(obj: dict) -> None:
    """Raise jsonschema.ValidationError (or kubernetes_validate's) if `obj` is not a valid object."""
    key = (obj.get("apiVersion"), obj.get("kind"))
    schema = crd_schemas().get(key)
    if schema is None:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        return
    jsonschema.Draft7Validator(schema).validate(obj)
    # ObjectMeta of a custom resource, checked by wrapping it in a core object.
    kubernetes_validate.validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj["metadata"]}, KUBERNETES_VERSION, strict=True)


@functools.cache
def built(path: str) -> tuple[dict, ...]:
    return tuple(kustomize(REPO / path))


def test_every_kustomization_is_covered():
    assert {"manifests/examples/chat", "manifests/examples/batch-summarize", "manifests/examples/istio-gateway-istio-system"} <= set(BUILDS)


@pytest.mark.parametrize("path", BUILDS)
def test_kustomize_builds_and_every_object_validates(path):
    objects = built(path)
    assert objects, f"{path} built no objects"
    for obj in objects:
        try:
            validate(obj)
        except (jsonschema.ValidationError, kubernetes_validate.ValidationError) as exc:
            pytest.fail(f"{path}: {obj['kind']}/{obj['metadata']['name']} invalid at {list(exc.path)}: {exc.message}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            pytest.fail(f"{path}: no schema for {obj['apiVersion']} {obj['kind']}: {exc.message}")


def test_rendered_examples_cover_every_kind():
    kinds = {obj["kind"] for path in BUILDS if path.startswith("manifests/examples") for obj in built(path)}
    assert kinds == {
        "InferenceService", "ScaledObject", "TriggerAuthentication", "PriorityClass", "Deployment", "Service",
        "ConfigMap", "PodMonitor", "PrometheusRule", "EnvoyFilter", "LocalModelCache",
    }


def test_scaler_base_has_the_expected_objects():
    kinds = sorted(f"{o['kind']}/{o['metadata']['name']}" for o in built("manifests/base"))
    assert kinds == sorted([
        "Namespace/slo-scaler", "ServiceAccount/slo-scaler", "ClusterRole/slo-scaler", "ClusterRoleBinding/slo-scaler",
        "Deployment/slo-scaler", "Service/slo-scaler", "Service/slo-scaler-rls", "NetworkPolicy/slo-scaler", "PodDisruptionBudget/slo-scaler",
        "PodMonitor/slo-scaler", "PrometheusRule/slo-scaler",
        "Deployment/slo-scaler-redis", "Service/slo-scaler-redis", "NetworkPolicy/slo-scaler-redis",
    ])


@pytest.mark.parametrize("mutate, where", [
    (lambda o: o["spec"]["triggers"][0].__setitem__("type", ""), "ScaledObject trigger type minLength"),
    (lambda o: o["spec"].pop("scaleTargetRef"), "ScaledObject required scaleTargetRef"),
    (lambda o: o["spec"].__setitem__("minReplicaCount", -1), "ScaledObject minimum"),
    (lambda o: o["spec"].__setitem__("unknownField", 1), "ScaledObject unknown field"),
    (lambda o: o["metadata"].__setitem__("name", "Not_A_Name"), None),
    (lambda o: o["metadata"].__setitem__("labels", {"a": 1}), "label value must be a string"),
])
def test_validation_catches_broken_custom_resources(mutate, where):
    scaled = next(o for o in built("manifests/examples/chat") if o["kind"] == "ScaledObject")
    broken = copy.deepcopy(scaled)
    mutate(broken)
    if where is None:
        # ObjectMeta's schema has no name pattern (the API server checks names); the spec does.
        validate(broken)
        return
    with pytest.raises((jsonschema.ValidationError, kubernetes_validate.ValidationError)):
        validate(broken)


@pytest.mark.parametrize("mutate", [
    lambda o: o["spec"]["template"]["spec"]["containers"][0].__setitem__("imagePullPolicy", 3),
    lambda o: o["spec"]["template"]["spec"].__setitem__("unknownField", True),
    lambda o: o["spec"].__setitem__("replicas", "two"),
])
def test_validation_catches_broken_core_objects(mutate):
    deployment = next(o for o in built("manifests/base") if o["kind"] == "Deployment")
    broken = copy.deepcopy(deployment)
    mutate(broken)
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(broken)


def test_inferenceservice_follows_the_kserve_contract():
    isvc = next(o for o in built("manifests/examples/chat") if o["kind"] == "InferenceService")
    scaled = next(o for o in built("manifests/examples/chat") if o["kind"] == "ScaledObject")
    annotations = isvc["metadata"]["annotations"]
    assert annotations["serving.kserve.io/deploymentMode"] == "Standard"
    assert annotations["serving.kserve.io/autoscalerClass"] == "external"
    assert scaled["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat-predictor"}
    container = isvc["spec"]["predictor"]["containers"][0]
    assert container["ports"][0]["containerPort"] == 8080
    assert container["lifecycle"]["preStop"]["sleep"]["seconds"] == 10
    # preStop 10 + vLLM shutdownTimeoutSeconds 60 + 5 s to exit.
    assert isvc["spec"]["predictor"]["terminationGracePeriodSeconds"] == 75


def test_networkpolicy_admits_only_keda_gateway_and_prometheus():
    policy = next(o for o in built("manifests/base") if o["kind"] == "NetworkPolicy")
    rules = {tuple(p["port"] for p in rule["ports"]): rule["from"] for rule in policy["spec"]["ingress"]}
    assert set(rules) == {(9090,), (8081,), (9091,)}
    assert rules[(9090,)][0]["podSelector"]["matchLabels"] == {"app": "keda-operator"}
    standalone = next(o for o in built("manifests/examples/batch-summarize") if o["kind"] == "Deployment")
    admitted = rules[(8081,)][1]["podSelector"]["matchLabels"]
    assert admitted.items() <= standalone["spec"]["template"]["metadata"]["labels"].items(), "rendered Envoy may reach the RLS"


def test_scaler_container_is_non_root_and_read_only():
    deployment = next(o for o in built("manifests/base") if o["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert {p["containerPort"] for p in container["ports"]} == {9090, 9091, 8081}


def test_rbac_grants_exactly_what_discovery_calls():
    """The ClusterRole follows the Kubernetes API calls in scaler/sources/discovery.py: list pods, nothing else."""
    source = (REPO / "scaler" / "sources" / "discovery.py").read_text()
    calls = set(re.findall(r"self\._api\.(\w+)\(", source))
    assert calls == {"list_namespaced_pod"}, f"discovery calls {calls}: update manifests/base/rbac.yaml"
    role = next(o for o in built("manifests/base") if o["kind"] == "ClusterRole")
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    assert granted == {("", "pods", "list")}


def test_tls_overlay_mounts_the_secret():
    deployment = next(o for o in built("manifests/overlays/tls") if o["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert {"name": "tls", "secret": {"secretName": "slo-scaler-tls", "defaultMode": 0o440}} in pod["volumes"]
    assert any(a.startswith("--tls-cert=") for a in pod["containers"][0]["args"])


@pytest.mark.parametrize("mutate", [
    lambda o: o["spec"]["configPatches"][0].__setitem__("applyTo", "BOGUS"),
    lambda o: o["spec"]["configPatches"][0]["patch"].__setitem__("operation", "REPLACE_ALL"),
    lambda o: o["spec"].__setitem__("workloadSelectr", {}),
])
def test_validation_catches_broken_envoyfilters(mutate):
    envoyfilter = next(o for o in built("manifests/examples/chat") if o["kind"] == "EnvoyFilter")
    broken = copy.deepcopy(envoyfilter)
    mutate(broken)
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)
