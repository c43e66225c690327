"""Direct scrape of vLLM pods' /metrics: the lowest-lag source.

Targets are static (`scrapeTargets`) or discovered (ready pods matching `podSelector`). Every
distinct URL is fetched once per round, however many models list it. Ready replicas = targets
that answered with the model's series. A model whose targets all failed gets no observation (its
last good value ages towards maxStalenessSeconds); a discovered model with no ready pod is
observed as zero replicas (scaled to zero is a state, not an error).
"""

from __future__ import annotations

import asyncio
from typing import Sequence

import aiohttp

from scaler.sources.base import ModelQuery, Observation, SourceError
from scaler.sources.counters import MonotonicCounters
from scaler.sources.discovery import Discovery
from scaler.sources.vllm import ModelSample, parse_page


class ScrapeSource:
    kind = "scrape"

    def __init__(self, timeout_s: float = 2.0, discovery: Discovery | None = None) -> None:
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._discovery = discovery
        self._counters = MonotonicCounters()
        self._session: aiohttp.ClientSession | None = None

    async def observe(self, queries: Sequence[ModelQuery], now: float) -> dict[str, Observation | SourceError]:
        targets = {q.model: self._targets(q) for q in queries}
        urls = sorted({url for t in targets.values() if isinstance(t, list) for url in t})
        pages = dict(zip(urls, await asyncio.gather(*(self._fetch(url) for url in urls))))
        out: dict[str, Observation | SourceError] = {}
        for model, model_targets in targets.items():
            out[model] = model_targets if isinstance(model_targets, SourceError) else \
                self._observation(model, model_targets, pages, now)
        self._counters.prune(now)
        return out

    def _targets(self, query: ModelQuery) -> list[str] | SourceError:
        spec = query.spec
        if spec.scrape_targets:
            return list(spec.scrape_targets)
        if self._discovery is None:
            return SourceError("podSelector needs Kubernetes discovery (serve --discovery), or set scrapeTargets")
        urls = self._discovery.ready_urls(spec.discovery_key, spec.metrics_port)
        if urls is None:
            return SourceError(self._discovery.errors.get(spec.discovery_key, "pods not listed yet"))
        return urls

    def _observation(self, model: str, urls: list[str], pages: dict, now: float) -> Observation | SourceError:
        answered: dict[str, ModelSample] = {}
        errors = []
        for url in urls:
            page = pages[url]
            if isinstance(page, Exception):
                errors.append(f"{url}: {page}")
            elif model in page:
                answered[url] = page[model]
            else:
                errors.append(f"{url}: no finite vllm:num_requests_waiting/running for model_name={model!r}")
        if urls and not answered:
            return SourceError(f"none of {len(urls)} target(s) answered for {model!r}; first: {errors[0]}")
        counts = {url: s.completed for url, s in answered.items() if s.completed is not None}
        return Observation(
            time=now,
            waiting=sum(s.waiting for s in answered.values()),
            running=sum(s.running for s in answered.values()),
            ready_replicas=len(answered),
            completed_total=self._counters.update(model, counts, now) if counts or not answered else None,
            note="no ready pod" if not urls else (f"{len(errors)} target(s) did not answer" if errors else ""),
        )

    async def _fetch(self, url: str) -> dict[str, ModelSample] | Exception:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        try:
            async with self._session.get(url) as response:
                if response.status != 200:
                    return SourceError(f"HTTP {response.status}")
                text = await response.text()
            # Parsing is pure-Python CPU work (~20 us a series): off the loop, so RPCs keep flowing.
            return await asyncio.to_thread(parse_page, text)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            return SourceError(f"{type(exc).__name__}: {exc}".rstrip(": "))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
