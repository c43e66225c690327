"""vLLM's output-token counter, from the page to the policy's TPOT: real captures, counters across
replica restarts, a real Prometheus in between, and serve's poll loop on an emulated fleet."""

from __future__ import annotations

import asyncio
import math
import re
import time
from pathlib import Path

import aiohttp
import pytest

from conftest import poll_until
from scaler.server.metadata import SourceSpec
from scaler.server.poller import Poller
from scaler.server.registry import ModelRegistry
from scaler.sources import ModelQuery, Observation
from scaler.sources.prometheus import PrometheusSource
from scaler.sources.scrape import ScrapeSource
from scaler.sources.vllm import parse_page, tpot_over
from scaler_helpers import CAPTURE_MODEL, PageServer, vllm_page

FIXTURES = Path(__file__).parent / "fixtures" / "vllm"
GENERATED_LINE = re.compile(r"^(vllm:generation_tokens_total\{[^}]*\}) \S+$", re.M)


def page(generated: float | None = 584.0, completed: float = 10) -> str:
    """The real v1 capture with its generation_tokens_total value replaced (None: the series removed)."""
    text = vllm_page(completed=completed)
    text, count = GENERATED_LINE.subn("" if generated is None else rf"\g<1> {generated}", text)
    assert count == 1
    return text


def test_both_engines_pages_give_the_output_token_counter():
    v1 = parse_page((FIXTURES / "metrics_sample_0.29.0.txt").read_text())[CAPTURE_MODEL]
    v0 = parse_page((FIXTURES / "metrics_sample_0.4.3.txt").read_text())["facebook/opt-125m"]
    assert (v1.generated, v0.generated) == (584.0, 7.0)  # the captures' own values
    # The per-second _created gauge next to it is not the counter; NaN or absent is unknown.
    assert parse_page(page(generated="NaN"))[CAPTURE_MODEL].generated is None
    assert parse_page(page(generated=None))[CAPTURE_MODEL].generated is None


def test_scrape_keeps_output_tokens_monotonic_across_a_replica_restart():
    server = PageServer(page(generated=584))
    source = ScrapeSource()
    query = ModelQuery(CAPTURE_MODEL, SourceSpec(kind="scrape", scrape_targets=(server.url,)))

    async def rounds():
        seen = []
        for generated in (584, 640, 12, None):  # restarts before the third round; the fourth page lacks it
            server.text = page(generated=generated)
            seen.append((await source.observe([query], time.time()))[CAPTURE_MODEL].generation_tokens_total)
        await source.close()
        return seen

    try:
        assert asyncio.run(rounds()) == [0, 56, 68, None]  # a baseline, +56, a reset counts its 12, unknown
    finally:
        server.close()


@pytest.mark.integration
def test_prometheus_output_tokens_survive_restarts_and_give_serve_the_batchs_tpot(emulator_fleet, prometheus_server):
    """One Prometheus (its first scrape comes ~5 s after start) scrapes two edited captures and an
    emulated fleet. The captures: per-replica counters across a restart, and no series is None.
    The fleet: two ScaledObjects of the same model on two servers, one with a TPOT SLO the batch
    cannot meet; serve's poll loop must see the output token rate and go RED for TPOT with more
    demand, the one without the key must not."""
    model, step_s = "emu-tpot", 0.05
    fleet = emulator_fleet("--model", model, "--max-num-seqs", "4", "--step-base-s", str(step_s),
                           replicas=2, max_replicas=2, speed=1)
    a, b = PageServer(page(generated=100)), PageServer(page(generated=1000))
    prom = prometheus_server([
        {"job_name": "pages", "static_configs": [{"targets": [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]}]},
        {"job_name": "emulator", "static_configs": [
            {"targets": [f"127.0.0.1:{fleet.port + 1}", f"127.0.0.1:{fleet.port + 2}"]}]}])
    try:
        poll_until(lambda: len(prom.query("vllm:generation_tokens_total")) == 4, 15, "every replica scraped")
        check_restarts(prom, a, b)
    finally:
        a.close()
        b.close()
    check_tpot(prom, fleet, model, step_s)


def check_restarts(prom, a: PageServer, b: PageServer) -> None:
    source = PrometheusSource(prom.url)
    query = ModelQuery(CAPTURE_MODEL, SourceSpec(kind="prometheus", prometheus_address=prom.url))

    def total() -> float | None:
        result = asyncio.run(source.observe([query], time.time()))[CAPTURE_MODEL]
        assert isinstance(result, Observation)
        return result.generation_tokens_total

    try:
        assert total() == 0  # first sight of each replica is a baseline
        a.text = page(generated=5)  # replica a restarted: its counter starts over
        b.text = page(generated=1010)
        # a's 5 new tokens and b's 10; the raw sum went from 1100 to 1015, a drop of 85.
        poll_until(lambda: total() == 15, 10, "the restart read as a reset, not a drop")
        a.text, b.text = page(generated=None), page(generated=None)  # an engine without the counter
        poll_until(lambda: total() is None, 10, "no series is unknown, not zero")
    finally:
        asyncio.run(source.close())


def check_tpot(prom, fleet, model: str, step_s: float) -> None:
    base = {"model": model, "source": "prometheus", "prometheusAddress": prom.url, "ttftSloSeconds": "5",
            "perReplicaCapacity": "20", "maxConcurrency": "4", "scaleUpLatencySeconds": "30",
            "rateWindowSeconds": "4"}
    # The step alone is 50 ms, so a 20 ms TPOT SLO is missed by any batch.
    with_tpot, without = ModelRegistry(), ModelRegistry()
    tpot_entry = with_tpot.ensure({**base, "tpotSloSeconds": "0.02"})
    plain_entry = without.ensure(base)
    decisions: dict[str, list] = {"tpot": [], "plain": []}

    async def run():
        pollers = {"tpot": (Poller(with_tpot), tpot_entry), "plain": (Poller(without), plain_entry)}
        stop = asyncio.Event()

        async def client(session):
            while not stop.is_set():
                async with session.post(fleet.url + "/v1/completions",
                                        json={"model": model, "prompt": "x", "max_tokens": 40}) as response:
                    assert response.status == 200
                    await response.read()

        async with aiohttp.ClientSession() as session:
            clients = [asyncio.create_task(client(session)) for _ in range(8)]  # the 2 x 4 batch slots
            try:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    for name, (poller, entry) in pollers.items():
                        await asyncio.gather(*poller.tick(time.time()))
                        if entry.decision is not None:
                            decisions[name].append(entry.decision)
                    latest = decisions["tpot"][-1:]
                    if len(decisions["tpot"]) >= 4 and latest[0].reason == "tpot-exceeds-slo":
                        break  # past half the rate window, so the TPOT term is in the demand
                    await asyncio.sleep(1.0)
            finally:
                stop.set()
                await asyncio.gather(*clients, return_exceptions=True)
                for poller, _ in pollers.values():
                    await poller.close()

    asyncio.run(run())
    assert tpot_entry.observation.generation_tokens_total > 0  # output tokens counted since the first poll
    # The emulator's per-request TPOT histogram, through Prometheus: every request finished since
    # the first poll took a 50 ms step per token, over the 20 ms SLO (the slow-token term's input;
    # the term itself counts nothing while RED).
    slow, finished = tpot_over(tpot_entry.observation.tpot_buckets, 0.02)
    assert finished and slow == finished, tpot_entry.observation.tpot_buckets
    red = [d for d in decisions["tpot"] if d.reason == "tpot-exceeds-slo"]
    assert red, [(d.state.value, d.reason, d.detail) for d in decisions["tpot"]]
    assert red[-1].state.value == "RED" and red[-1].ready_replicas == 2
    # The TPOT it read is the batch's step time: every running request makes a token per step,
    # so R / (output tokens per second) is one step of at least 50 ms (on a loaded 2-core machine
    # not beyond a few), in the share of the 8 slots R held at that instant. R is an instant gauge
    # and the token rate an average: a client between two requests leaves a slot free for a moment
    # (hence the margin below), and a replica whose 4 requests finished together reads R at 4 of 8
    # for a rate the full batch made (26 ms for 50 ms steps, seen twice under load).
    tpot_ms = float(re.search(r"makes (\d+) ms per output token", red[-1].detail).group(1))
    running = float(re.search(r"(\d+) running\)", red[-1].detail).group(1))
    assert 1000 * step_s * 0.6 * min(1.0, running / 8) <= tpot_ms <= 1000 * step_s * 4, red[-1].detail
    # The TPOT term sizes the fleet: ready x tpot / (0.7 x SLO) is far above what the rate asks.
    assert red[-1].demand >= 2 * (tpot_ms - 1) / (0.7 * 20)
    assert not any(d.reason == "tpot-exceeds-slo" for d in decisions["plain"])
    # Without the TPOT SLO the demand is at most the batch term's (or the 2 ready the release
    # holds): the 8 clients fill the 2 x 4 slots, kept at 70% of S, and while the batch fills
    # (arrivals, inferred from the growing gauges, outpace completions) the batch it grows to
    # (~4 requests/s alone ask for less than the 2 ready); past the 2 ready it is asked as whole
    # replicas, so the HPA's tolerance does not hold it back.
    for d in decisions["plain"]:
        growth = max(1.0, d.arrival_rps / d.completion_rps) if d.completion_rps > 0 else 1.0
        assert d.demand <= max(d.ready_replicas, math.ceil(d.running * growth / (0.7 * 4) - 1e-9)) + 1e-9, d.detail
