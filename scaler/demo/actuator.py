"""A local KEDA + HPA: reads a trigger, applies scaler.autoscaling's pure model, sets the fleet size.

What a cluster does with a ScaledObject, without a cluster: on every tick `keda.step` decides
whether a poll or an HPA sync is due; when it is, the trigger is read as KEDA reads it and the
HPA's decision (formula, tolerance, behaviour, stabilisation) is applied to the emulator fleet
with PUT /fleet, like setting a Deployment's replicas. Two triggers:

- `ExternalTrigger`: KEDA's `external` scaler. GetMetricSpec, GetMetrics, then IsActive over
  gRPC with KEDA's 3 s deadline; the metric value is sanitised as KEDA does (<= 0, NaN and Inf
  become 0; precision 0.001).
- `PrometheusTrigger`: KEDA's `prometheus` scaler with a PromQL query, e.g. the running requests
  (the metric KServe's autoscaling example uses) averaged over a few seconds.
- `SourceTrigger`: the same metric read instantly through scaler.sources' direct scrape, for
  machines without Prometheus.

The pure step runs in a worker thread and reads triggers through the event loop, so the
network I/O stays async while `keda.step` keeps its synchronous `read()`.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp
import grpc
import requests
from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
from urllib3.util.retry import Retry

from scaler.autoscaling import KedaSpec, KedaState, Reading, ScaleStep, Trigger, step
from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest
from scaler.sources import ModelQuery, SourceError

KEDA_DEADLINE_S = 3.0


def keda_value(value: float) -> float:
    """A metric value as KEDA hands it to the HPA: <= 0, NaN and Inf become 0; milli precision."""
    if not math.isfinite(value) or value <= 0:
        return 0.0
    return round(value, 3)


@dataclass(frozen=True)
class TriggerReading:
    """One read of a trigger, with what KEDA would log about it."""

    trigger: Trigger
    active: bool
    detail: str


class ExternalTrigger:
    """KEDA's `external` trigger: the slo-scaler over gRPC."""

    def __init__(self, address: str, metadata: dict[str, str], name: str = "demo-llm", namespace: str = "demo"):
        self.address = address
        self.metadata = {**metadata, "scalerAddress": address}
        self._ref = ExternalScalerClient.ref(self.metadata, name, namespace)
        self._channel = grpc.aio.insecure_channel(address)
        self._client = ExternalScalerClient(self._channel)

    async def read(self) -> TriggerReading:
        spec = await self._client.GetMetricSpec(self._ref, timeout=KEDA_DEADLINE_S)
        if len(spec.metricSpecs) != 1:
            raise SourceError(f"GetMetricSpec returned {len(spec.metricSpecs)} metric specs, expected 1")
        metric = spec.metricSpecs[0]
        target = metric.targetSizeFloat or float(metric.targetSize)
        request = GetMetricsRequest(scaledObjectRef=self._ref, metricName=metric.metricName)
        values = (await self._client.GetMetrics(request, timeout=KEDA_DEADLINE_S)).metricValues
        if len(values) != 1:
            raise SourceError(f"GetMetrics returned {len(values)} values, expected 1")
        value = keda_value(values[0].metricValueFloat or float(values[0].metricValue))
        active = (await self._client.IsActive(self._ref, timeout=KEDA_DEADLINE_S)).result
        reading = Reading("AverageValue", target, value)
        return TriggerReading(Trigger(reading), active, f"{metric.metricName} = {value:g} (target {target:g} per replica)")

    async def close(self) -> None:
        await self._channel.close()


class PrometheusTrigger:
    """KEDA's `prometheus` trigger: one PromQL query, its single value against an AverageValue target."""

    def __init__(self, address: str, query: str, target: float, what: str):
        self.address, self.query, self.target, self.what = address, query, target, what
        self._session = requests.Session()
        self._client = PrometheusConnect(address, session=self._session, retry=Retry(total=0), timeout=KEDA_DEADLINE_S)

    async def read(self) -> TriggerReading:
        try:
            rows = await asyncio.to_thread(self._client.custom_query, self.query)
        except (requests.RequestException, PrometheusApiClientException) as error:
            raise SourceError(f"prometheus {self.address}: {error}") from None
        if len(rows) > 1:
            raise SourceError(f"query {self.query!r} returned {len(rows)} series, expected at most 1")
        # KEDA's prometheus scaler: an empty result is 0 (ignoreNullValues defaults to true).
        value = keda_value(float(rows[0]["value"][1])) if rows else 0.0
        reading = Reading("AverageValue", self.target, value)
        return TriggerReading(Trigger(reading), value > 0, f"{self.what} = {value:g} (target {self.target:g} per replica)")

    async def close(self) -> None:
        self._session.close()


class SourceTrigger:
    """KEDA's `prometheus` trigger on sum(vllm:num_requests_running{model_name=...}), AverageValue."""

    def __init__(self, source, query: ModelQuery, target: float):
        self.source, self.query, self.target = source, query, target

    async def read(self) -> TriggerReading:
        observed = (await self.source.observe([self.query], time.time()))[self.query.model]
        if isinstance(observed, SourceError):
            raise observed
        value = keda_value(observed.running)
        reading = Reading("AverageValue", self.target, value)
        return TriggerReading(Trigger(reading), value > 0,
                              f"running requests = {value:g} (target {self.target:g} per replica)")

    async def close(self) -> None:
        await self.source.close()


@dataclass(frozen=True)
class ActuatorEvent:
    """A scale the actuator made, or a trigger it could not read; `t` is seconds since start."""

    t: float
    replicas: int | None  # the count set, None when nothing was set
    current: int
    reason: str
    detail: str


class Actuator:
    def __init__(self, spec: KedaSpec, trigger, fleet_url: str, session: aiohttp.ClientSession,
                 clock: Callable[[], float], on_event: Callable[[ActuatorEvent], None]):
        self.spec, self.trigger, self.fleet_url, self.session = spec, trigger, fleet_url, session
        self.clock, self.on_event = clock, on_event
        self.state = KedaState()
        self.asked: list[tuple[float, float]] = []  # (t, value / target): replicas the metric asks for
        self._last_error: str | None = None

    async def current_replicas(self) -> int:
        async with self.session.get(self.fleet_url, timeout=aiohttp.ClientTimeout(total=2)) as resp:
            return int((await resp.json())["replicas"])

    async def set_replicas(self, n: int) -> None:
        async with self.session.put(self.fleet_url, json={"replicas": n}, timeout=aiohttp.ClientTimeout(total=2)) as resp:
            if resp.status != 200:
                raise SourceError(f"PUT /fleet {n}: HTTP {resp.status} {await resp.text()}")

    async def tick(self) -> ScaleStep | None:
        """Advance KEDA and the HPA to now; scale the fleet when they say so."""
        loop = asyncio.get_running_loop()
        now = self.clock()
        current = await self.current_replicas()
        details: list[str] = []

        def read() -> list[Trigger]:
            got = asyncio.run_coroutine_threadsafe(self.trigger.read(), loop).result(KEDA_DEADLINE_S * 3 + 1)
            reading = got.trigger.reading
            self.asked.append((now, reading.value / reading.target))
            details.append(f"{got.detail}; IsActive {str(got.active).lower()}")
            return [got.trigger]

        try:
            result, state = await asyncio.to_thread(step, self.spec, self.state, now, current, read)
        except (SourceError, grpc.RpcError, aiohttp.ClientError, asyncio.TimeoutError, TimeoutError) as error:
            # The HPA cannot get its metric: it leaves the count alone (condition ScalingActive=False).
            message = _describe(error)
            if message != self._last_error:
                self.on_event(ActuatorEvent(now, None, current, "FailedGetExternalMetric", message))
            self._last_error = message
            return None
        self._last_error = None
        self.state = state
        if result.replicas is not None and result.replicas != current:
            await self.set_replicas(result.replicas)
            detail = result.hpa.detail if result.hpa else ""
            self.on_event(ActuatorEvent(now, result.replicas, current, result.reason,
                                        "; ".join(filter(None, [detail] + details))))
        return result

    async def run(self, stop: asyncio.Event, tick_s: float = 0.25) -> None:
        while not stop.is_set():
            await self.tick()
            try:
                await asyncio.wait_for(stop.wait(), tick_s)
            except asyncio.TimeoutError:
                pass


def _describe(error: BaseException) -> str:
    if isinstance(error, grpc.RpcError):
        return f"gRPC {error.code().name}: {error.details()}"
    return f"{type(error).__name__}: {error}".rstrip(": ")
