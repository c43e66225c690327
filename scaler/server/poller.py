"""The poll loop: every --poll-interval, a round in every lane, then the policy for its models.

A lane is what one round of I/O serves: one Prometheus address and namespace (one round of
queries answers all its models; a served name means one model per round), or one scrape model (its own targets; pages shared with other models in the same
tick). Lanes run on their own: a lane whose round is still running at the next tick is skipped,
so a slow Prometheus or a slow-loris target delays only the models behind it. An exception in
one lane or one model's policy stays there (the model is UNKNOWN). GetMetrics never does I/O:
it reads what the last round decided.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable, Hashable

from scaler.server.registry import NO_SERIES, SERIES_VANISHED, ModelEntry, ModelRegistry
from scaler.sources.base import ModelQuery, NoSeries, Observation, Source, SourceError
from scaler.sources.discovery import Discovery
from scaler.sources.prometheus import PrometheusSource
from scaler.sources.scrape import ScrapeSource

log = logging.getLogger("scaler.server")


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
        self._running: dict[Hashable, asyncio.Task] = {}  # lane -> its round in flight
        self._discovering: asyncio.Task | None = None

    def source_for(self, entry: ModelEntry) -> Source:
        spec = entry.metadata.source
        if spec.kind == "scrape":
            return self._scrape
        if spec.prometheus_address not in self._prometheus:
            self._prometheus[spec.prometheus_address] = PrometheusSource(spec.prometheus_address, self.source_timeout_s)
        return self._prometheus[spec.prometheus_address]

    def lanes(self, entries: list[ModelEntry]) -> dict[Hashable, tuple[Source, list[ModelEntry]]]:
        out: dict[Hashable, tuple[Source, list[ModelEntry]]] = {}
        for entry in entries:
            source = self.source_for(entry)
            key = ("scrape", entry.key) if source is self._scrape else \
                ("prometheus", entry.metadata.source.prometheus_address, entry.namespace)
            out.setdefault(key, (source, []))[1].append(entry)
        return out

    def tick(self, now: float, new_only: bool = False) -> list[asyncio.Task]:
        """Start a round in every lane that is not still busy with the previous one (with
        `new_only`, only in lanes with a model never polled: a new model's first round)."""
        entries = self.registry.models()
        if self.discovery is not None and (self._discovering is None or self._discovering.done()):
            keys = {e.metadata.source.discovery_key for e in entries} - {None}
            self._discovering = asyncio.create_task(self.discovery.refresh(keys, now))
        started = []
        for key, (source, group) in self.lanes(entries).items():
            if key in self._running and not self._running[key].done():
                continue  # still at its previous round: this lane alone falls behind
            if new_only and all(entry.decision is not None for entry in group):
                continue
            self._running[key] = task = asyncio.create_task(self._round(source, group, now))
            started.append(task)
        for key in [k for k, t in self._running.items() if t.done()]:
            del self._running[key]
        return started

    async def _round(self, source: Source, entries: list[ModelEntry], now: float) -> None:
        started = time.perf_counter()
        try:
            queries = [ModelQuery(e.name, e.metadata.source) for e in entries]
            async with asyncio.timeout(self.source_timeout_s * 2 + 1):
                await self._first_listing(entries)
                results = await source.observe(queries, now)
        except Exception as exc:  # noqa: BLE001 (whatever the source raised, only this lane's models fail)
            message = f"{source.kind}: {exc}" if isinstance(exc, SourceError) else \
                f"{source.kind}: {'round timed out' if isinstance(exc, TimeoutError) else repr(exc)[:300]}"
            for entry in entries:
                entry.fail(message, self.clock())
            return
        elapsed = time.perf_counter() - started
        for entry in entries:
            # Deciding is CPU work on KEDA's loop (~0.06 ms a model): its calls go in between every
            # two models. An RPC takes several loop turns, each of which waited for a slice of the
            # round: GetMetrics p99 was 11.5 ms with 0.5 ms slices, 5.3 ms with one model a turn.
            await asyncio.sleep(0)
            try:
                self._apply(entry, source, results.get(entry.name, SourceError("no answer")), now, elapsed)
            except Exception:  # noqa: BLE001 (a bug with one model's data must not skip the others)
                log.exception("model round failed", extra={"fields": {"event": "poll_error", **entry.log_fields()}})

    async def _first_listing(self, entries: list[ModelEntry]) -> None:
        """A model whose pods were never listed waits for the listing in progress (once)."""
        keys = {e.metadata.source.discovery_key for e in entries} - {None}
        if self._discovering is not None and any(self.discovery.pod_count(k) is None for k in keys):
            await asyncio.shield(self._discovering)

    def _apply(self, entry: ModelEntry, source: Source, result, now: float, elapsed: float) -> None:
        key = entry.metadata.source.discovery_key
        no_pods = isinstance(result, NoSeries) and self._no_pods(key)
        if no_pods:
            # Discovery says no pod exists at all: zero replicas is then a fact, not a guess.
            result = Observation(time=now, waiting=0.0, running=0.0, ready_replicas=0, completed_total=None,
                                 note="no series and no pod")
        if isinstance(result, Observation):
            entry.series_seen = not no_pods
            ages = self.discovery.starting_ages(key, now) if self.discovery and key else None
            entry.apply(result, ages, self.clock(), elapsed)
        elif isinstance(result, NoSeries):
            entry.fail(f"{source.kind}: {result}", self.clock(), SERIES_VANISHED if entry.series_seen else NO_SERIES)
        else:
            entry.fail(f"{source.kind}: {result}", self.clock())

    def _no_pods(self, key) -> bool:
        return self.discovery is not None and key is not None and self.discovery.pod_count(key) == 0

    async def run(self) -> None:
        """Tick until cancelled; a new model starts a tick at once (its first GetMetrics waits)."""
        try:
            due = self.clock()
            while True:
                self.registry.added.clear()
                full = self.clock() >= due
                if full:
                    due = self.clock() + self.interval_s
                try:
                    self.tick(self.clock(), new_only=not full)
                except Exception:  # a bug in one tick must not stop the scaler; the next tick retries
                    log.exception("poll tick failed", extra={"fields": {"event": "poll_error"}})
                if full:
                    self.registry.forget_idle(self.forget_after_s, self.clock())
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow the cancel that stops us.
                try:
                    async with asyncio.timeout(max(0.0, due - self.clock())):
                        await self.registry.added.wait()
                except TimeoutError:
                    pass
        finally:
            for task in [*self._running.values(), *([self._discovering] if self._discovering else [])]:
                task.cancel()
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def close(self) -> None:
        for source in [self._scrape, *self._prometheus.values()]:
            await source.close()
