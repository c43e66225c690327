"""KEDA's ExternalScaler RPCs over the registry. Reads only: the poller does the I/O.

- GetMetricSpec: static per ScaledObject (metric name from the model, AverageValue target 1),
  never fails for valid metadata (KEDA's fallback does not fire when it fails, keda#8056).
- GetMetrics: exactly one MetricValue, demand in replica-equivalents (desired = ceil(demand)).
  UNAVAILABLE (so KEDA's fallback engages) when the model is UNKNOWN: no series, inputs older than
  maxStalenessSeconds, a policy error; after a plain source error the last known demand stands
  until its data is older than maxStalenessSeconds.
- IsActive / StreamIsActive: work to do (scale from zero); the stream pushes on state changes
  and at once when a model with no ready replica receives requests. They answer in UNKNOWN too
  (from the last known activity and the requests the RLS sees): missing data never scales to zero.
Invalid metadata gets INVALID_ARGUMENT naming the key and what was expected, on every RPC; so does
metadata that disagrees with the configuration another ScaledObject (or --models/--config) gave the
same (namespace, model) first.
"""

from __future__ import annotations

import asyncio
import math

import grpc

from scaler.policy.config import ConfigError
from scaler.policy.decide import State
from scaler.server.protocol import (GetMetricSpecResponse, GetMetricsResponse, IsActiveResponse, MetricSpec,
                                    MetricValue)
from scaler.server.registry import SOURCE_ERROR, ModelEntry, ModelRegistry

TARGET = 1.0  # AverageValue target: desired replicas = ceil(demand / 1)


class ExternalScalerServicer:
    def __init__(self, registry: ModelRegistry, first_poll_wait_s: float = 2.0) -> None:
        self.registry = registry
        self.first_poll_wait_s = first_poll_wait_s

    async def GetMetricSpec(self, request, context):
        entry = await self._entry(request, context)
        return GetMetricSpecResponse(metricSpecs=[MetricSpec(metricName=entry.metric_name, targetSize=int(TARGET),
                                                             targetSizeFloat=TARGET)])

    async def GetMetrics(self, request, context):
        entry = await self._entry(request.scaledObjectRef, context)
        decision = await self._fresh_decision(entry, context)
        if not math.isfinite(decision.demand):
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"demand for {entry.name} is {decision.demand}")
        value = max(0.0, decision.demand)
        return GetMetricsResponse(metricValues=[MetricValue(metricName=request.metricName or entry.metric_name,
                                                            metricValue=math.ceil(value), metricValueFloat=value)])

    async def IsActive(self, request, context):
        entry = await self._entry(request, context)
        await self._first_decision(entry)
        return IsActiveResponse(result=entry.is_active(self.registry.clock()))

    async def StreamIsActive(self, request, context):
        entry = await self._entry(request, context)
        queue = self.registry.subscribe()
        try:
            sent = None
            while True:
                active = entry.is_active(self.registry.clock())
                if active != sent or (entry.decision is not None and entry.decision.state_changed):
                    yield IsActiveResponse(result=active)
                    sent = active
                changed = await queue.get()
                while changed is not entry:  # another model's news
                    changed = await queue.get()
        finally:
            self.registry.unsubscribe(queue)

    async def _entry(self, ref, context) -> ModelEntry:
        try:
            return self.registry.ensure(dict(ref.scalerMetadata), ref.namespace or None,
                                        owner=(ref.namespace, ref.name) if ref.name else None)
        except ConfigError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))

    async def _first_decision(self, entry: ModelEntry) -> None:
        if entry.decision is None:
            try:
                async with asyncio.timeout(self.first_poll_wait_s):
                    await entry.first_decision.wait()
            except TimeoutError:
                pass

    async def _fresh_decision(self, entry: ModelEntry, context):
        """The decision GetMetrics may answer from, or UNAVAILABLE naming why not."""
        await self._first_decision(entry)
        now = self.registry.clock()
        decision = entry.decision
        usable = decision is not None and not entry.is_stale(now) and (
            decision.state is not State.UNKNOWN or decision.reason == SOURCE_ERROR and entry.known is not None)
        if not usable:
            age = entry.input_age(now)
            seen = "no observation yet" if age is None else f"last good observation {age:.1f}s old"
            why = f"UNKNOWN ({decision.reason}: {decision.detail})" if decision is not None and \
                decision.state is State.UNKNOWN else f"source: {entry.error or 'no error reported'}"
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                f"model {entry.name}: {seen} (maxStalenessSeconds {entry.config.max_staleness_s:g}); "
                                f"{why}"[:1000])
        return decision
