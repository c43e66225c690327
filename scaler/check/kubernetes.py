"""Read the objects a spec renders from a live cluster, behind a narrow seam.

`ObjectReader` is the seam (four read-only calls); `KubernetesObjectReader` implements it with
the official `kubernetes` client's CustomObjectsApi, which reads any group's objects as plain
dicts (`apps/v1` Deployments included), CoreV1Api for namespace labels, and the scaler's own pod
seam (`scaler.sources.discovery.KubernetesPodLister`) for the predictor's pods. RBAC: get
ScaledObjects, Deployments, PodMonitors and Namespaces, list Prometheuses and Pods. `gather`
turns a 404 into "absent" and any other failure into an error the items report as UNKNOWN.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

import yaml

from scaler.render.render import names_for, render_model
from scaler.sources.discovery import KubernetesPodLister, PodInfo
from scaler.spec import ModelSpec, SpecError

REQUEST_TIMEOUT_S = 5.0

SCALED_OBJECT = ("keda.sh", "v1alpha1", "scaledobjects")
DEPLOYMENT = ("apps", "v1", "deployments")
POD_MONITOR = ("monitoring.coreos.com", "v1", "podmonitors")
PROMETHEUS = ("monitoring.coreos.com", "v1", "prometheuses")


class ObjectReader(Protocol):
    def get(self, resource: tuple[str, str, str], namespace: str, name: str) -> dict | None: ...  # None: 404
    def list(self, resource: tuple[str, str, str]) -> list[dict]: ...  # all namespaces
    def namespace_labels(self, name: str) -> dict[str, str] | None: ...
    def list_pods(self, namespace: str, selector: str) -> list[PodInfo]: ...


class KubernetesObjectReader:
    def __init__(self, api_client) -> None:
        from kubernetes import client

        self._custom = client.CustomObjectsApi(api_client)
        self._core = client.CoreV1Api(api_client)
        self._pods = KubernetesPodLister(self._core)
        self._serialize = api_client.sanitize_for_serialization

    @classmethod
    def connect(cls, kubeconfig: str | None = None, in_cluster: bool = False) -> KubernetesObjectReader:
        """A reader on the service account (in_cluster) or a kubeconfig (default ~/.kube/config);
        kubernetes.config.ConfigException when neither is usable."""
        from kubernetes import client, config

        if in_cluster:
            configuration = client.Configuration()
            config.load_incluster_config(client_configuration=configuration)
            return cls(client.ApiClient(configuration))
        return cls(config.new_client_from_config(config_file=kubeconfig, persist_config=False))

    def get(self, resource, namespace, name):
        from kubernetes.client.exceptions import ApiException

        group, version, plural = resource
        try:
            return self._custom.get_namespaced_custom_object(group, version, namespace, plural, name,
                                                             _request_timeout=REQUEST_TIMEOUT_S)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def list(self, resource):
        group, version, plural = resource
        return self._custom.list_cluster_custom_object(group, version, plural, _request_timeout=REQUEST_TIMEOUT_S).get("items", [])

    def namespace_labels(self, name):
        from kubernetes.client.exceptions import ApiException

        try:
            namespace = self._serialize(self._core.read_namespace(name, _request_timeout=REQUEST_TIMEOUT_S))
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return (namespace.get("metadata") or {}).get("labels") or {}

    def list_pods(self, namespace, selector):
        return self._pods.list_pods(namespace, selector)


@dataclass(frozen=True)
class Fetched:
    what: str  # e.g. "ScaledObject llm/chat"
    obj: dict | None = None
    error: str | None = None  # set when the API could not be read (not for 404)


@dataclass(frozen=True)
class ClusterEvidence:
    configured: bool  # False: neither --kubeconfig nor --in-cluster
    error: str | None = None  # the cluster could not be reached at all
    rendered: dict[str, dict] = field(default_factory=dict)  # kind -> the object render makes
    render_error: str | None = None
    scaled_object: Fetched | None = None
    deployment: Fetched | None = None
    pod_monitor: Fetched | None = None
    prometheuses: Fetched | None = None  # obj = {"items": [...]}
    namespace_labels: dict[str, str] | None = None
    pods: Fetched | None = None  # obj = {"selector": ..., "pods": [PodInfo, ...]}


def rendered_objects(spec: ModelSpec, source: str) -> tuple[dict[str, dict], str | None]:
    """The objects `slo-scaler render` makes for the spec, by kind; or why it refuses."""
    try:
        output = render_model(spec, source)
    except SpecError as exc:
        return {}, "; ".join(str(i) for i in exc.issues)
    objects = {}
    for text in output.files.values():
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and "kind" in doc:
                objects.setdefault(doc["kind"], doc)
    return objects, None


def _fetch(what: str, call) -> Fetched:
    try:
        return Fetched(what, call())
    except Exception as exc:  # noqa: BLE001 (any API failure is evidence we could not reach)
        return Fetched(what, error=f"{type(exc).__name__}: {_short(exc)}")


def _short(exc: Exception) -> str:
    return re.sub(r"\s+", " ", str(exc))[:200]


def gather(spec: ModelSpec, reader: ObjectReader | None, source: str = "<spec>", connect_error: str | None = None) -> ClusterEvidence:
    if reader is None and connect_error is None:
        return ClusterEvidence(False)
    rendered, render_error = rendered_objects(spec, source)
    if reader is None:
        return ClusterEvidence(True, connect_error, rendered, render_error)
    names = names_for(spec)
    ns = spec.namespace
    scaled = _fetch(f"ScaledObject {ns}/{spec.name}", lambda: reader.get(SCALED_OBJECT, ns, spec.name))
    if scaled.error:
        # The first call failing means the API server is not there: do not wait on the others.
        return ClusterEvidence(True, scaled.error, rendered, render_error, scaled)
    deployment = _fetch(f"Deployment {ns}/{names['predictor']}", lambda: reader.get(DEPLOYMENT, ns, names["predictor"]))
    monitor = _fetch(f"PodMonitor {ns}/{names['pod_monitor']}", lambda: reader.get(POD_MONITOR, ns, names["pod_monitor"]))
    proms = _fetch("Prometheus (all namespaces)", lambda: {"items": reader.list(PROMETHEUS)})
    labels = _fetch(f"Namespace {ns}", lambda: reader.namespace_labels(ns))
    selector = f"serving.kserve.io/inferenceservice={spec.name}"  # the label KServe puts on predictor pods
    pods = _fetch(f"Pods {ns} {selector}", lambda: {"selector": selector, "pods": reader.list_pods(ns, selector)})
    return ClusterEvidence(True, None, rendered, render_error, scaled, deployment, monitor, proms, labels.obj, pods)
