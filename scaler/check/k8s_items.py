"""Checklist items decided from the live cluster (`scaler.check.kubernetes.ClusterEvidence`).

Pure: the live objects and the ones `slo-scaler render` makes for the spec in, one result out.
Only the fields that carry the checklist are compared (what the ScaledObject scales and how
fast, whether Prometheus picks up the vLLM pods); status and defaulted fields are ignored.
"""

from __future__ import annotations

from scaler.check.kubernetes import ClusterEvidence, Fetched
from scaler.check.result import Evidence, ItemResult, Status, result
from scaler.check.spec_items import SpecFacts, model_id

NO_CLUSTER = "no --kubeconfig or --in-cluster given"
# ScaledObject fields that render sets from the spec and that decide scaling.
SCALED_OBJECT_FIELDS = (
    ("spec", "scaleTargetRef"), ("spec", "minReplicaCount"), ("spec", "maxReplicaCount"), ("spec", "idleReplicaCount"),
    ("spec", "cooldownPeriod"), ("spec", "pollingInterval"), ("spec", "advanced", "horizontalPodAutoscalerConfig", "behavior"),
    ("spec", "triggers"),
)


def _unknown(item: str, facts: SpecFacts, ev: ClusterEvidence, fetched: Fetched | None) -> ItemResult | None:
    spec = facts.spec
    if not ev.configured:
        return result(item, model_id(spec), Status.UNKNOWN, NO_CLUSTER, [Evidence("--kubeconfig / --in-cluster", "not given")],
                      "pass --kubeconfig PATH (or run in the cluster with --in-cluster) to compare the live objects")
    if ev.error or fetched is None or fetched.error:
        why = ev.error or (fetched.error if fetched else "not read")
        return result(item, model_id(spec), Status.UNKNOWN, f"cluster not readable: {why}",
                      [Evidence(fetched.what if fetched else "Kubernetes API", f"error: {why}")],
                      "check the kubeconfig context and that it may get these objects")
    return None


def _at(obj: dict, path: tuple[str, ...]) -> object:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def scaled_object(*, facts: SpecFacts, ev: ClusterEvidence) -> ItemResult:
    unknown = _unknown("k8s.scaledobject", facts, ev, ev.scaled_object)
    if unknown:
        return unknown
    spec = facts.spec
    live, rendered = ev.scaled_object.obj, ev.rendered.get("ScaledObject")
    if rendered is None:
        return result("k8s.scaledobject", model_id(spec), Status.UNKNOWN, f"the spec does not render: {ev.render_error}",
                      [Evidence("slo-scaler render", ev.render_error)], "fix the spec (see the spec.* items)")
    if live is None:
        return result("k8s.scaledobject", model_id(spec), Status.FAIL, f"{ev.scaled_object.what} does not exist",
                      [Evidence(ev.scaled_object.what, "not found")],
                      f"slo-scaler render the spec and kubectl apply -k <out>/{spec.name}")
    differences, evidence = [], []
    for path in SCALED_OBJECT_FIELDS:
        want, got = _at(rendered, path), _at(live, path)
        evidence.append(Evidence(f"{ev.scaled_object.what} .{'.'.join(path)}", got))
        if want != got:
            differences.append(f".{'.'.join(path)} is {got!r}, rendered {want!r}")
    if differences:
        return result("k8s.scaledobject", model_id(spec), Status.FAIL,
                      "the live ScaledObject differs from what the spec renders: " + "; ".join(differences), evidence,
                      f"render the spec again and kubectl apply -k <out>/{spec.name} (or update the spec to what is live)")
    return result("k8s.scaledobject", model_id(spec), Status.PASS,
                  "the live ScaledObject targets the predictor Deployment with the rendered replicas, HPA behaviour and trigger",
                  evidence)


def predictor(*, facts: SpecFacts, ev: ClusterEvidence) -> ItemResult:
    unknown = _unknown("k8s.predictor", facts, ev, ev.deployment)
    if unknown:
        return unknown
    spec, live = facts.spec, ev.deployment.obj
    if live is None:
        return result("k8s.predictor", model_id(spec), Status.FAIL,
                      f"{ev.deployment.what}, which the ScaledObject scales, does not exist",
                      [Evidence(ev.deployment.what, "not found")],
                      "apply the InferenceService; KServe creates <name>-predictor in Standard (RawDeployment) mode only")
    status = live.get("status") or {}
    evidence = [Evidence(f"{ev.deployment.what} .spec.replicas", _at(live, ("spec", "replicas"))),
                Evidence(f"{ev.deployment.what} .status.readyReplicas", status.get("readyReplicas", 0))]
    pods = ev.pods
    if pods is None or pods.error:
        evidence.append(Evidence(pods.what if pods else "Pods", f"error: {pods.error if pods else 'not read'}"))
        return result("k8s.predictor", model_id(spec), Status.PASS, f"{ev.deployment.what} exists (its pods not readable)", evidence)
    listed = [p for p in pods.obj["pods"] if not p.terminating]
    ready = [p.name for p in listed if p.ready]
    evidence.append(Evidence(f"{pods.what}: ready of listed (not terminating)", f"{len(ready)} of {len(listed)}"))
    if not ready and spec.replicas.min > 0:
        return result("k8s.predictor", model_id(spec), Status.WARN,
                      f"{ev.deployment.what} exists but none of its {len(listed)} pods is ready, though replicas.min is {spec.replicas.min}",
                      evidence, "kubectl describe the predictor pods: image, GPU scheduling, weight download, readiness probe")
    return result("k8s.predictor", model_id(spec), Status.PASS,
                  f"{ev.deployment.what} exists, {len(ready)} of its {len(listed)} pods ready", evidence)


def selector_matches(selector: dict | None, labels: dict[str, str]) -> bool:
    """A Kubernetes LabelSelector against labels; None matches nothing (the operator's rule for
    podMonitorSelector), {} matches everything."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _selects(prometheus: dict, monitor: dict, namespace: str, namespace_labels: dict[str, str] | None) -> bool:
    spec = prometheus.get("spec") or {}
    if not selector_matches(spec.get("podMonitorSelector"), (monitor.get("metadata") or {}).get("labels") or {}):
        return False
    ns_selector = spec.get("podMonitorNamespaceSelector")
    if ns_selector is None:  # null: the Prometheus' own namespace only
        return (prometheus.get("metadata") or {}).get("namespace") == namespace
    return selector_matches(ns_selector, namespace_labels or {"kubernetes.io/metadata.name": namespace})


def pod_monitor(*, facts: SpecFacts, ev: ClusterEvidence) -> ItemResult:
    unknown = _unknown("k8s.podmonitor", facts, ev, ev.pod_monitor)
    if unknown:
        return unknown
    spec, live = facts.spec, ev.pod_monitor.obj
    if live is None:
        return result("k8s.podmonitor", model_id(spec), Status.FAIL, f"{ev.pod_monitor.what} does not exist",
                      [Evidence(ev.pod_monitor.what, "not found")], f"kubectl apply -k <out>/{spec.name}")
    labels = (live.get("metadata") or {}).get("labels") or {}
    evidence = [Evidence(f"{ev.pod_monitor.what} .metadata.labels", labels)]
    if ev.prometheuses is None or ev.prometheuses.error:
        why = ev.prometheuses.error if ev.prometheuses else "not read"
        return result("k8s.podmonitor", model_id(spec), Status.UNKNOWN, f"Prometheus objects not readable: {why}",
                      evidence + [Evidence("Prometheus (all namespaces)", f"error: {why}")], "allow list on prometheuses.monitoring.coreos.com")
    proms = ev.prometheuses.obj["items"]
    names = [f"{(p.get('metadata') or {}).get('namespace')}/{(p.get('metadata') or {}).get('name')}" for p in proms]
    selecting = [n for n, p in zip(names, proms) if _selects(p, live, spec.namespace, ev.namespace_labels)]
    evidence.append(Evidence("Prometheus objects (.spec.podMonitorSelector, .spec.podMonitorNamespaceSelector)",
                             {n: [(p.get("spec") or {}).get("podMonitorSelector"), (p.get("spec") or {}).get("podMonitorNamespaceSelector")]
                              for n, p in zip(names, proms)} or "none"))
    if not proms:
        return result("k8s.podmonitor", model_id(spec), Status.UNKNOWN,
                      "no Prometheus Operator Prometheus object in the cluster: cannot tell who scrapes the PodMonitor",
                      evidence, "check by hand that your Prometheus scrapes the vLLM pods (prom.vllm-series does it by data)")
    if not selecting:
        wanted = [(p.get("spec") or {}).get("podMonitorSelector") for p in proms]
        return result("k8s.podmonitor", model_id(spec), Status.FAIL,
                      f"no Prometheus selects {ev.pod_monitor.what}: its labels {labels} match none of {names}", evidence,
                      f"add the labels a Prometheus selects to the PodMonitor (kustomize labels), e.g. {wanted[0]}; "
                      "kube-prometheus-stack selects by its release label unless podMonitorSelectorNilUsesHelmValues is false")
    return result("k8s.podmonitor", model_id(spec), Status.PASS, f"{ev.pod_monitor.what} is selected by {', '.join(selecting)}",
                  evidence)
