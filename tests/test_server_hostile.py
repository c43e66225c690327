"""10,000 hostile GetMetricSpec calls against a real `serve` process (issue 13): distinct unknown
keys with long values, long invalid values for known keys, invalid UTF-8, oversized messages and
thousands of distinct model names. Every call gets a clear status (OK, INVALID_ARGUMENT or
RESOURCE_EXHAUSTED: never UNKNOWN or INTERNAL), memory stays under 300 MB, and a well-formed
call is still answered."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from scaler.server.metadata import MAX_UNKNOWN_VALUE_CHARS
from scaler.server.protocol import PROTO, SERVICE, ExternalScalerClient, ScaledObjectRef
from scaler_helpers import scaler_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration

CALLS = 10_000
IN_FLIGHT = 8
RSS_LIMIT_MB = 300
GOOD = {"model": "good", "source": "scrape", "scrapeTargets": "http://127.0.0.1:9/metrics"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def hostile(i: int) -> bytes:
    """The i-th hostile request, serialized (some cannot be built with the message classes)."""
    kind = i % 4
    if i % 500 == 499:  # over the message size limit (few: grpc takes ~0.3 s to refuse each)
        metadata = {**GOOD, "big": "z" * 400_000}
    elif kind == 0:  # KEDA-like unknown keys, distinct every call, each value near its size limit
        metadata = {**GOOD, f"x-{i}": "v" * (MAX_UNKNOWN_VALUE_CHARS - 10), f"y-{i}": str(i) * 100}
    elif kind == 1:  # a known key with a long, distinct, invalid value
        metadata = {**GOOD, "podSelector": "k=" + "v" * 900 + str(i), "namespace": "ns"}
    elif kind == 2:  # distinct valid model names: bounded by MAX_MODELS
        metadata = {**GOOD, "model": f"model-{i}"}
    else:  # invalid UTF-8 in a proto3 string
        body = ScaledObjectRef(name="so", namespace="default", scalerMetadata={**GOOD, "model": "PLACEHOLDER1"})
        return body.SerializeToString().replace(b"PLACEHOLDER1", b"\xff\xfe" * 6)
    return ScaledObjectRef(name="so", namespace="default", scalerMetadata=metadata).SerializeToString()


def test_ten_thousand_hostile_metric_spec_calls_keep_memory_bounded(scaler_server):  # noqa: F811
    serve = scaler_server("--poll-interval", "5")
    method = PROTO.method(SERVICE, "GetMetricSpec")
    with grpc.insecure_channel(f"127.0.0.1:{serve.grpc_port}",
                               options=[("grpc.max_send_message_length", 1 << 20)]) as channel:
        raw = channel.unary_unary(method.path, request_serializer=None, response_deserializer=method.response.FromString)
        codes: Counter[str] = Counter()
        peak = 0.0

        def call(i: int) -> str:
            try:
                raw(hostile(i), timeout=10)
                return "OK"
            except grpc.RpcError as error:
                return error.code().name

        with ThreadPoolExecutor(IN_FLIGHT) as pool:
            for start in range(0, CALLS, 1000):
                codes.update(pool.map(call, range(start, start + 1000)))
                peak = max(peak, rss_mb(serve.proc.pid))
        print(f"{CALLS} hostile GetMetricSpec calls: {codes}; peak RSS {peak:.0f} MB")
        assert set(codes) <= {"OK", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"}, codes
        assert codes["INVALID_ARGUMENT"] >= CALLS // 2 and codes["RESOURCE_EXHAUSTED"] >= CALLS // 500, codes
        assert peak < RSS_LIMIT_MB, f"peak RSS {peak:.0f} MB"
        spec = ExternalScalerClient(channel).GetMetricSpec(ExternalScalerClient.ref(GOOD), timeout=5)
        assert spec.metricSpecs[0].metricName == "slo-demand-good"
