"""The launch checklist and the items that evaluate it.

The checklist is the one of the practice this project implements (the background article on
overload protection for LLM serving, "launch checklist" section); its lines are paraphrased here
in English. Every item names the line it evidences, so `docs/check.md` and the JSON output can
point from a result back to the practice.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKLIST = {
    "L1": "TTFT p95/p99 SLO defined for interactive requests",
    "L2": "safe concurrency per replica measured under the target SLO",
    "L3": "num_requests_running, num_requests_waiting, queue time and TTFT collected",
    "L4": "real time from a scale-up decision to a Ready replica measured",
    "L5": "minReplicas or a warm pool set from it",
    "L6": "the number of queued requests bounded",
    "L7": "429/503 and Retry-After policy defined",
    "L8": "clients back off exponentially with a bounded number of retries",
    "L9": "verified: when refusals rise under a burst, the admitted requests' p99 stays in control",
    "L10": "verified: scale-down is not so fast that it causes repeated cold starts",
    "L11": "online and batch requests separated by capacity pool or priority",
    # From the same article's common mistakes: scale to zero against a cold start near the SLO.
    "M4": "minReplicas=0 conflicts with an interactive SLO when loading weights takes about as long",
}


@dataclass(frozen=True)
class Item:
    id: str
    title: str
    lines: tuple[str, ...]  # CHECKLIST keys
    source: str  # where the evidence comes from: spec, prometheus, loadtest, kubernetes


ITEMS = (
    Item("spec.slo", "TTFT SLO defined and consistent", ("L1",), "spec"),
    Item("spec.calibration", "safe concurrency calibrated, autoscaler target below it", ("L2",), "spec"),
    Item("spec.scale-up-latency", "scale-up latency measured and declared", ("L4",), "spec"),
    Item("spec.min-replicas", "min replicas / warm pool cover a burst during a scale-up", ("L5",), "spec"),
    Item("spec.scale-to-zero", "scale to zero compatible with the SLO", ("L5", "M4"), "spec"),
    Item("spec.queue-bound", "queue bounded: shedding on, vLLM batch bound at least safe concurrency", ("L6",), "spec"),
    Item("spec.status-codes", "429/503 and Retry-After defined", ("L7",), "spec"),
    Item("spec.classes", "interactive and batch in separate pools", ("L11",), "spec"),
    Item("spec.scale-down", "replicas held after use at least as long as a scale-up takes", ("L10",), "spec"),
    Item("prom.vllm-series", "vLLM series collected for the model", ("L3",), "prometheus"),
    Item("prom.scaler-series", "scaler decision series and alert inputs collected", ("L3",), "prometheus"),
    Item("prom.ttft", "observed TTFT p95/p99 within the SLO", ("L1",), "prometheus"),
    Item("prom.scale-up-latency", "measured scale-up latency within what the spec plans for", ("L4", "L5"), "prometheus"),
    Item("prom.concurrency", "replicas stayed at or below the calibrated safe concurrency", ("L2", "L6"), "prometheus"),
    Item("loadtest.burst", "a burst was run", ("L9",), "loadtest"),
    Item("loadtest.admitted-p99", "admitted TTFT p99 within the SLO while refusals rose", ("L9",), "loadtest"),
    Item("loadtest.retry-after", "refused clients were sent Retry-After", ("L7",), "loadtest"),
    Item("loadtest.client-backoff", "clients back off exponentially, bounded retries", ("L8",), "loadtest"),
    Item("k8s.scaledobject", "ScaledObject present and as rendered", ("L5", "L10"), "kubernetes"),
    Item("k8s.predictor", "predictor Deployment the ScaledObject targets exists", ("L5",), "kubernetes"),
    Item("k8s.podmonitor", "PodMonitor present and selected by a Prometheus", ("L3",), "kubernetes"),
)
BY_ID = {item.id: item for item in ITEMS}
