"""Direct scrape of vLLM pods' /metrics: the lowest-lag source.

Targets are static (`scrapeTargets`) or discovered (ready pods matching `podSelector`). Every
distinct URL is fetched once per round, however many models list it. Ready replicas = targets
that answered with the model's series. A model whose targets all failed gets no observation
(UNKNOWN; its last good value ages towards maxStalenessSeconds); targets that answer without the
model's series are NoSeries; a discovered model with no ready pod is observed as zero replicas
(scaled to zero is a state, not an error). A target that fails is named in the error and the note
by its pod (`pod namespace/name (URL)`) when discovery found it, by its URL when static.

Every fetch is bounded: its own deadline (--source-timeout, however slowly bytes arrive), at
most MAX_CONCURRENT_FETCHES at once, MAX_PAGE_BYTES after decompression (inflated in bounded
steps, so a gzip bomb costs a few MB), no redirects (a 302 elsewhere would bypass the checks on
scrapeTargets). Fetches are shared: models observed in the same tick (`now`) that list the same
URL await one fetch. A fetch outlives a cancelled round (other models may await it) but not
close(), which cancels and awaits every fetch still in flight before closing the session. A fetch
that finds the loop's default executor shut down (as the interpreter exits) fails as "source closed".

A page is read only when its end is known to be its end (`_check_whole`): a page cut short (a pod
restarting mid-response) would otherwise read as a whole one missing families or ending in half a
number, so the pod would look as if it did not serve the model, or a counter as if it had reset.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Sequence

import aiohttp

from scaler.sources.base import (MAX_CONCURRENT_FETCHES, MAX_PAGE_BYTES, ModelQuery, NoSeries, Observation,
                                 SourceError)
from scaler.sources.counters import MonotonicCounters, monotonic_buckets
from scaler.sources.discovery import Discovery, Target
from scaler.sources.vllm import ModelSample, parse_page


class ScrapeSource:
    kind = "scrape"

    def __init__(self, timeout_s: float = 2.0, discovery: Discovery | None = None) -> None:
        self.timeout_s = timeout_s
        self._discovery = discovery
        self._completed = MonotonicCounters()
        self._generated = MonotonicCounters()
        self._prompt = MonotonicCounters()
        self._tpot = MonotonicCounters()  # one total per (model, bucket bound)
        self._session: aiohttp.ClientSession | None = None
        self._limit = asyncio.Semaphore(MAX_CONCURRENT_FETCHES)
        # (url, tick) -> its fetch: a past tick's fetch still in flight stays here until done, so close() finds it.
        self._fetches: dict[tuple[str, float], asyncio.Task] = {}

    async def observe(self, queries: Sequence[ModelQuery], now: float) -> dict[str, Observation | SourceError]:
        targets = {q.model: self._targets(q) for q in queries}
        urls = sorted({t.url for model_targets in targets.values() if isinstance(model_targets, list)
                       for t in model_targets})
        pages = dict(zip(urls, await asyncio.gather(*(self._shared_fetch(url, now) for url in urls))))
        for key in [k for k, fetch in self._fetches.items() if k[1] < now and fetch.done()]:
            del self._fetches[key]  # a past tick's page: never reused, so not kept
        out: dict[str, Observation | SourceError] = {}
        namespaces = {q.model: q.spec.namespace for q in queries}  # one model per namespace in a round
        for model, model_targets in targets.items():
            out[model] = model_targets if isinstance(model_targets, SourceError) else \
                self._observation(model, model_targets, pages, now, namespaces[model])
        self._completed.prune(now)
        self._generated.prune(now)
        self._prompt.prune(now)
        self._tpot.prune(now)
        return out

    def _targets(self, query: ModelQuery) -> list[Target] | SourceError:
        spec = query.spec
        if spec.scrape_targets:
            return [Target(url) for url in spec.scrape_targets]
        if self._discovery is None:
            return SourceError("podSelector needs Kubernetes discovery (serve --discovery), or set scrapeTargets")
        found = self._discovery.ready_targets(spec.discovery_key, spec.metrics_port)
        if found is None:
            return SourceError(self._discovery.errors.get(spec.discovery_key, "pods not listed yet"))
        return found

    def _observation(self, model: str, targets: list[Target], pages: dict, now: float,
                     namespace: str | None = None) -> Observation | SourceError:
        answered: dict[str, ModelSample] = {}
        errors = []
        for target in targets:
            page = pages[target.url]
            if isinstance(page, Exception):
                errors.append(f"{target}: {page}")
            elif model in page:
                answered[target.url] = page[model]
            else:
                errors.append(f"{target}: no finite vllm:num_requests_waiting/running for model_name={model!r}")
        if targets and not answered:
            kind = NoSeries if not any(isinstance(pages[t.url], Exception) for t in targets) else SourceError
            return kind(f"none of {len(targets)} target(s) answered for {model!r}; first: {errors[0]}")
        completed = {url: s.completed for url, s in answered.items() if s.completed is not None}
        generated = {url: s.generated for url, s in answered.items() if s.generated is not None}
        prompt = {url: s.prompt for url, s in answered.items() if s.prompt is not None}
        key = (namespace, model)  # keyed by namespace too: the same served name elsewhere is another model
        return Observation(
            time=now,
            waiting=sum(s.waiting for s in answered.values()),
            running=sum(s.running for s in answered.values()),
            ready_replicas=len(answered),
            # No replica with the counter is unknown (None), unless no replica is up at all.
            completed_total=self._completed.update(key, completed, now) if completed or not answered else None,
            generation_tokens_total=self._generated.update(key, generated, now) if generated or not answered else None,
            prompt_tokens_total=self._prompt.update(key, prompt, now) if prompt or not answered else None,
            tpot_buckets=monotonic_buckets(self._tpot, key, {url: s.tpot_buckets for url, s in answered.items()}, now),
            note="no ready pod" if not targets else
                 (f"{len(errors)} target(s) did not answer; first: {errors[0]}" if errors else ""),
        )

    def _shared_fetch(self, url: str, tick: float) -> asyncio.Future:
        """The fetch of `url` for this tick, started by the first model that asks for it."""
        fetch = self._fetches.get((url, tick))
        if fetch is None:
            fetch = self._fetches[(url, tick)] = asyncio.ensure_future(self._fetch(url))
        return asyncio.shield(fetch)

    async def _fetch(self, url: str) -> dict[str, ModelSample] | Exception:
        if self._session is None:
            # Decompression is ours (bounded); aiohttp's would inflate a whole chunk at once.
            self._session = aiohttp.ClientSession(auto_decompress=False)
        try:
            async with self._limit, asyncio.timeout(self.timeout_s):
                async with self._session.get(url, allow_redirects=False,
                                             headers={"Accept-Encoding": "gzip, deflate"}) as response:
                    if response.status != 200:
                        return SourceError(f"HTTP {response.status}" + (" (redirects are not followed)"
                                                                        if 300 <= response.status < 400 else ""))
                    body = await _read_page(response)
            # Parsing is pure-Python CPU work (~20 us a series): off the loop, so RPCs keep flowing.
            return await asyncio.to_thread(parse_page, body.decode("utf-8", errors="replace"))
        except TimeoutError:
            return SourceError(f"no complete page within {self.timeout_s:g}s")
        except (aiohttp.ClientError, SourceError, ValueError, zlib.error) as exc:
            return SourceError(f"{type(exc).__name__}: {str(exc)[:300]}".rstrip(": "))
        except RuntimeError:
            # Parsing and resolving a host name both run on the loop's default executor; once that is
            # shut down (as the interpreter exits) the round fails as closed. Any other RuntimeError is a bug.
            refusal = _executor_refusal()
            if refusal is None:
                raise
            return SourceError(f"source closed ({refusal})")

    async def close(self) -> None:
        # A round cancelled at shutdown leaves its shielded fetches running: end them here, or one
        # left on a loop that stops next is "Task was destroyed but it is pending!".
        fetches = [fetch for fetch in self._fetches.values() if not fetch.done()]
        for fetch in fetches:
            fetch.cancel()
        await asyncio.gather(*fetches, return_exceptions=True)
        self._fetches.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None


def _executor_refusal() -> RuntimeError | None:
    """The loop's default executor's refusal of work, if it refuses (None: it takes work)."""
    try:
        asyncio.get_running_loop().run_in_executor(None, int)  # a no-op: only whether it is accepted matters
    except RuntimeError as refusal:
        return refusal
    return None


async def _read_page(response: aiohttp.ClientResponse) -> bytes:
    """The body, decompressed in steps of at most what is still allowed: MAX_PAGE_BYTES bounds
    both memory and the inflating work, whatever the compression ratio."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "deflate"):
        raise SourceError(f"unsupported Content-Encoding {encoding[:40]!r}")
    inflate = zlib.decompressobj(zlib.MAX_WBITS | 32) if encoding in ("gzip", "deflate") else None  # 32: auto header
    body = bytearray()
    try:
        async for chunk in response.content.iter_chunked(16384):
            if inflate is not None:
                chunk = inflate.decompress(chunk, MAX_PAGE_BYTES + 1 - len(body))
                if inflate.unconsumed_tail:
                    raise SourceError(f"page larger than {MAX_PAGE_BYTES} bytes once decompressed")
            body += chunk
            if len(body) > MAX_PAGE_BYTES:
                raise SourceError(f"page larger than {MAX_PAGE_BYTES} bytes")
    except aiohttp.ClientPayloadError as error:  # shorter than its Content-Length, or no last chunk
        raise SourceError(f"page cut short: the connection closed before the end of the body ({str(error)[:200]})") \
            from None
    if inflate is not None and not inflate.eof:
        raise SourceError(f"page cut short: the {encoding} stream ends before its trailer")
    page = bytes(body)
    _check_whole(page, response, compressed=inflate is not None)
    return page


def _check_whole(body: bytes, response: aiohttp.ClientResponse, compressed: bool) -> None:
    """Raise unless the page's end is its real end. aiohttp already refuses a body shorter than its
    Content-Length or without its last chunk, and zlib one whose gzip/deflate trailer is missing; the
    formats' own ends then catch a half line: a text page's last line ends with a line feed, an
    OpenMetrics page ends with `# EOF`. A page with none of these (no Content-Length, not chunked,
    not compressed, not OpenMetrics) ends where the connection did, so a cut one, even cut between
    two lines, looks whole: refused as such rather than guessed at."""
    if response.headers.get("Content-Type", "").strip().lower().startswith("application/openmetrics-text"):
        if not (b"\n" + body).endswith((b"\n# EOF", b"\n# EOF\n")):
            raise SourceError("page cut short: an OpenMetrics page ends with '# EOF'")
        return
    if body and not body.endswith(b"\n"):
        last = body.rsplit(b"\n", 1)[-1][-60:].decode("utf-8", "replace")
        raise SourceError(f"page cut short: its last line ({last!r}) has no line feed, which ends every line "
                          "of the text format")
    framed = response.content_length is not None or "chunked" in response.headers.get("Transfer-Encoding", "").lower()
    if not (framed or compressed):
        raise SourceError("page of unknown length (no Content-Length, chunked encoding or gzip): a dropped "
                          "connection cannot be told from its end, so it is not read as whole")
