"""Prometheus as a source, over its HTTP API: one round of queries per poll cycle serves every
model that names this Prometheus.

The queries are built only from validated model names and namespaces (scaler.server.metadata),
escaped as an RE2 regex inside a PromQL string: nothing from a ScaledObject is interpolated raw.
One round serves one namespace (the poller's lanes): its series are those whose `namespace` label is
that namespace, or absent (static scrape configs carry none); a model without a namespace reads
every namespace's. Ready
replicas count the scrape targets reporting the model whose `up` is 1. The observation's time is
the newest scrape timestamp of the model's series, so Prometheus' scrape interval shows up as
input age and stale data is recognised as stale. A model without series is NoSeries (UNKNOWN),
never zero replicas. Every answer is bounded: MAX_RESPONSE_BYTES, a total deadline per query
(a slow-loris Prometheus cannot hold a round), no redirects, duplicate series rejected.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import requests
from requests import RequestException

from scaler.sources.base import MAX_RESPONSE_BYTES, ModelQuery, NoSeries, Observation, SourceError
from scaler.sources.counters import MonotonicCounters, monotonic_buckets
from scaler.sources.vllm import COMPLETED, GENERATED, PROMPT, RUNNING, TPOT_BUCKET, WAITING, bucket_bound

READ_CHUNK = 16384  # bytes read at a time (a gzip answer inflates at most ~1000x per chunk)
PER_REPLICA = ("completed", "generated", "prompt")  # counters queried per replica (instance), so a restart is a reset


def _matcher(label: str, values: Sequence[str]) -> str:
    regex = "|".join(re.escape(v) for v in sorted(set(values)))
    return f'{label}=~"' + regex.replace("\\", "\\\\").replace('"', '\\"') + '"'


def model_selector(models: Sequence[str], namespace: str | None = None) -> str:
    """`model_name=~"..."` matching exactly these (already validated) names, and with a namespace
    `namespace=~"<ns>|"`: that namespace's series or series without the label."""
    selector = _matcher("model_name", models)
    return selector + (", " + _matcher("namespace", [namespace, ""]) if namespace else "")


def build_queries(models: Sequence[str], namespace: str | None = None) -> dict[str, str]:
    """The round: eight instant queries, each one answer for every model."""
    m = model_selector(models, namespace)
    return {
        "waiting": f"sum by (model_name) ({WAITING}{{{m}}})",
        "running": f"sum by (model_name) ({RUNNING}{{{m}}})",
        # Replicas, not series: a data-parallel vLLM reports one series per engine.
        "ready": (f"count by (model_name) (group by (model_name, job, instance) "
                  f"({RUNNING}{{{m}}} and on (job, instance) (up == 1)))"),
        # Per replica, so a restart is seen as that replica's counter reset (counters.py).
        "completed": f"sum by (model_name, instance) ({COMPLETED}{{{m}}})",
        "generated": f"sum by (model_name, instance) ({GENERATED}{{{m}}})",
        "prompt": f"sum by (model_name, instance) ({PROMPT}{{{m}}})",
        # Per replica and bucket bound: each bound is a counter of its own.
        "tpot": f"sum by (model_name, instance, le) ({TPOT_BUCKET}{{{m}}})",
        "scraped_at": f"max by (model_name) (timestamp({WAITING}{{{m}}}))",
    }


class PrometheusSource:
    kind = "prometheus"

    def __init__(self, address: str, timeout_s: float = 2.0) -> None:
        self.address = address
        self.timeout_s = timeout_s
        # No retries inside a round: the next poll is the retry, and a dead Prometheus must fail fast.
        self._session = requests.Session()
        # Per-replica counters made monotonic per model (counters.py), one set per counter.
        self._counters = {name: MonotonicCounters() for name in PER_REPLICA}
        self._tpot = MonotonicCounters()  # one total per (model, bucket bound)
        # Its own thread: a slow Prometheus holds this thread only, not the pool that parses pages.
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="prometheus")

    async def observe(self, queries: Sequence[ModelQuery], now: float) -> dict[str, Observation | SourceError]:
        models = sorted({q.model for q in queries})
        namespaces = {q.spec.namespace for q in queries}
        if len(namespaces) > 1:
            raise SourceError(f"one namespace per round, got {sorted(n or '' for n in namespaces)}")
        namespace = next(iter(namespaces), None)
        built = build_queries(models, namespace)
        try:
            # One thread, queries, parsing and the observations in turn: parallel threads would fight
            # the RPC loop for the GIL, and the loop itself only takes the finished answers.
            pending = asyncio.get_running_loop().run_in_executor(self._thread, self._observe, built, models, now,
                                                                namespace)
        except RuntimeError as error:  # the thread is shut down: after close(), or as the interpreter exits
            raise SourceError(f"prometheus {self.address}: source closed ({error})") from None
        try:
            return await pending
        except SourceError as error:
            raise SourceError(f"prometheus {self.address}: {error}") from None

    def _observe(self, built: dict[str, str], models: list[str], now: float,
                 namespace: str | None) -> dict[str, Observation | SourceError]:
        """On this source's thread (the only one touching its counters): the round's queries, then
        every model's observation."""
        values, replicas, buckets = self._round(built)
        out = {model: self._observation(model, values, {name: replicas[name].get(model, {}) for name in PER_REPLICA},
                                        buckets.get(model, {}), now, namespace) for model in models}
        for counters in (*self._counters.values(), self._tpot):
            counters.prune(now)
        return out

    def _round(self, built: dict[str, str]) -> tuple[dict, dict, dict]:
        """({query: {model: value}}, {counter: {model: {instance: value}}},
        {model: {instance: ((le, count), ...)}})."""
        deadline = time.monotonic() + 2 * self.timeout_s  # for the whole round, however slowly it answers
        by_name = {name: self._query(q, deadline) for name, q in built.items()}
        try:
            values = {name: _by_model(name, rows) for name, rows in by_name.items()
                      if name not in (*PER_REPLICA, "tpot")}
            replicas: dict[str, dict[str, dict[str, float]]] = {name: {} for name in PER_REPLICA}
            for name in PER_REPLICA:
                for row in by_name[name]:
                    value = _value(row)
                    labels = row["metric"]
                    if math.isfinite(value):
                        replicas[name].setdefault(labels.get("model_name"), {})[labels.get("instance", "")] = value
            bounds: dict[str, dict[str, dict[float, float]]] = {}
            for row in by_name["tpot"]:
                value, labels = _value(row), row["metric"]
                le = bucket_bound(labels.get("le"))
                if le is not None and math.isfinite(value):
                    bounds.setdefault(labels.get("model_name"), {}).setdefault(labels.get("instance", ""), {})[le] = value
            buckets = {model: {instance: tuple(sorted(les.items())) for instance, les in by_instance.items()
                               if math.inf in les}
                       for model, by_instance in bounds.items()}
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise SourceError(f"malformed answer: {type(exc).__name__}: {str(exc)[:200]}") from None
        return values, replicas, buckets

    def _query(self, promql: str, deadline: float) -> list[dict]:
        """One instant query's result vector; SourceError on any failure, oversized or slow answer."""
        deadline = min(deadline, time.monotonic() + self.timeout_s)
        try:
            with self._session.post(f"{self.address}/api/v1/query", data={"query": promql}, stream=True,
                                    timeout=self.timeout_s, allow_redirects=False,
                                    headers={"Accept-Encoding": "identity"}) as response:
                if response.status_code != 200:
                    raise SourceError(f"HTTP {response.status_code}" + (" (redirects are not followed)"
                                                                        if response.is_redirect else ""))
                body = bytearray()
                # read1: whatever has arrived (at most READ_CHUNK), so a dribbling answer meets the deadline.
                while chunk := response.raw.read1(READ_CHUNK, decode_content=True):
                    body += chunk
                    if len(body) > MAX_RESPONSE_BYTES:
                        raise SourceError(f"answer larger than {MAX_RESPONSE_BYTES} bytes")
                    if time.monotonic() > deadline:
                        raise SourceError("answer too slow (--source-timeout)")
            doc = json.loads(body)
            if doc.get("status") != "success" or doc["data"]["resultType"] != "vector":
                raise SourceError(f"unexpected answer: {str(doc.get('error', doc.get('status')))[:200]}")
            return list(doc["data"]["result"])
        except (RequestException, ValueError, KeyError, TypeError) as exc:
            raise SourceError(f"{type(exc).__name__}: {str(exc)[:300]}") from None

    def _observation(self, model: str, values: dict, counts: dict[str, dict[str, float]],
                     buckets: dict[str, tuple[tuple[float, float], ...]], now: float,
                     namespace: str | None = None) -> Observation | SourceError:
        waiting, running = values["waiting"].get(model), values["running"].get(model)
        # Keyed by namespace too: another namespace's counters are another model's. A counter no
        # replica reports is None (unknown), never 0.
        totals = {name: self._counters[name].update((namespace, model), series, now) if series else None
                  for name, series in counts.items()}
        if waiting is None and running is None:
            return NoSeries(f"no {WAITING} or {RUNNING} series for model_name={model!r} in Prometheus")
        for name, value in ((WAITING, waiting), (RUNNING, running)):
            if value is not None and not math.isfinite(value):
                return SourceError(f"{name} for {model!r} is {value}")
        ready = values["ready"].get(model, 0.0)
        scraped_at = values["scraped_at"].get(model)
        return Observation(
            time=scraped_at if scraped_at is not None and math.isfinite(scraped_at) else now,
            waiting=max(0.0, waiting or 0.0),
            running=max(0.0, running or 0.0),
            ready_replicas=int(min(ready, 1e9)) if math.isfinite(ready) and ready > 0 else 0,
            completed_total=totals["completed"],
            generation_tokens_total=totals["generated"],
            prompt_tokens_total=totals["prompt"],
            tpot_buckets=monotonic_buckets(self._tpot, (namespace, model), buckets, now),
        )

    async def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)
        self._session.close()


def _value(row: dict) -> float:
    return float(row["value"][1])


def _by_model(query: str, rows: list[dict]) -> dict[str, float]:
    """{model_name: value}; a model twice in one `by (model_name)` answer is a malformed answer."""
    out: dict[str, float] = {}
    for row in rows:
        model = row["metric"].get("model_name")
        if model in out:
            raise SourceError(f"{query}: duplicate series for model_name={model!r}")
        out[model] = _value(row)
    return out
