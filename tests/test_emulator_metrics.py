"""The emulator's /metrics against a real vLLM 0.29.0 scrape, and when values are observed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from conftest import http_get, start_emulator_fleet
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from scaler.emulator.metrics import VllmMetrics
from scaler.engine import EngineParams, Replica, Request

CAPTURE = Path(__file__).parent / "fixtures" / "vllm" / "metrics_sample_0.29.0.txt"
MODEL = "emu-llama"
REQUIRED = [
    "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
    "vllm:num_preemptions", "vllm:prompt_tokens", "vllm:generation_tokens", "vllm:request_success",
    "vllm:time_to_first_token_seconds", "vllm:request_queue_time_seconds", "vllm:e2e_request_latency_seconds",
    "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:inter_token_latency_seconds",
]


def families(text: str) -> dict:
    """name -> (type, label names without le, bucket bounds, samples)."""
    out = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("vllm:"):
            continue
        labels = set()
        bounds = []
        for sample in family.samples:
            labels |= set(sample.labels) - {"le"}
            if sample.name.endswith("_bucket") and sample.labels["le"] not in bounds:
                bounds.append(sample.labels["le"])
        out[family.name] = (family.type, labels, bounds, family.samples)
    return out


def value(fams, name, sample_name=None, **labels):
    _, _, _, samples = fams[name]
    sample_name = sample_name or name
    matches = [s.value for s in samples if s.name == sample_name and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(matches) == 1, (sample_name, labels, matches)
    return matches[0]


@pytest.mark.integration
def test_metrics_match_real_vllm_capture_and_count_the_traffic(tmp_path):
    fleet = start_emulator_fleet(tmp_path, "--model", MODEL, "--step-base-s", "0.05", "--max-num-seqs", "2",
                                 replicas=1, max_replicas=1, speed=10)
    try:
        async def traffic():
            async with aiohttp.ClientSession() as session:
                async def one(i):
                    async with session.post(fleet.replica_url(1) + "/v1/completions",
                                            json={"model": MODEL, "prompt": "x", "max_tokens": 4},
                                            headers={"x-prompt-tokens": str(100 + i)}) as resp:
                        assert resp.status == 200
                        await resp.read()
                await asyncio.gather(*(one(i) for i in range(6)))

        asyncio.run(traffic())
        status, body = http_get(fleet.replica_url(1) + "/metrics")
    finally:
        fleet.proc.terminate()
        fleet.proc.wait(10)
    assert status == 200
    ours = families(body.decode())
    real = families(CAPTURE.read_text())

    for name in REQUIRED:
        assert name in ours, name
    # Every vllm family we expose exists in the real scrape with the same type, labels and buckets.
    for name, (kind, labels, bounds, _) in ours.items():
        assert name in real, f"{name} is not a vLLM 0.29.0 family"
        real_kind, real_labels, real_bounds, _ = real[name]
        assert (kind, labels, bounds) == (real_kind, real_labels, real_bounds), name

    # The values describe the traffic: 6 requests of 4 tokens, prompts 100..105, two at a time.
    assert value(ours, "vllm:request_success", "vllm:request_success_total", finished_reason="length") == 6
    assert value(ours, "vllm:generation_tokens", "vllm:generation_tokens_total") == 24
    assert value(ours, "vllm:prompt_tokens", "vllm:prompt_tokens_total") == sum(range(100, 106))
    assert value(ours, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count") == 6
    assert value(ours, "vllm:inter_token_latency_seconds", "vllm:inter_token_latency_seconds_count") == 18
    assert value(ours, "vllm:request_queue_time_seconds", "vllm:request_queue_time_seconds_count") == 6
    assert value(ours, "vllm:num_requests_running") == 0 and value(ours, "vllm:kv_cache_usage_perc") == 0
    # With two slots, four of the six requests queued behind whole requests (4 steps of >= 50 ms
    # each): about 2 x 0.2 + 2 x 0.4 = 1.2 model seconds if all arrive at once; in wall seconds
    # (speed 10) it would be a tenth of that.
    queued = value(ours, "vllm:request_queue_time_seconds", "vllm:request_queue_time_seconds_sum")
    assert queued >= 0.6
    # Model seconds at speed 10: each ITL is one >= 50 ms step, not 5 ms of wall time.
    assert value(ours, "vllm:inter_token_latency_seconds", "vllm:inter_token_latency_seconds_bucket", le="0.05") == 0


def test_queue_time_is_observed_only_when_the_request_finishes():
    params = EngineParams(max_num_seqs=1, max_model_len=64, kv_cache_tokens=256, step_base_s=0.5,
                          prefill_s_per_token=0.0, decode_s_per_seq=0.0, kv_read_s_per_token=0.0)
    replica, metrics = Replica(params), VllmMetrics("m")
    first, second = (Request(i, 8, 3, 0.0) for i in ("a", "b"))
    replica.add(first, 0.0)
    replica.add(second, 0.0)
    metrics.update_gauges(replica)

    def scrape():
        return families(generate_latest(metrics.registry).decode())

    assert value(scrape(), "vllm:num_requests_waiting") == 2
    now = 0.0
    while not first.finished:
        outcome = replica.step(now)
        metrics.observe_step(outcome)
        metrics.update_gauges(replica)
        now = outcome.end
    fams = scrape()
    # `b` has waited 1.5 s and is now running, but only the finished `a` is in the queue-time histogram.
    assert value(fams, "vllm:request_queue_time_seconds", "vllm:request_queue_time_seconds_count") == 1
    assert value(fams, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count") == 1
    assert value(fams, "vllm:e2e_request_latency_seconds", "vllm:e2e_request_latency_seconds_sum") == 1.5
    while replica.has_work:
        outcome = replica.step(now)
        metrics.observe_step(outcome)
        metrics.update_gauges(replica)
        now = outcome.end
    fams = scrape()
    assert value(fams, "vllm:request_queue_time_seconds", "vllm:request_queue_time_seconds_sum") == 1.5
    assert value(fams, "vllm:request_prefill_time_seconds", "vllm:request_prefill_time_seconds_sum") == 1.0
    assert value(fams, "vllm:request_decode_time_seconds", "vllm:request_decode_time_seconds_sum") == 2.0
    assert value(fams, "vllm:iteration_tokens_total", "vllm:iteration_tokens_total_count") == 6


def test_preemptions_and_kv_usage_reach_the_metrics():
    params = EngineParams(max_num_seqs=4, max_model_len=64, kv_cache_tokens=64, block_size=16,
                          max_num_batched_tokens=64, step_base_s=0.01)
    replica, metrics = Replica(params), VllmMetrics("m")
    for i in range(2):
        replica.add(Request(f"r{i}", 30, 30, 0.0), 0.0)
    now, peak = 0.0, 0.0
    while replica.has_work:
        outcome = replica.step(now)
        metrics.observe_step(outcome)
        metrics.update_gauges(replica)
        peak = max(peak, value(families(generate_latest(metrics.registry).decode()), "vllm:kv_cache_usage_perc"))
        now = outcome.end
    fams = families(generate_latest(metrics.registry).decode())
    assert replica.counters.preemptions >= 1
    assert value(fams, "vllm:num_preemptions", "vllm:num_preemptions_total") == replica.counters.preemptions
    assert peak == 1.0
