"""The Prometheus source against a real Prometheus scraping real vLLM captures (values edited)."""

from __future__ import annotations

import asyncio
import time

import pytest

from conftest import poll_until
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery, Observation, SourceError
from scaler.sources.base import NoSeries
from scaler.sources.prometheus import PrometheusSource, build_queries
from scaler.sources.vllm import tpot_over
from scaler_helpers import CAPTURE_MODEL, PageServer, vllm_page

pytestmark = pytest.mark.integration

DECOY = "qwen2x5-1x5b"  # what an unescaped "qwen2.5-1.5b" regex would also match


def query(model: str, address: str) -> ModelQuery:
    return ModelQuery(model, SourceSpec(kind="prometheus", prometheus_address=address))


def observe(source: PrometheusSource, *models: str):
    return asyncio.run(source.observe([query(m, source.address) for m in models], time.time()))


@pytest.fixture
def pages():
    servers = {"a": PageServer(vllm_page(waiting=3, running=2, completed=10)),
               "b": PageServer(vllm_page(waiting=4, running=2, completed=20)),
               "decoy": PageServer(vllm_page(model=DECOY, waiting=50, running=9)),
               "nan": PageServer(vllm_page(model="nan-model", waiting="NaN"))}
    yield servers
    for server in servers.values():
        server.close()


def test_one_round_answers_every_model_from_validated_names(prometheus_server, pages):
    prom = prometheus_server([{"job_name": "vllm", "static_configs": [
        {"targets": [f"127.0.0.1:{s.port}" for s in pages.values()]}]}])
    poll_until(lambda: len(prom.query("up == 1")) == 4, 15, "all four pages scraped")
    source = PrometheusSource(prom.url)

    before = time.time()
    result = observe(source, CAPTURE_MODEL, "absent-model", "nan-model")
    mine = result[CAPTURE_MODEL]
    assert isinstance(mine, Observation)
    assert (mine.waiting, mine.running, mine.ready_replicas) == (7, 4, 2)  # the decoy's 50 stayed out
    assert mine.completed_total == 0  # first sight of each replica's counter is a baseline
    assert mine.prompt_tokens_total == 0  # vllm:prompt_tokens_total, read per replica the same way
    assert before - 3 < mine.time <= before + 0.5  # the scrape's own timestamp, not the query's
    absent = result["absent-model"]
    # No series is no evidence (the path to the pods may be gone): never zero replicas.
    assert isinstance(absent, NoSeries) and "absent-model" in str(absent)
    assert isinstance(result["nan-model"], SourceError) and "is nan" in str(result["nan-model"])

    assert tpot_over(mine.tpot_buckets, 0.1) == (0.0, 0.0)  # the TPOT buckets: a baseline too

    pages["a"].text = vllm_page(waiting=3, running=2, completed=15, tpot=(2, 15))
    poll_until(lambda: observe(source, CAPTURE_MODEL)[CAPTURE_MODEL].completed_total == 5, 10,
               "five more completions on replica a")
    # Per replica and bound: replica a's five new requests, two of them over 0.1 s.
    assert tpot_over(observe(source, CAPTURE_MODEL)[CAPTURE_MODEL].tpot_buckets, 0.1) == (2.0, 5.0)

    pages["b"].close()  # a replica goes away: its `up` drops to 0 and its series go stale
    poll_until(lambda: observe(source, CAPTURE_MODEL)[CAPTURE_MODEL].ready_replicas == 1, 10, "one ready replica")

    prom.kill()
    started = time.monotonic()
    with pytest.raises(SourceError, match="prometheus http://127.0.0.1"):
        observe(source, CAPTURE_MODEL)
    assert time.monotonic() - started < 1.0  # no retries inside a round: the next poll is the retry
    asyncio.run(source.close())


def test_queries_carry_names_only_as_an_escaped_regex():
    queries = build_queries(["qwen2.5-1.5b", "meta-llama/Llama-3.1-8B-Instruct"])
    selector = 'model_name=~"meta\\\\-llama/Llama\\\\-3\\\\.1\\\\-8B\\\\-Instruct|qwen2\\\\.5\\\\-1\\\\.5b"'
    assert all(selector in q for q in queries.values()), queries
