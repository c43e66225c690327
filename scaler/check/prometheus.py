"""Gather the Prometheus evidence of one model: the adapter at the edge of `slo-scaler check`.

Every value keeps the PromQL it came from. A query that fails records why (and once Prometheus
is unreachable the remaining queries are not sent: each would wait for the same timeout); the
items turn a missing value into UNKNOWN, never into a pass. Selectors are the ones the rendered
alerts use, `{namespace="<ns>", model_name="<served name>"}` for vLLM series and
`{namespace="<ns>", model="<served name>"}` for the scaler's own (it labels a model's series with
the model's namespace).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import requests

from scaler.render.filters import promql
from scaler.render.render import names_for
from scaler.sources.vllm import RUNNING, WAITING
from scaler.spec import ModelSpec

QUERY_TIMEOUT_S = 5.0
WINDOW = re.compile(r"^[1-9][0-9]*[smhd]$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

# The vLLM series the scaler, the alerts and the dashboard read (histograms by their bucket or count).
VLLM_SERIES = {
    "running": RUNNING,
    "waiting": WAITING,
    "queue time": "vllm:request_queue_time_seconds_bucket",
    "TTFT histogram": "vllm:time_to_first_token_seconds_bucket",
    "KV cache usage": "vllm:kv_cache_usage_perc",
}
# The scaler's decision series (scaler/server/metrics.py): present once it has decided for the model.
SCALER_SERIES = ("slo_scaler_demand_replicas", "slo_scaler_state", "slo_scaler_decisions_total", "slo_scaler_source_up")
KUBE_STATE = ("kube_deployment_spec_replicas", "kube_deployment_status_replicas_ready")
RLS_DECISIONS = "slo_scaler_rls_decisions_total"
LEARNED_LATENCY = "slo_scaler_scale_up_latency_seconds"


def window_seconds(window: str) -> int:
    if not WINDOW.match(window):
        raise ValueError(f"--window: expected a Prometheus duration like 30m, 1h or 2d, got {window!r}")
    return int(window[:-1]) * _SECONDS[window[-1]]


@dataclass(frozen=True)
class Measure:
    query: str
    value: float | None = None  # None: no data (or the query failed, then `error` says why)
    error: str | None = None


@dataclass(frozen=True)
class Series:
    query: str
    points: tuple[tuple[float, float], ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class PromEvidence:
    address: str | None  # None: no --prometheus given
    window: str = "1h"
    vllm: dict[str, Measure] = field(default_factory=dict)
    scaler: dict[str, Measure] = field(default_factory=dict)
    alert_inputs: dict[str, Measure] = field(default_factory=dict)
    ttft: dict[str, Measure] = field(default_factory=dict)  # "p95", "p99", "count"
    desired: Series | None = None  # kube-state-metrics spec replicas of the predictor
    ready: Series | None = None
    learned_latency: Measure | None = None
    max_running: Measure | None = None  # per replica, over the window
    unreachable: str | None = None


class _Api:
    def __init__(self, address: str, timeout_s: float) -> None:
        self.address, self.timeout_s = address.rstrip("/"), timeout_s
        self.down: str | None = None
        self._session = requests.Session()

    def _get(self, path: str, params: dict) -> list:
        if self.down:
            raise RuntimeError(self.down)
        try:
            resp = self._session.get(f"{self.address}{path}", params=params, timeout=self.timeout_s)
        except requests.RequestException as exc:
            self.down = f"Prometheus {self.address} unreachable: {type(exc).__name__}"
            raise RuntimeError(self.down) from None
        try:
            body = resp.json()
        except ValueError:
            raise RuntimeError(f"HTTP {resp.status_code} without a JSON body") from None
        if not isinstance(body, dict) or resp.status_code != 200 or body.get("status") != "success":
            error = body.get("error", "query failed") if isinstance(body, dict) else "not a Prometheus API answer"
            raise RuntimeError(f"HTTP {resp.status_code}: {error}")
        result = (body.get("data") or {}).get("result") if isinstance(body.get("data"), dict) else None
        if not isinstance(result, list):
            raise RuntimeError("not a Prometheus API answer (no data.result list)")
        return result

    def scalar(self, query: str) -> Measure:
        try:
            rows = self._get("/api/v1/query", {"query": query})
        except RuntimeError as exc:
            return Measure(query, error=str(exc))
        try:
            values = [float(r["value"][1]) for r in rows]
        except (KeyError, IndexError, TypeError, ValueError):
            return Measure(query, error="not an instant vector")
        values = [v for v in values if math.isfinite(v)]
        return Measure(query, max(values) if values else None)

    def series(self, query: str, start: float, end: float, step: float) -> Series:
        try:
            rows = self._get("/api/v1/query_range", {"query": query, "start": start, "end": end, "step": step})
        except RuntimeError as exc:
            return Series(query, error=str(exc))
        if not rows:
            return Series(query)
        try:
            return Series(query, tuple((float(t), float(v)) for t, v in rows[0]["values"]))
        except (KeyError, IndexError, TypeError, ValueError):
            return Series(query, error="not a range vector")

    def close(self) -> None:
        self._session.close()


def gather(spec: ModelSpec, address: str | None, window: str, now: float,
           timeout_s: float = QUERY_TIMEOUT_S) -> PromEvidence:
    """Query `address` for everything the Prometheus items read about `spec`; `now` is epoch seconds."""
    span = window_seconds(window)
    if address is None:
        return PromEvidence(None, window)
    api = _Api(address, timeout_s)
    try:
        vllm_sel = f"namespace={promql(spec.namespace)},model_name={promql(spec.model.served_name)}"
        scaler_sel = f"namespace={promql(spec.namespace)},model={promql(spec.model.served_name)}"
        deploy_sel = f"namespace={promql(spec.namespace)},deployment={promql(names_for(spec)['predictor'])}"
        vllm = {label: api.scalar(f"count(last_over_time({name}{{{vllm_sel}}}[{window}]))") for label, name in VLLM_SERIES.items()}
        scaler = {name: api.scalar(f"count(last_over_time({name}{{{scaler_sel}}}[{window}]))") for name in SCALER_SERIES}
        alert_inputs = {name: api.scalar(f"count(last_over_time({name}{{{deploy_sel}}}[{window}]))") for name in KUBE_STATE}
        if spec.shedding.enabled:
            alert_inputs[RLS_DECISIONS] = api.scalar(f"count(last_over_time({RLS_DECISIONS}{{{scaler_sel}}}[{window}]))")
        bucket = f"vllm:time_to_first_token_seconds_bucket{{{vllm_sel}}}"
        ttft = {f"p{q}": api.scalar(f"histogram_quantile(0.{q}, sum by (le) (increase({bucket}[{window}])))") for q in (95, 99)}
        ttft["count"] = api.scalar(f"sum(increase(vllm:time_to_first_token_seconds_count{{{vllm_sel}}}[{window}]))")
        step = max(1.0, span / 10000)  # Prometheus answers at most 11000 points per series
        desired = api.series(f"max(kube_deployment_spec_replicas{{{deploy_sel}}})", now - span, now, step)
        ready = api.series(f"max(kube_deployment_status_replicas_ready{{{deploy_sel}}})", now - span, now, step)
        learned = api.scalar(f"max(last_over_time({LEARNED_LATENCY}{{{scaler_sel}}}[{window}]))")
        max_running = api.scalar(f"max(max_over_time({RUNNING}{{{vllm_sel}}}[{window}]))")
        return PromEvidence(address, window, vllm, scaler, alert_inputs, ttft, desired, ready, learned, max_running, api.down)
    finally:
        api.close()


@dataclass(frozen=True)
class ScaleUp:
    """One rise of the Deployment's desired replicas and how long until that many were ready."""

    at: float  # epoch seconds of the rise
    added: int  # replicas asked for in this rise
    seconds: float  # to Ready; for one still pending at the end of the data, a lower bound
    done: bool


def ready_latencies(desired: tuple[tuple[float, float], ...], ready: tuple[tuple[float, float], ...]) -> list[ScaleUp]:
    """Scale-up decision to Ready, from kube-state-metrics: each time the Deployment's desired
    replicas rise to D, the time until D replicas are ready. A rise undone before it is served is
    not counted; one still waiting at the end of the data is, as a lower bound (done=False)."""
    ready_at = sorted(ready)
    points = sorted(desired)
    ups = []
    for i in range(1, len(points)):
        (_, before), (t, d) = points[i - 1], points[i]
        if d <= before:
            continue
        cancelled = next((tt for tt, dd in points[i + 1:] if dd < d), None)
        served = next((tt for tt, r in ready_at if tt >= t and r >= d), None)
        if served is not None and (cancelled is None or served <= cancelled):
            ups.append(ScaleUp(t, int(d - before), served - t, True))
        elif cancelled is None and ready_at:
            ups.append(ScaleUp(t, int(d - before), ready_at[-1][0] - t, False))
    return ups
