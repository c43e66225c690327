"""A /metrics page cut short is a failed scrape of that pod, never a smaller page.

Real sockets: an asyncio server in the test writes the status line, the headers and all or part of
the body, then closes the connection, as a vLLM pod restarting mid-response would. Cut points: in
the middle of a number (half a line), between two families (a family missing), between two series
of one counter family (a counter lower, which would read as a restart), and before the last line
feed. Framings: none (the connection's end is the body's end), chunked without its last chunk,
gzip cut inside the compressed stream, OpenMetrics without `# EOF`, a short Content-Length.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip

import pytest

from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery, Observation, SourceError
from scaler.sources.scrape import ScrapeSource
from scaler_helpers import vllm_page

MODEL = "m"
PAGE = vllm_page(MODEL, waiting=1234, running=7, completed=10).encode()
WAITING_LINE = b'vllm:num_requests_waiting{engine="0",model_name="m"} 1234\n'
CUTS = {
    # "... 1234" read as "... 12": a smaller queue than there is.
    "mid-line": PAGE.index(WAITING_LINE) + len(WAITING_LINE) - 3,
    # running present, waiting's family gone: the pod would look as if it did not serve the model.
    "between families": PAGE.index(b"# HELP vllm:num_requests_waiting "),
    # request_success_total without its finished_reason="length" series (10): a counter gone from 10 to 0.
    "inside a counter family": PAGE.index(b'vllm:request_success_total{engine="0",finished_reason="length"'),
    "before the last line feed": len(PAGE) - 1,
}
TEXT = b"Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
OPENMETRICS = b"Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"


def _chunked(body: bytes, last_chunk: bool) -> bytes:
    out = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 4096]), body[i:i + 4096]) for i in range(0, len(body), 4096))
    return out + (b"0\r\n\r\n" if last_chunk else b"")


# Each framing: (headers, the bytes sent for the whole page, the bytes sent for a page cut at `cut`).
FRAMINGS = {
    "close-delimited": (TEXT, lambda: PAGE, lambda cut: PAGE[:cut]),
    "chunked": (TEXT + b"Transfer-Encoding: chunked\r\n", lambda: _chunked(PAGE, True),
                lambda cut: _chunked(PAGE[:cut], False)),
    # gzip's own trailer says where the page ends; the compressed stream is cut in proportion.
    "gzip, close-delimited": (TEXT + b"Content-Encoding: gzip\r\n", lambda: gzip.compress(PAGE),
                              lambda cut: gzip.compress(PAGE)[:len(gzip.compress(PAGE)) * cut // len(PAGE)]),
    "openmetrics, close-delimited": (OPENMETRICS, lambda: PAGE + b"# EOF\n", lambda cut: PAGE[:cut]),
    "content-length": (TEXT + b"Content-Length: %d\r\n" % len(PAGE), lambda: PAGE, lambda cut: PAGE[:cut]),
}


class PodServer:
    """A pod's /metrics on a real socket: answers each request with `headers` + `body` as last set,
    then closes the connection."""

    def answer_with(self, headers: bytes, body: bytes) -> None:
        self.response = b"HTTP/1.1 200 OK\r\nConnection: close\r\n" + headers + b"\r\n" + body

    async def __aenter__(self) -> str:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(self.response)
            await writer.drain()
            writer.close()

        self._server = await asyncio.start_server(answer, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/metrics"

    async def __aexit__(self, *_) -> None:
        self._server.close()
        await self._server.wait_closed()


def scrape(*rounds: list[tuple[bytes, bytes]]) -> tuple[list[str], list[Observation | SourceError]]:
    """One model on pods that answer each round with that round's (headers, body), one per pod,
    scraped by one ScrapeSource: the pods' URLs and the model's result in each round."""
    async def run():
        source = ScrapeSource(timeout_s=5.0)
        pods = [PodServer() for _ in rounds[0]]
        results = []
        try:
            async with contextlib.AsyncExitStack() as stack:
                urls = [await stack.enter_async_context(pod) for pod in pods]
                query = ModelQuery(MODEL, SourceSpec(kind="scrape", scrape_targets=tuple(urls)))
                for index, answers in enumerate(rounds):
                    for pod, answer in zip(pods, answers, strict=True):
                        pod.answer_with(*answer)
                    results.append((await source.observe([query], now=float(index + 1)))[MODEL])
        finally:
            await source.close()
        return urls, results

    return asyncio.run(run())


@pytest.mark.parametrize("framing", [f for f in FRAMINGS if f != "close-delimited"])
def test_the_whole_page_still_parses(framing):
    headers, whole, _ = FRAMINGS[framing]
    _, [result] = scrape([(headers, whole())])
    assert isinstance(result, Observation), result
    assert (result.waiting, result.running, result.ready_replicas, result.note) == (1234, 7, 1, "")


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("framing", FRAMINGS)
def test_a_cut_page_is_a_failed_scrape_naming_the_pod(framing, cut):
    headers, _, cut_page = FRAMINGS[framing]
    [url], [result] = scrape([(headers, cut_page(CUTS[cut]))])
    # A failed scrape (UNKNOWN, source-error): not an observation, nor NoSeries ("this pod has no series").
    assert type(result) is SourceError, result
    assert url in str(result)
    assert "cut short" in str(result) or "unknown length" in str(result), result


def test_a_page_ending_only_where_the_connection_did_is_refused_even_whole():
    """No Content-Length, not chunked, not compressed, text format: a page cut between two lines
    reads exactly like a whole one, so neither is taken as whole."""
    headers, whole, _ = FRAMINGS["close-delimited"]
    [url], [result] = scrape([(headers, whole())])
    assert type(result) is SourceError and url in str(result)
    assert "unknown length" in str(result) and "no Content-Length, chunked encoding or gzip" in str(result)


def test_the_reasons_say_what_was_cut():
    half_line = 'vllm:num_requests_waiting{engine="0",model_name="m"} 12'
    cases = {("close-delimited", "mid-line"): f"its last line ({half_line!r}) has no line feed",
             ("chunked", "between families"): "the connection closed before the end of the body",
             ("gzip, close-delimited", "between families"): "the gzip stream ends before its trailer",
             ("openmetrics, close-delimited", "between families"): "an OpenMetrics page ends with '# EOF'"}
    for (framing, cut), reason in cases.items():
        headers, _, cut_page = FRAMINGS[framing]
        _, [result] = scrape([(headers, cut_page(CUTS[cut]))])
        assert reason in str(result), (framing, cut, str(result))


def test_a_cut_page_of_one_pod_leaves_the_others_and_its_counter_intact():
    """Two pods. Pod a's second page is cut inside the request_success_total family (its sum would
    read 0 instead of 10: a restart, and all of its next value new work). The cut page is that pod's
    failed scrape: pod b still counts, and a's counter goes on from 10 when a whole page returns."""
    headers = OPENMETRICS

    def page(completed: float) -> bytes:
        return vllm_page(MODEL, waiting=1234, running=7, completed=completed).encode() + b"# EOF\n"

    cut = page(10)[:CUTS["inside a counter family"]]
    _, (first, second, third) = scrape([(headers, page(10)), (headers, page(10))],
                                       [(headers, cut), (headers, page(11))],
                                       [(headers, page(12)), (headers, page(11))])
    assert (first.ready_replicas, first.completed_total) == (2, 0.0)  # both pods' counters: a baseline
    assert isinstance(second, Observation), second
    assert (second.ready_replicas, second.waiting, second.completed_total) == (1, 1234, 1.0)  # b: 10 -> 11
    assert second.note.startswith("1 target(s) did not answer; first: ")
    assert third.ready_replicas == 2
    # a: 10 -> 12 counts 2 (read as a restart at 0 it would count 12), b: unchanged.
    assert third.completed_total == 3.0
