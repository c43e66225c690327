"""A Prometheus source whose thread is gone says so: a round fails as SourceError("source closed"),
not as the executor's RuntimeError.

Its thread goes away on close() and, in a server nobody stopped, as the interpreter exits: CPython's
exit hook tells every executor's workers to quit and marks their executors shut down. That second
path is how a poll round once logged "prometheus: RuntimeError('cannot schedule new futures after
shutdown')" (an in-process serve whose start had timed out, still polling as pytest exited).

The scrape source parses pages, and resolves host names, on the loop's default executor, which the
same exit hook shuts down: such a round fails as SourceError("source closed") too, not RuntimeError.
"""

from __future__ import annotations

import asyncio
import concurrent.futures.thread as futures_thread
import subprocess
import sys
import time

import pytest

from conftest import REPO, free_port
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery, SourceError
from scaler.sources.prometheus import PrometheusSource


def _query(address: str) -> list[ModelQuery]:
    return [ModelQuery("m", SourceSpec(kind="prometheus", prometheus_address=address))]


def test_a_round_after_close_is_a_source_error():
    address = f"http://127.0.0.1:{free_port()}"  # nothing listens: the first round fails on its own
    source = PrometheusSource(address)

    async def rounds():
        with pytest.raises(SourceError, match="Connection"):
            await source.observe(_query(address), time.time())
        await source.close()
        with pytest.raises(SourceError, match=f"prometheus {address}: source closed"):
            await source.observe(_query(address), time.time())

    asyncio.run(rounds())


AT_EXIT = """
import asyncio, concurrent.futures.thread, time
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery
from scaler.sources.prometheus import PrometheusSource

address = "http://127.0.0.1:{port}"
source = PrometheusSource(address)
query = [ModelQuery("m", SourceSpec(kind="prometheus", prometheus_address=address))]

async def observe():
    try:
        await source.observe(query, time.time())
    except Exception as error:
        print(type(error).__name__, error)

asyncio.run(observe())  # its thread now exists
concurrent.futures.thread._python_exit()  # what the interpreter runs at exit, before daemon threads stop
asyncio.run(observe())
"""


@pytest.mark.skipif(not hasattr(futures_thread, "_python_exit"), reason="this CPython has no such exit hook to call")
def test_a_round_as_the_interpreter_exits_is_a_source_error():
    out = subprocess.run([sys.executable, "-c", AT_EXIT.format(port=free_port())], cwd=REPO, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("SourceError") and "source closed" not in first  # a live source's own failure
    assert second.startswith("SourceError") and "source closed (cannot schedule new futures" in second, second


# -- the scrape source: parsing a page and resolving a host name both run on the loop's default executor --

SCRAPE_AT_EXIT = """
import asyncio, concurrent.futures.thread, sys, time
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery
from scaler.sources.scrape import ScrapeSource

source = ScrapeSource()

async def observe(url):
    query = [ModelQuery("{model}", SourceSpec(kind="scrape", scrape_targets=(url,)))]
    try:
        result = (await source.observe(query, time.time()))["{model}"]
        print(type(result).__name__, result)
    except Exception as error:
        print("raised", type(error).__name__, error)

async def rounds():
    await observe(sys.argv[1])  # the loop's default executor now exists (it parsed the page)
    concurrent.futures.thread._python_exit()  # what the interpreter runs at exit, before daemon threads stop
    await observe(sys.argv[2])
    await source.close()

asyncio.run(rounds())
"""


@pytest.fixture
def vllm_page_server():
    from scaler_helpers import CAPTURE_MODEL, PageServer, vllm_page

    server = PageServer(vllm_page(waiting=3, running=2))
    yield server, CAPTURE_MODEL
    server.close()


@pytest.mark.skipif(not hasattr(futures_thread, "_python_exit"), reason="this CPython has no such exit hook to call")
# The second round parses the page on the executor, or (a host name not resolved yet) first resolves it there.
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_scrape_round_as_the_interpreter_exits_is_a_source_error(vllm_page_server, host):
    server, model = vllm_page_server
    urls = [server.url, server.url.replace("127.0.0.1", host)]
    out = subprocess.run([sys.executable, "-c", SCRAPE_AT_EXIT.format(model=model), *urls], cwd=REPO,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("Observation"), first  # a live source reads the page
    assert second.startswith("SourceError") and "source closed" in second, second


def test_a_scrape_runtime_error_with_the_executor_working_is_not_taken_for_closed(vllm_page_server, monkeypatch):
    """Only the executor's refusal is "source closed": a RuntimeError from our own code still surfaces."""
    from scaler.sources import scrape

    server, model = vllm_page_server

    def broken_parse(text):
        raise RuntimeError("a bug in parsing")

    monkeypatch.setattr(scrape, "parse_page", broken_parse)
    source = scrape.ScrapeSource()
    query = [ModelQuery(model, SourceSpec(kind="scrape", scrape_targets=(server.url,)))]

    async def rounds():
        try:
            with pytest.raises(RuntimeError, match="a bug in parsing"):
                await source.observe(query, time.time())
        finally:
            await source.close()

    asyncio.run(rounds())
