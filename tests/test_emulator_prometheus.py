"""A real Prometheus scrapes a 2-replica emulated fleet through overload and recovery."""

from __future__ import annotations

import asyncio
import threading

import aiohttp
import pytest
from conftest import poll_until

pytestmark = pytest.mark.integration

MODEL = "emu-llama"
WAITING = "sum by (model_name) (vllm:num_requests_waiting)"
RUNNING = "sum by (model_name) (vllm:num_requests_running)"


def _scalar(prom, promql) -> float | None:
    result = prom.query(promql)
    if not result:
        return None
    assert result[0]["metric"] == {"model_name": MODEL}
    return float(result[0]["value"][1])


def test_waiting_rises_under_overload_and_falls_after(emulator_fleet, prometheus_server):
    # Two replicas of two slots each; 50 ms model steps at speed 10, so a 40-token request
    # holds a slot for ~0.2 s of wall time and 24 closed-loop clients keep ~20 requests queued.
    fleet = emulator_fleet("--model", MODEL, "--max-num-seqs", "2", "--step-base-s", "0.05",
                           replicas=2, max_replicas=2, speed=10)
    prom = prometheus_server([{
        "job_name": "vllm",
        "static_configs": [{"targets": [f"127.0.0.1:{fleet.port + 1}", f"127.0.0.1:{fleet.port + 2}"]}],
    }])
    poll_until(lambda: _scalar(prom, WAITING) == 0 and len(prom.query("up == 1")) == 2, 15,
               "both replicas scraped, queue empty")

    stop = threading.Event()
    observed = {}

    def watch():
        try:
            # Both replicas' latest scrapes show a queue (the front door spreads the load).
            observed["peak_waiting"] = poll_until(
                lambda: len(prom.query("vllm:num_requests_waiting >= 4")) == 2 and _scalar(prom, WAITING), 20,
                "waiting to rise on both replicas")
            # A scrape can fall between a request's last step and the next one's admission (one
            # slot free for a step), so "full" is a state reached, and the limit a bound on every sample.
            running = []

            def full() -> bool:
                running.append(_scalar(prom, RUNNING))
                return running[-1] == 4

            poll_until(full, 10, "both batches full (4 running) while the queue is long")
            observed["running"] = running
        except BaseException as exc:  # pytest.fail raises; report it from the test thread
            observed["error"] = exc
        finally:
            stop.set()

    async def load():
        async with aiohttp.ClientSession() as session:
            async def client(i):
                done = 0
                while not stop.is_set():
                    async with session.post(fleet.url + "/v1/completions",
                                            json={"model": MODEL, "prompt": "x", "max_tokens": 40}) as resp:
                        assert resp.status == 200
                        await resp.read()
                        done += 1
                return done

            return await asyncio.gather(*(client(i) for i in range(24)))

    watcher = threading.Thread(target=watch)
    watcher.start()
    completed = asyncio.run(load())
    watcher.join()
    assert "error" not in observed, observed.get("error")
    assert observed["peak_waiting"] >= 10
    assert max(observed["running"]) == 4  # max_num_seqs x replicas: full under overload, never above
    assert sum(completed) >= 24  # every client was served while the queue was long

    # The load stopped and every in-flight request finished: the queue drains in Prometheus too.
    assert poll_until(lambda: _scalar(prom, WAITING) == 0 and _scalar(prom, RUNNING) == 0, 15, "queue to drain")
    finished = prom.query('sum(vllm:request_success_total{finished_reason="length"})')
    assert float(finished[0]["value"][1]) == sum(completed)
