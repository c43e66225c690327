"""The poll loop: every --poll-interval, one round per source for all its models, then the policy.

GetMetrics never does I/O: it reads what the last round decided. A round that fails leaves each
model's last good decision in place; the servicer refuses it once it is older than the model's
maxStalenessSeconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from scaler.server.registry import ModelEntry, ModelRegistry
from scaler.sources.base import ModelQuery, Observation, Source, SourceError
from scaler.sources.discovery import Discovery
from scaler.sources.prometheus import PrometheusSource
from scaler.sources.scrape import ScrapeSource

log = logging.getLogger("scaler.server")
YIELD_EVERY = 8  # models decided between two chances for RPCs to run (~0.15 ms of policy each)


class Poller:
    def __init__(self, registry: ModelRegistry, *, interval_s: float = 1.0, source_timeout_s: float = 2.0,
                 discovery: Discovery | None = None, forget_after_s: float = 600.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.registry = registry
        self.interval_s = interval_s
        self.source_timeout_s = source_timeout_s
        self.discovery = discovery
        self.forget_after_s = forget_after_s
        self.clock = clock
        self._scrape = ScrapeSource(source_timeout_s, discovery)
        self._prometheus: dict[str, PrometheusSource] = {}

    def source_for(self, entry: ModelEntry) -> Source:
        spec = entry.metadata.source
        if spec.kind == "scrape":
            return self._scrape
        if spec.prometheus_address not in self._prometheus:
            self._prometheus[spec.prometheus_address] = PrometheusSource(spec.prometheus_address, self.source_timeout_s)
        return self._prometheus[spec.prometheus_address]

    async def poll_once(self) -> None:
        now = self.clock()
        entries = self.registry.models()
        if self.discovery is not None:
            keys = {e.metadata.source.discovery_key for e in entries} - {None}
            await self.discovery.refresh(keys, now)
        groups: dict[int, tuple[Source, list[ModelEntry]]] = {}
        for entry in entries:
            source = self.source_for(entry)
            groups.setdefault(id(source), (source, []))[1].append(entry)
        await asyncio.gather(*(self._round(source, group, now) for source, group in groups.values()))

    async def _round(self, source: Source, entries: list[ModelEntry], now: float) -> None:
        started = time.perf_counter()
        try:
            queries = [ModelQuery(e.name, e.metadata.source) for e in entries]
            async with asyncio.timeout(self.source_timeout_s * 2):
                results = await source.observe(queries, now)
        except (SourceError, TimeoutError) as exc:
            for entry in entries:
                entry.fail(f"{source.kind}: {exc or 'round timed out'}")
            return
        elapsed = time.perf_counter() - started
        for done, entry in enumerate(entries, 1):
            if done % YIELD_EVERY == 0:
                await asyncio.sleep(0)  # deciding is CPU work on the RPC loop: let calls in between
            result = results.get(entry.name, SourceError("no answer"))
            if isinstance(result, Observation):
                key = entry.metadata.source.discovery_key
                ages = self.discovery.starting_ages(key, now) if self.discovery and key else None
                entry.apply(result, ages, self.clock(), elapsed)
            else:
                entry.fail(f"{source.kind}: {result}")

    async def run(self) -> None:
        """Poll until cancelled; a new model starts a round at once (its first GetMetrics waits)."""
        while True:
            started = self.clock()
            self.registry.added.clear()
            try:
                await self.poll_once()
            except Exception:  # a bug in one round must not stop the scaler; the next round retries
                log.exception("poll round failed", extra={"fields": {"event": "poll_error"}})
            self.registry.forget_idle(self.forget_after_s, self.clock())
            wait = max(0.0, self.interval_s - (self.clock() - started))
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow the cancel that stops us.
            try:
                async with asyncio.timeout(wait):
                    await self.registry.added.wait()
            except TimeoutError:
                pass

    async def close(self) -> None:
        for source in [self._scrape, *self._prometheus.values()]:
            await source.close()
