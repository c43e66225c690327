"""`slo-scaler check --kubeconfig`: the cluster items through the real `kubernetes` client, answered
by a tiny HTTP server holding the objects (the rendered ones, and the client's own models for a
Deployment and a Namespace). There is no API server here; the client, its URLs, its 404 handling
and the kubeconfig loading are the real ones."""

from __future__ import annotations

import copy
import datetime
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from kubernetes import client as k8s

from scaler.check.k8s_items import selector_matches
from scaler.check.kubernetes import rendered_objects
from scaler.cli import main
from scaler.spec import load_spec

SPEC = Path(__file__).resolve().parent.parent / "manifests" / "examples" / "specs" / "chat.yaml"


class ApiServer:
    """GET of a path answers the object stored under it, 404 otherwise."""

    def __init__(self, objects: dict[str, dict]) -> None:
        self.objects, self.seen = objects, []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                path = self.path.split("?")[0]
                server.seen.append(path)
                obj = server.objects.get(path)
                body = json.dumps(obj if obj is not None else {"kind": "Status", "code": 404, "reason": "NotFound"}).encode()
                self.send_response(200 if obj is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def kubeconfig(self, path: Path) -> Path:
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "test",
            "clusters": [{"name": "test", "cluster": {"server": self.url}}],
            "users": [{"name": "test", "user": {"token": "t"}}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}]}))
        return path

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def cluster_objects(prometheus_spec: dict) -> dict[str, dict]:
    spec = load_spec(SPEC)
    rendered, error = rendered_objects(spec, str(SPEC))
    assert error is None
    api = k8s.ApiClient()
    created = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    deployment = api.sanitize_for_serialization(k8s.V1Deployment(
        metadata=k8s.V1ObjectMeta(name="chat-predictor", namespace="llm", creation_timestamp=created),
        spec=k8s.V1DeploymentSpec(replicas=4, selector=k8s.V1LabelSelector(match_labels={"app": "chat"}),
                                  template=k8s.V1PodTemplateSpec()),
        status=k8s.V1DeploymentStatus(ready_replicas=4, replicas=4)))
    def pod(name: str, ready: bool) -> k8s.V1Pod:
        return k8s.V1Pod(
            metadata=k8s.V1ObjectMeta(name=name, namespace="llm", creation_timestamp=created,
                                      labels={"serving.kserve.io/inferenceservice": "chat"}),
            status=k8s.V1PodStatus(pod_ip="10.0.0.1", phase="Running",
                                   conditions=[k8s.V1PodCondition(type="Ready", status="True" if ready else "False")]))

    pods = api.sanitize_for_serialization(k8s.V1PodList(items=[pod(f"chat-predictor-{i}", ready=i < 3) for i in range(4)]))
    namespace = api.sanitize_for_serialization(k8s.V1Namespace(
        metadata=k8s.V1ObjectMeta(name="llm", labels={"kubernetes.io/metadata.name": "llm", "team": "ml"})))
    prometheus = {"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
                  "metadata": {"name": "kps-prometheus", "namespace": "monitoring"}, "spec": prometheus_spec}
    return {
        "/apis/keda.sh/v1alpha1/namespaces/llm/scaledobjects/chat": rendered["ScaledObject"],
        "/apis/apps/v1/namespaces/llm/deployments/chat-predictor": deployment,
        "/apis/monitoring.coreos.com/v1/namespaces/llm/podmonitors/chat-vllm": rendered["PodMonitor"],
        "/apis/monitoring.coreos.com/v1/prometheuses": {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusList",
                                                        "items": [prometheus]},
        "/api/v1/namespaces/llm": namespace,
        "/api/v1/namespaces/llm/pods": pods,  # listed by label selector through the scaler's own pod seam
    }


def check(objects: dict, tmp_path: Path, capsys) -> tuple[int, dict]:
    server = ApiServer(objects)
    try:
        code = main(["check", str(SPEC), "--kubeconfig", str(server.kubeconfig(tmp_path / "kubeconfig")), "-o", "json"])
    finally:
        server.close()
    items = {i["item"]: i for i in json.loads(capsys.readouterr().out)["items"] if i["item"].startswith("k8s.")}
    return code, items


SELECT_ALL = {"podMonitorSelector": {}, "podMonitorNamespaceSelector": {}}


def test_live_objects_as_rendered_pass(tmp_path, capsys):
    code, items = check(cluster_objects(SELECT_ALL), tmp_path, capsys)
    assert {k: v["status"] for k, v in items.items()} == {"k8s.scaledobject": "PASS", "k8s.predictor": "PASS", "k8s.podmonitor": "PASS"}
    assert code == 0
    assert "selected by monitoring/kps-prometheus" in items["k8s.podmonitor"]["reason"]
    assert any(e["value"] == 4 for e in items["k8s.predictor"]["evidence"])
    assert "3 of its 4 pods ready" in items["k8s.predictor"]["reason"]


def test_a_pod_monitor_without_the_release_label_is_not_selected(tmp_path, capsys):
    # kube-prometheus-stack's default: PodMonitors are selected by the chart's release label.
    code, items = check(cluster_objects({"podMonitorSelector": {"matchLabels": {"release": "kps"}},
                                         "podMonitorNamespaceSelector": {}}), tmp_path, capsys)
    assert code == 1
    item = items["k8s.podmonitor"]
    assert item["status"] == "FAIL" and "no Prometheus selects PodMonitor llm/chat-vllm" in item["reason"]
    assert "release" in item["remedy"]


def test_a_changed_scale_down_window_and_a_missing_predictor_fail(tmp_path, capsys):
    objects = cluster_objects(SELECT_ALL)
    scaled = copy.deepcopy(objects["/apis/keda.sh/v1alpha1/namespaces/llm/scaledobjects/chat"])
    scaled["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 30
    objects["/apis/keda.sh/v1alpha1/namespaces/llm/scaledobjects/chat"] = scaled
    del objects["/apis/apps/v1/namespaces/llm/deployments/chat-predictor"]
    code, items = check(objects, tmp_path, capsys)
    assert code == 1
    assert items["k8s.scaledobject"]["status"] == "FAIL"
    assert ".spec.advanced.horizontalPodAutoscalerConfig.behavior is" in items["k8s.scaledobject"]["reason"]
    assert items["k8s.predictor"]["status"] == "FAIL" and "chat-predictor" in items["k8s.predictor"]["reason"]


def test_a_predictor_without_a_ready_pod_warns(tmp_path, capsys):
    objects = cluster_objects(SELECT_ALL)
    pods = objects["/api/v1/namespaces/llm/pods"]
    for item in pods["items"]:
        item["status"]["conditions"][0]["status"] = "False"
    code, items = check(objects, tmp_path, capsys)
    assert code == 0
    assert items["k8s.predictor"]["status"] == "WARN" and "none of its 4 pods is ready" in items["k8s.predictor"]["reason"]


@pytest.mark.parametrize("selector, labels, matches", [
    (None, {"a": "1"}, False),
    ({}, {}, True),
    ({"matchLabels": {"release": "kps"}}, {"release": "kps", "x": "y"}, True),
    ({"matchLabels": {"release": "kps"}}, {"x": "y"}, False),
    ({"matchExpressions": [{"key": "team", "operator": "In", "values": ["ml", "ai"]}]}, {"team": "ml"}, True),
    ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["ml"]}]}, {"team": "ml"}, False),
    ({"matchExpressions": [{"key": "team", "operator": "Exists"}]}, {}, False),
    ({"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}, {}, True),
])
def test_selector_matches(selector, labels, matches):
    assert selector_matches(selector, labels) is matches
