"""Prometheus as a source, through prometheus-api-client: one round of queries per poll cycle
serves every model that names this Prometheus.

The queries are built only from validated model names (scaler.server.metadata), escaped as an
RE2 regex inside a PromQL string: nothing from a ScaledObject is interpolated raw. Ready
replicas count the scrape targets reporting the model whose `up` is 1. The observation's time is
the newest scrape timestamp of the model's series, so Prometheus' scrape interval shows up as
input age and stale data is recognised as stale.
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Sequence

from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
import requests
from requests import RequestException
from urllib3.util.retry import Retry

from scaler.sources.base import ModelQuery, Observation, SourceError
from scaler.sources.counters import MonotonicCounters
from scaler.sources.vllm import COMPLETED, RUNNING, WAITING

def model_selector(models: Sequence[str]) -> str:
    """`model_name=~"..."` matching exactly these (already validated) names."""
    regex = "|".join(re.escape(m) for m in sorted(set(models)))
    return 'model_name=~"' + regex.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_queries(models: Sequence[str]) -> dict[str, str]:
    """The round: five instant queries, each one answer for every model."""
    m = model_selector(models)
    return {
        "waiting": f"sum by (model_name) ({WAITING}{{{m}}})",
        "running": f"sum by (model_name) ({RUNNING}{{{m}}})",
        # Replicas, not series: a data-parallel vLLM reports one series per engine.
        "ready": (f"count by (model_name) (group by (model_name, job, instance) "
                  f"({RUNNING}{{{m}}} and on (job, instance) (up == 1)))"),
        # Per replica, so a restart is seen as that replica's counter reset (counters.py).
        "completed": f"sum by (model_name, instance) ({COMPLETED}{{{m}}})",
        "scraped_at": f"max by (model_name) (timestamp({WAITING}{{{m}}}))",
    }


class PrometheusSource:
    kind = "prometheus"

    def __init__(self, address: str, timeout_s: float = 2.0) -> None:
        self.address = address
        # No retries inside a round: the next poll is the retry, and a dead Prometheus must fail fast.
        self._session = requests.Session()
        self._client = PrometheusConnect(address, session=self._session, retry=Retry(total=0), timeout=timeout_s,
                                         method="POST")
        self._counters = MonotonicCounters()

    async def observe(self, queries: Sequence[ModelQuery], now: float) -> dict[str, Observation | SourceError]:
        models = sorted({q.model for q in queries})
        built = build_queries(models)
        try:
            # One thread, queries in turn: parallel threads would fight the RPC loop for the GIL.
            by_name = await asyncio.to_thread(lambda: {name: self._query(q) for name, q in built.items()})
        except SourceError as error:
            raise SourceError(f"prometheus {self.address}: {error}") from None
        values = {name: _by_model(rows) for name, rows in by_name.items() if name != "completed"}
        completed: dict[str, dict[str, float]] = {}
        for row in by_name["completed"]:
            value = float(row["value"][1])
            if math.isfinite(value):
                completed.setdefault(row["metric"].get("model_name"), {})[row["metric"].get("instance", "")] = value
        out = {model: self._observation(model, values, completed.get(model, {}), now) for model in models}
        self._counters.prune(now)
        return out

    def _query(self, promql: str) -> list[dict]:
        try:
            return self._client.custom_query(promql)
        except (RequestException, PrometheusApiClientException, ValueError) as exc:
            raise SourceError(str(exc)) from None

    def _observation(self, model: str, values: dict, counts: dict[str, float], now: float) -> Observation | SourceError:
        waiting, running = values["waiting"].get(model), values["running"].get(model)
        total = self._counters.update(model, counts, now)
        if waiting is None and running is None:
            # No series: no vLLM pod of this model is being scraped (scaled to zero, or all gone).
            return Observation(time=now, waiting=0.0, running=0.0, ready_replicas=0, completed_total=total,
                               note="no series: counted as zero ready replicas")
        for name, value in (("vllm:num_requests_waiting", waiting), ("vllm:num_requests_running", running)):
            if value is not None and not math.isfinite(value):
                return SourceError(f"{name} for {model!r} is {value}")
        ready = values["ready"].get(model, 0.0)
        scraped_at = values["scraped_at"].get(model)
        return Observation(
            time=scraped_at if scraped_at is not None and math.isfinite(scraped_at) else now,
            waiting=max(0.0, waiting or 0.0),
            running=max(0.0, running or 0.0),
            ready_replicas=int(ready) if math.isfinite(ready) else 0,
            completed_total=total if counts else None,
        )

    async def close(self) -> None:
        self._session.close()


def _by_model(rows: list[dict]) -> dict[str, float]:
    return {row["metric"].get("model_name"): float(row["value"][1]) for row in rows}
